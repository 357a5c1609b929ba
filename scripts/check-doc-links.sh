#!/usr/bin/env bash
# Every relative link between the project's markdown files must name a file that exists.
# The demo corpus and test fixtures are left out: their links are a site's absolute paths.
#   scripts/check-doc-links.sh      (exit status 1 and one line per broken link)
set -euo pipefail
cd "$(dirname "$0")/.."
broken=0
while IFS= read -r f; do
  dir=$(dirname "$f")
  while IFS= read -r link; do
    case $link in '' | http://* | https://* | mailto:* | /*) continue ;; esac
    if [ ! -e "$dir/$link" ]; then
      echo "$f: broken link $link"
      broken=1
    fi
  done < <(grep -o '](\([^)]*\))' "$f" | sed 's/^](//; s/)$//; s/#.*//; s/ .*//' || true)
done < <({ git ls-files '*.md'; git ls-files --others --exclude-standard '*.md'; } | grep -v '^corpus/\|^tests/e2e/fixtures/' | sort -u)
exit "$broken"
