#!/usr/bin/env bash
# One command for the demo: set up, build the index from corpus/, build the wasm, serve www/.
#   scripts/demo.sh            (PORT=8000 by default; a busy port falls back to a free one)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build-index.sh
scripts/build-wasm.sh
exec node scripts/serve.mjs --root www --port "${PORT:-8000}"
