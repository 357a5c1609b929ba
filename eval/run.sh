#!/usr/bin/env bash
# Regenerates eval/results/ (markdown tables + JSON per split) for every question set.
#   eval/run.sh          (needs ../shared/corpora beside the checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared/corpora
cargo build --quiet --release -p eval
bin=target/release/eval
mkdir -p eval/results
# Vectors as build-index makes them for the demo (scripts/setup.sh fetches the teacher).
model=(--teacher target/models/all-minilm-l6-v2 --model-dir build-index/model)

run() { # name corpus questions [extra args]
  local name=$1 corpus=$2 questions=$3
  shift 3
  for split in dev test all; do
    "$bin" --corpus "$corpus" --questions "$questions" --split "$split" \
      --json "eval/results/$name.$split.json" "$@" > /dev/null
  done
  "$bin" --corpus "$corpus" --questions "$questions" --markdown "eval/results/$name.md" "$@" > /dev/null
  echo "eval/results/$name.md"
}

run corpus corpus eval/questions/corpus.json --sizes 400,800,1200 "${model[@]}" \
  --followups eval/questions/followups-corpus.json
run express "$shared/express/astro-5x/src/content/docs/en/5x" eval/questions/express.json --sizes 400,800,1200 "${model[@]}" \
  --followups eval/questions/followups-express.json
# The demo corpus's decisions collection: questions that need a decision and a guide.
run decisions corpus eval/questions/corpus-decisions.json "${model[@]}"
run person-a "$shared/person-a/example-content" eval/questions/person-a.json --private-dir notebook --site-name "Person A" "${model[@]}"
