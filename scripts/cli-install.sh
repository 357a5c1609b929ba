#!/usr/bin/env bash
# Proves that a site owner needs only Rust: `cargo install --path crates/onrecord-cli` into a
# scratch root, then `onrecord build` of the demo corpus, `check` and `ask`, all with a PATH
# that has no Node, npm, Chromium, chromedriver, wasm-bindgen, wasm-pack or wasm-opt.
#
#   scripts/cli-install.sh           reuses this checkout's target/ (what scripts/test.sh runs)
#   scripts/cli-install.sh --fresh   compiles everything in a scratch target dir, as on a fresh
#                                    machine (minutes: candle and faer build from scratch)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# A PATH of everything in /usr/bin and /bin except the browser, Node and wasm tools, plus
# rustup's cargo and rustc.
mkdir "$scratch/bin"
hidden=' node nodejs npm npx corepack chromium chromium-browser chromedriver google-chrome wasm-bindgen wasm-pack wasm-opt esbuild '
for dir in /bin /usr/bin; do
  for tool in "$dir"/*; do
    name=${tool##*/}
    [[ $hidden == *" $name "* ]] && continue
    [ -e "$scratch/bin/$name" ] || ln -s "$tool" "$scratch/bin/$name"
  done
done
cargo_bin=$(dirname "$(command -v cargo)")
for tool in cargo rustc rustup; do
  [ -e "$cargo_bin/$tool" ] && ln -sfn "$cargo_bin/$tool" "$scratch/bin/$tool"
done
export PATH=$scratch/bin
for tool in node npm chromium chromedriver wasm-bindgen wasm-opt; do
  if command -v "$tool" > /dev/null; then echo "cli-install: $tool is still on PATH" >&2; exit 1; fi
done

target_dir=${CARGO_TARGET_DIR:-$root/target}
[ "${1:-}" = --fresh ] && target_dir=$scratch/target
CARGO_TARGET_DIR=$target_dir cargo install --quiet --locked --path crates/onrecord-cli --root "$scratch/root"
onrecord=$scratch/root/bin/onrecord
cd "$scratch"  # away from the checkout: the binary needs nothing from it
# Its own cache: a teacher cached in the user's would make the build use vectors.
export ONRECORD_CACHE=$scratch/cache
"$onrecord" build "$root/corpus" --out site/onrecord > build.txt
grep -q 'lexical build' build.txt
"$onrecord" check site/onrecord > /dev/null
"$onrecord" ask site/onrecord 'How long does charging take with the fast charger?' > answer.txt
grep -q 'With the 4 A fast charger it takes about 3 hours.' answer.txt
echo "cli-install: cargo install + onrecord build/check/ask work without Node, Chromium or wasm tools"
