#!/usr/bin/env bash
# Builds the browser bundles into www/dist/pkg, www/dist/pkg-sharded and www/dist/pkg-documents: cargo (wasm-release profile) → wasm-bindgen →
# wasm-opt -Oz → gzip by zopfli (onrecord_wasm_bg.wasm.gz). Prints raw and gzipped sizes. Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck disable=SC1091
source target/setup/wasm.env
command -v zopfli > /dev/null || { echo "build-wasm: zopfli is missing: run scripts/setup.sh (Debian package zopfli)" >&2; exit 1; }
target_dir="${CARGO_TARGET_DIR:-$root/target}"
# Two bundles: www/dist/pkg (every site) and www/dist/pkg-sharded (the `sharded` feature: a
# sharded index's manifest and shards), which the worker loads only for a sharded site.
bundle() { # <out dir> [cargo arguments]
  local out=$1
  cargo build --quiet -p onrecord-wasm --target wasm32-unknown-unknown --profile wasm-release "${@:2}"
  rm -rf "$out"
  wasm-bindgen --target web --out-dir "$out" "$target_dir/wasm32-unknown-unknown/wasm-release/onrecord_wasm.wasm"
  # --low-memory-unused: Rust puts the 1 MB stack first (it grows down towards 0) and data and
  # heap above it, so nothing lives in the low 1 KB and wasm-opt may fold pointer offsets into
  # loads and stores (1.6 KB gzipped, measured).
  scripts/tools/node_modules/.bin/wasm-opt -Oz --converge --low-memory-unused --strip-debug --strip-producers \
    --enable-bulk-memory --enable-reference-types --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals \
    "$out/onrecord_wasm_bg.wasm" -o "$out/onrecord_wasm_bg.wasm"
  # What a site serves (scripts/site.mjs): the wasm gzip-compressed, so a host that does not
  # compress sends ~120 KB, not ~290 KB; the worker gunzips it. Zopfli's gzip (no name, no
  # time; 15 iterations, its default): the same wasm always gives the same bytes, so the hashed
  # name is stable, and 5% fewer than GNU gzip -9 (127,526 → 120,755 bytes for the sharded
  # bundle, measured).
  zopfli --i15 -c "$out/onrecord_wasm_bg.wasm" > "$out/onrecord_wasm_bg.wasm.gz"
  local raw gz
  raw=$(wc -c < "$out/onrecord_wasm_bg.wasm")
  gz=$(wc -c < "$out/onrecord_wasm_bg.wasm.gz")
  echo "wasm: $raw bytes raw, $gz bytes gzipped ($out/onrecord_wasm_bg.wasm.gz)"
}
# The widget's worker fetches for itself, so neither served bundle carries the `fetch` feature
# (loadEngine, loadQueryModel and gloo-net: about 1.5 KB of the gzipped module); the crate keeps
# it, by default, for those who build the engine on its own (wasm-pack build).
bundle www/dist/pkg --no-default-features
bundle www/dist/pkg-sharded --no-default-features --features sharded
# A visitor's own files ("your documents") are indexed by a third bundle, which the worker loads
# only when files are dropped: the indexer is ~13.5 KB of the gzipped module.
bundle www/dist/pkg-documents --no-default-features --features documents
