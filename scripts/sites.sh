#!/usr/bin/env bash
# Builds real generators' HTML from corpora the project reads as markdown, so the HTML reader is
# tested (and evaluated) on what generators actually serve.
#
#   scripts/sites.sh          all three sites, then the HTML reader's site test (opt-in: compiling
#                             mdBook takes minutes; the markdown-vs-HTML eval needs it)
#   scripts/sites.sh sphinx   only the Sphinx site: scripts/setup.sh runs this, for the e2e test
#                             of a generator's site in Chromium (tests/e2e/generator.test.mjs)
#
#   target/sites/rust-reference/    mdBook over ../shared/corpora/rust-reference
#   target/sites/rustc-dev-guide/   mdBook over ../shared/corpora/rustc-dev-guide
#   target/sites/black/             Sphinx + MyST over the Black 26.10.1 docs (target/corpora)
#
# - mdBook comes from crates.io (`cargo install mdbook`, pinned, into target/tools). The books'
#   own book.toml and preprocessors (mdbook-spec, mdbook-toc) are not part of the copied
#   sources: a minimal book.toml is written under target/sites/build, pointing at the corpus
#   (create-missing = false, so nothing is ever written into ../shared). Without mdbook-spec the
#   pages keep `r[rule.id]` lines, `[!NOTE]` markers and `{{ grammar-summary }}`; the HTML
#   reader drops or renders them (onrecord-sources' markup.rs).
# - Sphinx comes from PyPI, pinned in scripts/sites-requirements.txt, in a venv under
#   target/sites/venv. The docs are copied first (their conf.py writes _static/pypi.svg).
#   Override: `-D extensions=…` without sphinx.ext.intersphinx, which would fetch
#   docs.python.org at build time (no network is needed or used).
#
# Each site is rebuilt only when its sources or tools change (a stamp of their hashes).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
only=${1:-all}
case $only in
  all | sphinx) ;;
  *) echo "usage: scripts/sites.sh [sphinx]" >&2; exit 2 ;;
esac
export PATH="$HOME/.cargo/bin:$PATH"

MDBOOK_VERSION=0.5.4
shared=../shared/corpora
black=target/corpora/black-26.10.1
tools=target/tools
sites=target/sites

say() { printf 'sites: %s\n' "$*"; }

# A stamp of everything a site is built from: tool version, config and every source file.
stamp() { # tool-version config-text dir...
  local version=$1 config=$2
  shift 2
  { echo "$version"; echo "$config"; find "$@" -type f -print0 | sort -z | xargs -0 sha256sum; } |
    sha256sum | cut -d' ' -f1
}

fresh() { # out key
  [ -f "$1/.onrecord-stamp" ] && [ "$(cat "$1/.onrecord-stamp")" = "$2" ]
}

# 1. mdBook.
mdbook=$tools/bin/mdbook
mdbook_site() { # name title
  local name=$1 title=$2 src
  src=$(cd "$shared/$name" && pwd)
  local out=$sites/$name build=$sites/build/$name
  local config="[book]
title = \"$title\"
src = \"$src\"

[build]
build-dir = \"$root/$out\"
create-missing = false"
  local key
  key=$(stamp "mdbook $MDBOOK_VERSION" "$config" "$src")
  if fresh "$out" "$key"; then
    say "$out is up to date"
    return
  fi
  say "building $out (mdBook $MDBOOK_VERSION)"
  rm -rf "$out" "$build"
  mkdir -p "$build"
  printf '%s\n' "$config" > "$build/book.toml"
  # mdBook reports the rustc-dev-guide's two includes of files the copy leaves out; the pages
  # keep the `{{#include}}` text, which the HTML reader drops with a warning.
  (cd "$build" && "$root/$mdbook" build 2>&1 | grep -v 'WARN footnote' || true)
  [ -f "$out/index.html" ] || { say "mdBook wrote no $out/index.html" >&2; exit 1; }
  echo "$key" > "$out/.onrecord-stamp"
}

if [ "$only" = all ]; then
  if ! "$mdbook" --version 2>/dev/null | grep -q "v$MDBOOK_VERSION\$"; then
    say "installing mdbook $MDBOOK_VERSION from crates.io into $tools"
    cargo install --quiet --locked --no-default-features mdbook --version "=$MDBOOK_VERSION" --root "$tools"
  fi
  mdbook_site rust-reference "The Rust Reference"
  mdbook_site rustc-dev-guide "Rust Compiler Development Guide"
fi

# 2. Sphinx over the Black docs.
[ -d "$black/docs" ] || { say "$black/docs is missing: run scripts/setup.sh first" >&2; exit 1; }
venv=$sites/venv
if ! cmp -s scripts/sites-requirements.txt "$venv/.installed-requirements.txt" 2>/dev/null; then
  say "installing Sphinx and extensions from PyPI into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/sites-requirements.txt
  cp scripts/sites-requirements.txt "$venv/.installed-requirements.txt"
fi
out=$sites/black
extensions=sphinx.ext.autodoc,sphinx.ext.napoleon,myst_parser,sphinxcontrib.programoutput,sphinx_copybutton
key=$(stamp "$(cat scripts/sites-requirements.txt)" "$extensions" "$black/docs" "$black/CHANGES.md" "$black/AUTHORS.md" "$black/LICENSE")
if fresh "$out" "$key"; then
  say "$out is up to date"
else
  say "building $out (Sphinx)"
  rm -rf "$out" "$sites/build/black"
  mkdir -p "$sites/build/black"
  cp -r "$black/docs" "$black/CHANGES.md" "$black/AUTHORS.md" "$black/LICENSE" "$sites/build/black/"
  # blackd (from black[d] in the venv) is what {program-output} runs.
  PATH="$root/$venv/bin:$PATH" "$venv/bin/sphinx-build" -q -b html -D "extensions=$extensions" \
    -d "$sites/build/black/doctrees" "$sites/build/black/docs" "$out"
  echo "$key" > "$out/.onrecord-stamp"
fi
[ "$only" = sphinx ] && { say "ready: $sites/black"; exit 0; }
say "ready: $sites/rust-reference $sites/rustc-dev-guide $sites/black"

# The HTML reader over what the generators built.
cargo test --quiet -p build-index --features sites --test sites
