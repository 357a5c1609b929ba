#!/usr/bin/env bash
# What a visitor's first answer downloads at two sizes, our widget against Pagefind in the same run
# (issue 11's budgets): the three shared corpora together (rust-reference, rustc-dev-guide and the
# Express docs, ~5k fragments, with vectors) and the same pages copied under copyNN/ folders to
# ~100k fragments. Each question is asked in a fresh headless Chromium context over
# scripts/serve.mjs, which does not compress; bytes are split into the widget (wasm, JS, CSS), the
# index files and the lazy query model, with median and p95 over the questions, and the warm
# latency of a second question in the same context (tests/e2e/bench-scale.mjs).
# A benchmark, not a test: scripts/test.sh does not run it. eval/notes/2026-12-01-sharded-index.md has its table.
#
#   scripts/bench-scale.sh [--single] [--questions N]
#
#   (default)      the indexes as build-index writes them: at these sizes a manifest and shards;
#                  every file of the index folder is counted as index bytes
#   --single       one index.onr whatever the size (`build-index --single`), the widget's only
#                  layout before it read shards
#   --questions N  answerable questions, N/3 from each corpus's eval set (default 24)
#
# Everything is cached under target/bench-scale, keyed by its inputs (the build-index binary,
# teacher and query model, pages, layout): a second run rebuilds nothing and takes the browser
# time only. The teacher is the one scripts/setup.sh fetches; Pagefind comes from npm, pinned,
# into target/tools/pagefind (as in scripts/bench-build.sh). Pagefind indexes the same markdown
# rendered to plain HTML pages with markdown-it-py (from the Sphinx venv scripts/setup.sh makes):
# mdBook would take minutes to compile and does not render the Express MDX pages.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
PAGEFIND_VERSION=1.6.0
TARGET_FRAGMENTS=100000
started=$(date +%s)
layout=auto
shards=()
questions=24
while [ $# -gt 0 ]; do
  case $1 in
    --single) layout=single; shards=(--single) ;;
    --questions) questions=${2:?--questions needs a number}; shift ;;
    *) echo "usage: scripts/bench-scale.sh [--single] [--questions N]" >&2; exit 2 ;;
  esac
  shift
done
work=target/bench-scale
teacher=target/models/all-minilm-l6-v2
model_dir=build-index/model
python=target/sites/venv/bin/python
shared=../shared/corpora
say() { printf 'bench-scale: %s\n' "$*" >&2; }
sha() { sha256sum | cut -c1-16; }

[ -f "$teacher/model.safetensors" ] || { say "$teacher is missing: run scripts/setup.sh"; exit 1; }
[ -x "$python" ] || { say "$python is missing: run scripts/setup.sh"; exit 1; }
[ -d "$shared/rust-reference" ] || { say "$shared is missing (in a worktree: ln -sfn /work/shared ../shared)"; exit 1; }
pagefind=target/tools/pagefind/node_modules/.bin/pagefind
if ! "$pagefind" --version 2>/dev/null | grep -qx "pagefind $PAGEFIND_VERSION"; then
  say "installing pagefind $PAGEFIND_VERSION from npm into target/tools/pagefind"
  mkdir -p target/tools/pagefind
  echo '{"private": true}' > target/tools/pagefind/package.json
  npm install --prefix target/tools/pagefind --no-audit --no-fund --save-exact --loglevel=error "pagefind@$PAGEFIND_VERSION"
fi
say "building build-index (release) and the wasm module"
nice -n 5 cargo build --quiet --release -p build-index --bin build-index
nice -n 5 scripts/build-wasm.sh > /dev/null
build_index=target/release/build-index
mkdir -p "$work"

# 1. The pages: the three corpora side by side, then copies of them to ~100k fragments.
sources=("$shared/rust-reference" "$shared/rustc-dev-guide" "$shared/express/astro-5x/src/content/docs/en/5x")
names=(rust-reference rustc-dev-guide express)
pages_key=$(find "${sources[@]}" -type f -print0 | sort -z | xargs -0 sha256sum | sed "s| $shared/| |" | sha)
fresh() { [ -f "$1/.key" ] && [ "$(cat "$1/.key")" = "$2" ]; }
if ! fresh "$work/pages/small" "$pages_key"; then
  rm -rf "$work/pages"
  mkdir -p "$work/pages/small"
  for i in 0 1 2; do cp -r "${sources[$i]}" "$work/pages/small/${names[$i]}"; done
  echo "$pages_key" > "$work/pages/small/.key"
fi

# 2. Indexes, with vectors (the embedding cache makes the copies' vectors lookups, not work).
tools_key=$({ sha256sum "$build_index" "$teacher"/* "$model_dir/query-model.onq" "$model_dir/doc-projection.bin"; echo "$layout"; } | sha)
build() { # pages-dir out-dir key
  if fresh "$2" "$3"; then
    say "reusing $2"
    return
  fi
  say "building $2 (build-index with vectors${shards:+, --single}); the first build embeds every fragment: minutes"
  rm -rf "$2"
  mkdir -p "$2"
  local t0=$(date +%s)
  nice -n 5 "$build_index" "$1" --out "$2" --teacher "$teacher" --model-dir "$model_dir" "${shards[@]}" > "$2.log" 2>&1 ||
    { say "build-index failed (see $2.log)"; tail -5 "$2.log" >&2; exit 1; }
  say "built $2 in $(( $(date +%s) - t0 )) s"
  echo "$3" > "$2/.key"
}
fragments() { sed -n 's/^fragments *\([0-9]*\).*/\1/p' "$1.log" | head -1; }
build "$work/pages/small" "$work/index/small-$layout" "$tools_key $pages_key"
small_fragments=$(fragments "$work/index/small-$layout")
[ -n "$small_fragments" ] || { say "no fragment count in $work/index/small-$layout.log"; exit 1; }
copies=$(( (TARGET_FRAGMENTS + small_fragments - 1) / small_fragments ))
if ! fresh "$work/pages/large" "$pages_key $copies"; then
  rm -rf "$work/pages/large"
  for n in $(seq -w 1 "$copies"); do
    mkdir -p "$work/pages/large/copy$n"
    cp -al "$work/pages/small/." "$work/pages/large/copy$n/"
    rm -f "$work/pages/large/copy$n/.key"
  done
  echo "$pages_key $copies" > "$work/pages/large/.key"
fi
build "$work/pages/large" "$work/index/large-$layout" "$tools_key $pages_key $copies"
large_fragments=$(fragments "$work/index/large-$layout")

# 3. The same pages as HTML, and Pagefind's index of them.
if ! fresh "$work/html/small" "$pages_key"; then
  say "rendering the markdown to HTML (markdown-it-py)"
  rm -rf "$work/html"
  "$python" - "$work/pages/small" "$work/html/small" <<'RENDER'
import html, os, re, sys
from markdown_it import MarkdownIt

src, dst = sys.argv[1:3]
md = MarkdownIt("commonmark", {"html": True}).enable("table")
for folder, _, files in os.walk(src):
    for name in files:
        if not name.endswith((".md", ".mdx")):
            continue
        path = os.path.join(folder, name)
        rel = os.path.relpath(path, src)
        text = open(path, encoding="utf-8", errors="replace").read()
        title = None
        front = re.match(r"---\n(.*?)\n---\n", text, re.S)
        if front:
            text = text[front.end():]
            found = re.search(r"^title:\s*(.+)$", front.group(1), re.M)
            title = found and found.group(1).strip("'\" ")
        if name.endswith(".mdx"):  # MDX imports are code, not text
            text = re.sub(r"^import .+ from .+$\n?", "", text, flags=re.M)
        if not title:
            found = re.search(r"^#\s+(.+)$", text, re.M)
            title = found.group(1) if found else rel
        out = os.path.join(dst, os.path.splitext(rel)[0] + ".html")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w", encoding="utf-8") as f:
            f.write(f'<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>{html.escape(title)}</title></head>\n'
                    f'<body>\n<main>\n{md.render(text)}</main>\n'
                    '<script type="module" src="/onrecord/onrecord.js"></script>\n</body>\n</html>\n')
RENDER
  echo "$pages_key" > "$work/html/small/.key"
fi
if ! fresh "$work/html/large" "$pages_key $copies"; then
  rm -rf "$work/html/large"
  for n in $(seq -w 1 "$copies"); do
    mkdir -p "$work/html/large/copy$n"
    cp -al "$work/html/small/." "$work/html/large/copy$n/"
    rm -f "$work/html/large/copy$n/.key"
  done
  echo "$pages_key $copies" > "$work/html/large/.key"
fi
pagefind_index() { # size
  local key
  key="$PAGEFIND_VERSION $(cat "$work/html/$1/.key")"
  if fresh "$work/pagefind/$1" "$key"; then return; fi
  say "indexing $work/html/$1 with Pagefind $PAGEFIND_VERSION"
  rm -rf "$work/pagefind/$1"
  mkdir -p "$work/pagefind"
  local t0=$(date +%s)
  "$pagefind" --site "$work/html/$1" --output-path "$work/pagefind/$1" > "$work/pagefind/$1.log" 2>&1 ||
    { say "pagefind failed (see $work/pagefind/$1.log)"; tail -5 "$work/pagefind/$1.log" >&2; exit 1; }
  say "Pagefind indexed $work/html/$1 in $(( $(date +%s) - t0 )) s"
  echo "$key" > "$work/pagefind/$1/.key"
}
pagefind_index small
pagefind_index large

# 4. One site per size: the pages, our widget folder (scripts/site.mjs: the loader and hashed
#    modules, wasm, query model, and the index as built: index.onr, or the manifest and every
#    shard beside it), Pagefind's folder, and the two pages the benchmark opens.
site() { # size
  local site=$work/site/$1 index=$work/index/$1-$layout main
  rm -rf "$site"
  mkdir -p "$site"
  ln -s "$(pwd)/$work/html/$1" "$site/pages"
  ln -s "$(pwd)/$work/pagefind/$1" "$site/pagefind"
  main=$index/index.onr
  [ -f "$main" ] || main=$index/manifest.onr
  node scripts/site.mjs --index "$main" --out "$site/onrecord" > "$site.log"
  for f in "$index"/*; do
    case $(basename "$f") in
      index.onr | manifest.onr | query-model.onq) ;;
      *) [ -e "$site/onrecord/$(basename "$f")" ] || cp -al "$f" "$site/onrecord/" ;;
    esac
  done
  cat > "$site/index.html" <<'HTML'
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>onrecord</title></head>
<body><main><h1>Docs</h1></main><script type="module" src="/onrecord/onrecord.js"></script></body></html>
HTML
  cat > "$site/pagefind.html" <<'HTML'
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pagefind</title>
<link href="/pagefind/pagefind-ui.css" rel="stylesheet"><script src="/pagefind/pagefind-ui.js"></script></head>
<body><main><h1>Docs</h1><div id="search"></div></main>
<script>window.addEventListener('DOMContentLoaded', () => new PagefindUI({ element: '#search' }));</script></body></html>
HTML
}
site small
site large

# 5. The questions: the first answerable ones of each corpus's eval set, taken in turn.
python3 - "$questions" "${names[@]}" > "$work/questions.json" <<'PICK'
import json, sys
n, names = int(sys.argv[1]), sys.argv[2:]
sets = [[q["question"] for q in json.load(open(f"eval/questions/{name}.json")) if q["type"] != "unanswerable"] for name in names]
picked = [s[i] for i in range(n) for s in sets][:n]
json.dump(picked, sys.stdout, indent=1)
PICK

# 6. The browser.
bytes() { find -L "$1" -type f ! -name .key -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
written() { # index dir → what the build wrote
  if [ -f "$1/manifest.onr" ]; then echo "manifest.onr and $(find "$1" -type f -name '*.onr' ! -name manifest.onr | wc -l) shards (at 100k)"; else echo "one index.onr"; fi
}
files() { find -L "$1" -type f ! -name .key ! -name query-model.onq | wc -l; }
small_label="3 corpora, $small_fragments fragments"
large_label="×$copies copies, $large_fragments fragments"
say "asking $questions questions in Chromium, each in a fresh context, on both sites"
node tests/e2e/bench-scale.mjs --questions "$work/questions.json" --out "$work/table.md" \
  --label "$small_label" --site "$work/site/small" --label "$large_label" --site "$work/site/large" > /dev/null
{
  echo "## bench-scale, $(date -u +%F), index layout: $(written "$work/index/large-$layout")"
  echo
  echo "\`scripts/bench-scale.sh${shards:+ --single} --questions $questions\` at $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)');" \
    "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Index folders: $small_label: $(files "$work/index/small-$layout") files, $(bytes "$work/index/small-$layout") bytes;" \
    "$large_label: $(files "$work/index/large-$layout") files, $(bytes "$work/index/large-$layout") bytes (query model included)."
  echo "Pagefind $PAGEFIND_VERSION (default UI) on the same pages as HTML: $(find "$work/html/small" -name '*.html' | wc -l) and $(find "$work/html/large" -name '*.html' | wc -l) pages, $(bytes "$work/pagefind/small") and $(bytes "$work/pagefind/large") bytes."
  echo
  cat "$work/table.md"
  echo
  echo "Script time: $(( $(date +%s) - started )) s."
} > target/bench-scale.md
cat target/bench-scale.md
