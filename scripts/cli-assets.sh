#!/usr/bin/env bash
# The widget files the `onrecord` binary carries (crates/onrecord-cli/assets/), made by the same
# step as a deploy: scripts/build-wasm.sh, then scripts/site.mjs (minify, hash in dependency
# order, rewrite the loader's ASSETS line). site.mjs runs over a placeholder index and query model;
# their two files are dropped and their names stay in the loader, where `onrecord build`
# puts the real names (or null for a lexical build).
#
#   scripts/cli-assets.sh            rebuild the wasm and regenerate the committed assets
#   scripts/cli-assets.sh --check    regenerate into a temp folder (wasm as built) and fail unless
#                                    they equal the committed ones, and unless `onrecord build`
#                                    writes the same folder as build-index + site.mjs
set -euo pipefail
cd "$(dirname "$0")/.."
assets=crates/onrecord-cli/assets
check=
[ "${1:-}" = --check ] && check=1

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
[ -n "$check" ] || scripts/build-wasm.sh
mkdir "$scratch/placeholder"
printf 'placeholder index' > "$scratch/placeholder/index.onr"
printf 'placeholder query model' > "$scratch/placeholder/query-model.onq"
node scripts/site.mjs --index "$scratch/placeholder/index.onr" \
  --model "$scratch/placeholder/query-model.onq" --out "$scratch/site" > /dev/null
rm "$scratch"/site/index.*.onr "$scratch"/site/query-model.*.onq

if [ -z "$check" ]; then
  rm -rf "$assets"
  mv "$scratch/site" "$assets"
  ls -l "$assets"
  exit 0
fi

if ! diff -r "$assets" "$scratch/site"; then
  echo "the assets carried by crates/onrecord-cli differ from a fresh build: run scripts/cli-assets.sh" >&2
  exit 1
fi
# The deploy folder `onrecord build` writes equals build-index + site.mjs, byte for byte.
corpus=tests/e2e/fixtures/corpus
cargo run --quiet --release -p build-index -- "$corpus" --out "$scratch/index" > /dev/null
node scripts/site.mjs --index "$scratch/index/index.onr" --out "$scratch/by-site-mjs" > /dev/null
cargo run --quiet --release -p onrecord-cli -- build "$corpus" --out "$scratch/by-cli" > /dev/null
diff -r "$scratch/by-site-mjs" "$scratch/by-cli"
echo "carried assets equal a fresh build; onrecord build writes what site.mjs writes"
