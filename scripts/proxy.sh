#!/usr/bin/env bash
# Runs the model-answer proxy over the site's index against any OpenAI-compatible server.
#   ONRECORD_UPSTREAM_KEY=sk-... scripts/proxy.sh https://api.openai.com/v1 gpt-4o-mini
#   scripts/proxy.sh http://127.0.0.1:11434/v1 llama3.2 --no-key     # a local Ollama
# Extra arguments go to onrecord-proxy (--allow-origin, --listen, --run-log, ...; see --help).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: scripts/proxy.sh UPSTREAM_BASE_URL MODEL [onrecord-proxy options]" >&2
  exit 2
fi
upstream=$1 model=$2
shift 2
[ -f www/dist/index.onr ] || scripts/build-index.sh
exec cargo run --quiet --release -p onrecord-proxy -- \
  --index www/dist/index.onr --upstream "$upstream" --model "$model" "$@"
