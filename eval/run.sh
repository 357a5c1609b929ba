#!/usr/bin/env bash
# Regenerates eval/results/: the cross-corpus (leave-one-corpus-out) reports with and without
# vectors, then markdown tables + JSON per split for each question set, as shipped.
#   eval/run.sh          (needs ../shared/corpora beside the checkout and scripts/setup.sh run)
# Choosing the shipped models is a separate, deliberate step:
#   target/release/eval --cross eval/corpora.json --write-shipped
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared/corpora
cargo build --quiet --release -p eval
bin=target/release/eval
mkdir -p eval/results
# Vectors as build-index makes them for the demo (scripts/setup.sh fetches the teacher).
model=(--teacher target/models/all-minilm-l6-v2 --model-dir build-index/model)

# Leave one corpus out: every knob chosen on the other corpora's dev halves.
"$bin" --cross eval/corpora.json --markdown eval/results/cross-corpus.md --json eval/results/cross-corpus.json "${model[@]}" > /dev/null
echo eval/results/cross-corpus.md
"$bin" --cross eval/corpora.json --lexical --markdown eval/results/cross-corpus-lexical.md --json eval/results/cross-corpus-lexical.json > /dev/null
echo eval/results/cross-corpus-lexical.md
# Site adaptation of the query model (opt-in, not shipped): its knobs by dev halves, then the
# cross-corpus report with every corpus's own adapted table.
"$bin" --cross eval/corpora.json --adapt-sweep --markdown eval/results/adapt-sweep.md "${model[@]}" > /dev/null
echo eval/results/adapt-sweep.md
"$bin" --cross eval/corpora.json --adapt --markdown eval/results/cross-corpus-adapt.md --json eval/results/cross-corpus-adapt.json "${model[@]}" > /dev/null
echo eval/results/cross-corpus-adapt.md

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
run rust-reference "$shared/rust-reference" eval/questions/rust-reference.json "${model[@]}"
run rustc-dev-guide "$shared/rustc-dev-guide" eval/questions/rustc-dev-guide.json "${model[@]}"
run black target/corpora/black-26.10.1/docs eval/questions/black.json "${model[@]}"
run flask target/corpora/flask-2.2.2/html eval/questions/flask.json "${model[@]}"
run borg target/corpora/borgbackup-1.2.4/html eval/questions/borg.json "${model[@]}"
run postfix target/corpora/postfix-3.7.11/html eval/questions/postfix.json "${model[@]}"
