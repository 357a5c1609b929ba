#!/usr/bin/env bash
# Builds a ready-to-copy widget folder for a site from its markdown:
#   scripts/deploy.sh path/to/markdown OUT_DIR [build-index options]
# OUT_DIR gets onrecord.js (the loader, stable name) and content-hashed styles, wasm, glue,
# index and query model. Serve the hashed files with a one-year immutable cache (README).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: scripts/deploy.sh CORPUS_DIR OUT_DIR [build-index options]" >&2; exit 2; }
corpus=$1 out=$2
shift 2
scripts/setup.sh
scripts/build-wasm.sh
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
vectors=()
if [ -f build-index/model/query-model.onq ]; then
  vectors=(--teacher target/models/all-minilm-l6-v2 --model-dir build-index/model)
fi
cargo run --quiet --release -p build-index -- "$corpus" --out "$build" "${vectors[@]}" "$@"
node scripts/site.mjs --index "$build/index.onr" --out "$out"
