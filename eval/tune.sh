#!/usr/bin/env bash
# Chooses the answerer's thresholds on the DEV splits only: a grid over the coverage, support
# and meaning floors (in eval's --tune), scored by the mean balanced accuracy over the corpus and
# Express dev halves; ties go to the higher answered-correctly rate. The test halves are never
# read here. Prints the ten best grid points, best last.
#   eval/tune.sh [--teacher DIR --model-dir DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p eval
bin=target/release/eval
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" --corpus corpus --questions eval/questions/corpus.json --tune "$tmp/c.jsonl" "$@" > /dev/null
"$bin" --corpus ../shared/corpora/express/astro-5x/src/content/docs/en/5x \
  --questions eval/questions/express.json --tune "$tmp/x.jsonl" "$@" > /dev/null
python3 - "$tmp/c.jsonl" "$tmp/x.jsonl" <<'PY'
import json, sys
rows = [[json.loads(l) for l in open(p)] for p in sys.argv[1:]]
scored = []
for a, b in zip(*rows):
    key = (a["coverage_floor"], a["support_floor"], a["meaning_floor"])
    ba = (a["balanced_accuracy"] + b["balanced_accuracy"]) / 2
    correct = (a["answerable_correct"] + b["answerable_correct"]) / 2
    declined = (a["unanswerable_declined"] + b["unanswerable_declined"]) / 2
    scored.append((ba, correct, key, declined))
scored.sort()
for ba, correct, (cf, sf, mf), declined in scored[-10:]:
    print(f"dev mean BA {ba:.3f} (correct {correct:.3f}, declined {declined:.3f}): "
          f"coverage_floor {cf} support_floor {sf} meaning_floor {mf}")
PY
