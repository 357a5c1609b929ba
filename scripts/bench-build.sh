#!/usr/bin/env bash
# Side by side, in one run, on one folder: `onrecord build` (lexical; with vectors from a cold
# and from a warm embedding cache) against Pagefind's `pagefind --site`, over the mdBook HTML of
# the Rust Reference and the rustc-dev-guide (scripts/sites.sh builds it from ../shared/corpora).
# Build time (median of RUNS runs, except the cold vector build: one run, cache emptied first),
# output bytes (every file written, and the sum of each file gzipped -9), pages and fragments.
# A benchmark, not a test: scripts/test.sh does not run it. eval/notes/2026-12-01-markdown-against-built-sites.md has its table.
#
#   scripts/bench-build.sh [RUNS]       RUNS defaults to 3
#
# Pagefind comes from npm, pinned, into target/tools/pagefind (not committed). The onrecord
# binary is built here (cargo --release); the teacher model is the one scripts/setup.sh fetches.
set -euo pipefail
cd "$(dirname "$0")/.."
PAGEFIND_VERSION=1.6.0
runs=${1:-3}
work=target/bench-build
teacher=target/models/all-minilm-l6-v2
say() { printf 'bench-build: %s\n' "$*" >&2; }

[ -f "$teacher/model.safetensors" ] || { say "$teacher is missing: run scripts/setup.sh" >&2; exit 1; }
pagefind=target/tools/pagefind/node_modules/.bin/pagefind
if ! "$pagefind" --version 2>/dev/null | grep -qx "pagefind $PAGEFIND_VERSION"; then
  say "installing pagefind $PAGEFIND_VERSION from npm into target/tools/pagefind"
  mkdir -p target/tools/pagefind
  echo '{"private": true}' > target/tools/pagefind/package.json
  npm install --prefix target/tools/pagefind --no-audit --no-fund --save-exact --loglevel=error "pagefind@$PAGEFIND_VERSION"
fi
for book in rust-reference rustc-dev-guide; do
  [ -f "target/sites/$book/index.html" ] || scripts/sites.sh
done
cargo build --quiet --release -p onrecord-cli
onrecord=target/release/onrecord

# One site folder holding both books, as a site would serve them; every output goes beside it.
rm -rf "$work"
mkdir -p "$work/site" "$work/logs"
for book in rust-reference rustc-dev-guide; do
  cp -r "target/sites/$book" "$work/site/$book"
  rm -f "$work/site/$book/.onrecord-stamp"
done

seconds() { # log command... → wall-clock seconds of one run
  local log=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$@" > "$log" 2>&1 || { say "failed: $* (see $log)"; tail -5 "$log" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
gzipped() { # sum over files of gzip -9
  local total=0 f
  while IFS= read -r -d '' f; do total=$((total + $(gzip -9 -c "$f" | wc -c))); done < <(find "$1" -type f -print0)
  echo "$total"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)

lexical=() warm=() pf=()
vectors=(--teacher "$teacher" --model-dir build-index/model --embed-cache "$work/embed-cache")
for i in $(seq "$runs"); do
  say "run $i of $runs"
  rm -rf "$work/out/lexical" "$work/out/pagefind"
  lexical+=("$(seconds "$work/logs/lexical.log" "$onrecord" build "$work/site" --out "$work/out/lexical" --lexical)")
  pf+=("$(seconds "$work/logs/pagefind.log" "$pagefind" --site "$work/site" --output-path "$work/out/pagefind")")
  if [ "$i" = 1 ]; then
    rm -rf "$work/embed-cache" "$work/out/vectors-cold"
    cold=$(seconds "$work/logs/vectors-cold.log" "$onrecord" build "$work/site" --out "$work/out/vectors-cold" "${vectors[@]}")
  fi
  rm -rf "$work/out/vectors"
  warm+=("$(seconds "$work/logs/vectors-warm.log" "$onrecord" build "$work/site" --out "$work/out/vectors" "${vectors[@]}")")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

field() { sed -n "s/^$2 *\([0-9]*\).*/\1/p" "$1" | head -1; }
# A warm cache must not change what is written.
diff -r "$work/out/vectors-cold" "$work/out/vectors" > /dev/null || { say "cold and warm vector builds differ" >&2; exit 1; }
pf_pages=$(sed -n 's/.*Indexed \([0-9]*\) pages\?.*/\1/p' "$work/logs/pagefind.log" | head -1)
pf_words=$(sed -n 's/.*Indexed \([0-9]*\) words\?.*/\1/p' "$work/logs/pagefind.log" | head -1)
pf_fragments=$(find "$work/out/pagefind/fragment" -type f | wc -l)

row() { # name seconds out-dir pages fragments
  printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$(bytes "$3")" "$(gzipped "$3")" "$4" "$5"
}
echo
echo "Site: $(find "$work/site" -name '*.html' | wc -l) .html files, $(bytes "$work/site") bytes (mdBook $(target/tools/bin/mdbook --version | cut -d' ' -f2) output of rust-reference + rustc-dev-guide)"
echo "Machine: $(nproc) cores, load average $load_before before, $load_after after; $runs runs"
echo
echo '| build | time (s) | output bytes | gzip -9, per file | pages | fragments |'
echo '|---|---:|---:|---:|---:|---:|'
row "\`onrecord build\`, lexical (median)" "$(median "${lexical[@]}")" "$work/out/lexical" \
  "$(field "$work/logs/lexical.log" 'pages indexed')" "$(field "$work/logs/lexical.log" fragments)"
row "\`onrecord build\` with vectors, cold cache (1 run)" "$cold" "$work/out/vectors-cold" \
  "$(field "$work/logs/vectors-cold.log" 'pages indexed')" "$(field "$work/logs/vectors-cold.log" fragments)"
row "\`onrecord build\` with vectors, warm cache (median)" "$(median "${warm[@]}")" "$work/out/vectors" \
  "$(field "$work/logs/vectors-warm.log" 'pages indexed')" "$(field "$work/logs/vectors-warm.log" fragments)"
row "\`pagefind --site\` $PAGEFIND_VERSION (median)" "$(median "${pf[@]}")" "$work/out/pagefind" \
  "$pf_pages" "$pf_fragments ($pf_words words)"
echo
echo "Runs (s): lexical ${lexical[*]}; vectors warm ${warm[*]}; pagefind ${pf[*]}"
echo "Logs: $work/logs"
