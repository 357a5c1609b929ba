#!/usr/bin/env bash
# The widget files the `onrecord` binary carries (crates/onrecord-cli/assets/), made by the same
# step as a deploy: scripts/build-wasm.sh, then scripts/site.mjs (minify, hash in dependency
# order, minify the loader) without an index: the loader keeps the placeholder names of the index
# and query model in its ASSETS line, where `onrecord build` puts the real names (or null for a
# lexical build), as site.mjs itself does.
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
node scripts/site.mjs --template --out "$scratch/site" > /dev/null

if [ -z "$check" ]; then
  rm -rf "$assets"
  mv "$scratch/site" "$assets"
  ls -l "$assets"
  exit 0
fi

# The assets are generated on the rustup route. Debian's rustc-web route (scripts/setup.sh) is
# another compiler, so its wasm bytes are not expected to match: there every file but the wasm is
# compared, with the wasm's hashed name masked in the loader.
same() {
  if grep -q 'Debian route' target/setup/wasm.env; then
    local masked
    for dir in "$1" "$2"; do
      masked=$scratch/masked/$(basename "$dir")
      mkdir -p "$masked"
      cp "$dir"/* "$masked"/
      rm "$masked"/*.wasm.gz
      sed -i -E 's/(onrecord_wasm(_sharded|_documents)?_bg)\.[0-9a-f]{10}\.wasm\.gz/\1.(wasm).wasm.gz/g' "$masked/onrecord.js"
    done
    echo "cli-assets: Debian wasm route: the wasm itself is not compared" >&2
    diff -r "$scratch/masked/$(basename "$1")" "$scratch/masked/$(basename "$2")" && rm -rf "$scratch/masked"
  else
    diff -r "$1" "$2"
  fi
}

if ! same "$assets" "$scratch/site"; then
  echo "the assets carried by crates/onrecord-cli differ from a fresh build: run scripts/cli-assets.sh" >&2
  exit 1
fi
# The deploy folder `onrecord build` writes equals build-index + site.mjs, byte for byte.
corpus=tests/e2e/fixtures/corpus
cargo run --quiet --release -p build-index -- "$corpus" --out "$scratch/index" > /dev/null
node scripts/site.mjs --index "$scratch/index/index.onr" --out "$scratch/by-site-mjs" > /dev/null
cargo run --quiet --release -p onrecord-cli -- build "$corpus" --out "$scratch/by-cli" --lexical > /dev/null
same "$scratch/by-site-mjs" "$scratch/by-cli"
echo "carried assets equal a fresh build; onrecord build writes what site.mjs writes"
