#!/usr/bin/env bash
# Benchmarks: criterion (native) and the browser benchmark page in headless Chromium, at ~1k,
# 10k and 100k fragments of the rustc-dev-guide (../shared/corpora) replicated.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build-wasm.sh
model=build-index/model/query-model.onq
cargo run --quiet --release -p build-index --example bench_indexes -- \
  ../shared/corpora/rustc-dev-guide www/dist/bench $( [ -f "$model" ] && echo "$model" )
echo "== browser (headless Chromium)"
node tests/e2e/bench.mjs
echo "== native (criterion)"
cargo bench --quiet -p build-index --bench query -- --noplot
