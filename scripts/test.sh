#!/usr/bin/env bash
# One command for every test: set up, then lint, native tests, the wasm tests in headless
# Chromium, and the end-to-end tests of the widget (demo page and a deployed fixture site under a
# strict CSP) in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n== %s\n' "$*"; }

step setup
scripts/setup.sh

step "format and lints"
cargo fmt --all --check
cargo clippy --quiet --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --workspace --no-deps
# The cargo-fuzz targets are their own workspace (nightly runs them, fuzz/README.md): here they
# only have to compile, against the same target dir so the dependencies checked above are reused.
cargo fmt --manifest-path fuzz/Cargo.toml --check
cargo check --quiet --locked --manifest-path fuzz/Cargo.toml --target-dir target --bins

step "core stays IO-free and web-free, its modules without import circles"
scripts/check-imports.py
if cargo tree -p onrecord-core -e normal -i wasm-bindgen >/dev/null 2>&1; then
  echo "onrecord-core depends on wasm-bindgen; it must not" >&2
  exit 1
fi
(source target/setup/wasm.env && cargo check --quiet -p onrecord-core --target wasm32-unknown-unknown)

step "native tests"
cargo test --workspace

step "wasm tests (wasm-pack test --headless --chrome; every export: the default features with sharded)"
(source target/setup/wasm.env && wasm-pack test --headless --chrome --mode no-install crates/onrecord-wasm --features sharded)

step "browser bundle and demo index"
scripts/build-wasm.sh
scripts/build-index.sh
# The widget's fixture site (a ferry guide and a page of XSS payloads), lexical only.
cargo run --quiet --release -p build-index -- tests/e2e/fixtures/corpus --out www/dist/fixture

step "the onrecord CLI: its carried widget files equal this build; cargo install without Node or Chromium"
scripts/cli-assets.sh --check
scripts/cli-install.sh
# The demo corpus as a sharded deploy folder (lexical, 4 KB shards: several per question), by the
# CLI whose carried files were just checked, for tests/e2e/sharded.test.mjs.
rm -rf www/dist/sharded
cargo run --quiet --release -p onrecord-cli -- build corpus --out www/dist/sharded --lexical --shards --shard-size 4096 > /dev/null

step "type check of the widget against the engine's generated TypeScript (tsc --checkJs)"
tests/e2e/node_modules/.bin/tsc -p www/tsconfig.json

step "end-to-end in headless Chromium (demo page, deployed site, a Sphinx site via the CLI, proxy, the npm package in a scratch project)"
(cd tests/e2e && node --test)
