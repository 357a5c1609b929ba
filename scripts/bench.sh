#!/usr/bin/env bash
# Benchmarks: criterion (native) and the browser benchmark page in headless Chromium, at ~1k,
# 10k and 100k fragments of the rustc-dev-guide (../shared/corpora) replicated, and search as
# you type at ~10k fragments through the widget's worker, for one index file and for the
# manifest and shards build-index writes at that size (tests/e2e/bench.mjs, www/bench.js).
#
#   scripts/bench.sh            everything
#   scripts/bench.sh --typing   search as you type only, the page three times (fresh contexts)
#                               (eval/notes/2026-12-04-search-as-you-type.md)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
typing=
case ${1:-} in
  --typing) typing=yes ;;
  '') ;;
  *) echo "usage: scripts/bench.sh [--typing]" >&2; exit 2 ;;
esac
scripts/setup.sh
scripts/build-wasm.sh
model=build-index/model/query-model.onq
cargo run --quiet --release -p build-index --example bench_indexes -- \
  ../shared/corpora/rustc-dev-guide www/dist/bench $( [ -f "$model" ] && echo "$model" )
# The same pages as a site of ~10k fragments is built: four copies of the guide, the fourth
# without its top-level pages (10,315 fragments), by build-index (lexical: no teacher), which
# writes a manifest and shards at this size.
pages=target/bench-typing/pages
rm -rf "$pages" www/dist/bench/sharded-10k
for n in 1 2 3 4; do
  mkdir -p "$pages/copy$n"
  cp -r ../shared/corpora/rustc-dev-guide/. "$pages/copy$n/"
done
cargo build --quiet --release -p build-index --bin build-index
target/release/build-index "$pages" --out www/dist/bench/sharded-10k --shards --exclude 'copy4/*.md' 2>&1 |
  grep -E '^(fragments|wrote)'
echo "== browser (headless Chromium)"
if [ -n "$typing" ]; then
  node tests/e2e/bench.mjs --only typing --runs 3
  exit
fi
node tests/e2e/bench.mjs
echo "== native (criterion)"
cargo bench --quiet -p build-index --bench query -- --noplot
