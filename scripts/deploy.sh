#!/usr/bin/env bash
# From a checkout: `onrecord build` of a site's pages (markdown or built HTML), with vectors when
# the teacher model is here (scripts/setup.sh fetches it):
#   scripts/deploy.sh path/to/pages OUT_DIR [onrecord build options]
# The widget files come from crates/onrecord-cli/assets (after changing www/ or the wasm crate,
# regenerate them with scripts/cli-assets.sh). Outside a checkout, install the binary instead:
# cargo install --path crates/onrecord-cli.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: scripts/deploy.sh PAGES_DIR OUT_DIR [onrecord build options]" >&2; exit 2; }
pages=$1 out=$2
shift 2
vectors=()
if [ -f build-index/model/query-model.onq ] && [ -d target/models/all-minilm-l6-v2 ]; then
  vectors=(--teacher target/models/all-minilm-l6-v2 --model-dir build-index/model)
fi
cargo run --quiet --release -p onrecord-cli -- build "$pages" --out "$out" "${vectors[@]}" "$@"
