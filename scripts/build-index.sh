#!/usr/bin/env bash
# Builds the demo index from corpus/ into www/dist, with fragment vectors when the query model
# (build-index/model/query-model.onq) is in the repo. Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
vectors=()
if [ -f build-index/model/query-model.onq ]; then
  vectors=(--teacher target/models/all-minilm-l6-v2 --model-dir build-index/model)
fi
cargo run --quiet --release -p build-index -- corpus --out www/dist "${vectors[@]}" "$@"
