#!/usr/bin/env bash
# Chooses, on the DEV splits only, (1) the fusion knobs of hybrid + rerank (eval's
# --tune-fusion: vector weight, rerank weight, RRF constant), scored by the mean MRR over the
# corpus and Express dev halves, and (2) the answerer's thresholds: a grid over the coverage,
# support and meaning floors (eval's --tune), scored by the mean balanced accuracy; ties go to
# the higher answered-correctly rate. The test halves are never read here. Prints the best grid
# points, best last; the chosen values are set by hand as Fusion::SHIPPED and
# AnswerConfig::DEFAULT (set the fusion first, then rerun for the thresholds).
#   eval/tune.sh [--teacher DIR --model-dir DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p eval
bin=target/release/eval
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
express=../shared/corpora/express/astro-5x/src/content/docs/en/5x
"$bin" --corpus corpus --questions eval/questions/corpus.json --tune-fusion "$tmp/fc.jsonl" "$@" > /dev/null
"$bin" --corpus "$express" --questions eval/questions/express.json --tune-fusion "$tmp/fx.jsonl" "$@" > /dev/null
python3 - "$tmp/fc.jsonl" "$tmp/fx.jsonl" <<'PY'
import json, sys
rows = [[json.loads(l) for l in open(p)] for p in sys.argv[1:]]
scored = sorted(((a["mrr"] + b["mrr"]) / 2, (a["recall@5"] + b["recall@5"]) / 2,
                 a["vector_weight"], a["rerank_weight"], a["rrf_c"]) for a, b in zip(*rows))
for mrr, r5, vw, rw, c in scored[-5:]:
    print(f"fusion: dev mean MRR {mrr:.3f} (recall@5 {r5:.3f}): vector_weight {vw} rerank_weight {rw} rrf_c {c}")
PY
"$bin" --corpus corpus --questions eval/questions/corpus.json --tune "$tmp/c.jsonl" "$@" > /dev/null
"$bin" --corpus "$express" --questions eval/questions/express.json --tune "$tmp/x.jsonl" "$@" > /dev/null
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
    print(f"thresholds: dev mean BA {ba:.3f} (correct {correct:.3f}, declined {declined:.3f}): "
          f"coverage_floor {cf} support_floor {sf} meaning_floor {mf}")
PY
