//! The `onrecord` binary end to end: build → check → ask → serve, and clear errors.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::{fs, str};

use sha2::{Digest, Sha256};

/// Runs `onrecord` with an empty cache folder, so no teacher model cached on this machine makes
/// a build that these tests expect lexical use vectors.
fn onrecord(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_onrecord"))
        .args(args)
        .env(
            "ONRECORD_CACHE",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-onrecord-cache"),
        )
        .output()
        .expect("onrecord runs")
}

fn text(bytes: &[u8]) -> &str {
    str::from_utf8(bytes).expect("UTF-8 output")
}

fn demo_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

/// The demo corpus built once per run (lexical), shared by the tests that only read it; it lives
/// in Cargo's scratch folder for integration tests, since a static is never dropped.
fn built() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("onrecord-cli-demo/onrecord");
        let _ = fs::remove_dir_all(&out);
        let run = onrecord(&[
            "build",
            demo_corpus().to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(run.status.success(), "{}", text(&run.stderr));
        let stdout = text(&run.stdout);
        assert!(stdout.contains("lexical build"), "{stdout}");
        assert!(stdout.contains("onrecord.js"), "{stdout}");
        out
    })
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

fn file_named(dir: &Path, prefix: &str, suffix: &str) -> PathBuf {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_name().unwrap().to_str().unwrap();
            name.starts_with(prefix) && name.ends_with(suffix)
        })
        .unwrap_or_else(|| panic!("no {prefix}*{suffix} in {}", dir.display()))
}

#[test]
fn a_lexical_build_checks_and_answers() {
    let dir = built();
    let check = onrecord(&["check", dir.to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert!(
        text(&check.stdout).contains("lexical (no vectors)"),
        "{}",
        text(&check.stdout)
    );
    let version = format!("format version {}", onrecord_core::FORMAT_VERSION);
    assert!(
        text(&check.stdout).contains(&version),
        "{}",
        text(&check.stdout)
    );
    // The lexical loader names no query model.
    let loader = fs::read_to_string(dir.join("onrecord.js")).unwrap();
    assert!(loader.contains("model:null"), "{loader}");

    let answer = onrecord(&[
        "ask",
        dir.to_str().unwrap(),
        "How long does charging take with the fast charger?",
    ]);
    assert!(answer.status.success(), "{}", text(&answer.stderr));
    let out = text(&answer.stdout);
    assert!(out.starts_with("answer"), "{out}");
    assert!(
        out.contains("With the 4 A fast charger it takes about 3 hours."),
        "{out}"
    );
    assert!(
        out.contains("</faq/#how-long-does-a-full-charge-take>"),
        "{out}"
    );

    let decline = onrecord(&[
        "ask",
        dir.to_str().unwrap(),
        "How do I configure a kubernetes ingress controller?",
    ]);
    assert!(decline.status.success(), "{}", text(&decline.stderr));
    let out = text(&decline.stdout);
    assert!(out.starts_with("declined ("), "{out}");
    assert!(out.contains("kubernetes"), "{out}");
}

#[test]
fn ask_prints_json() {
    let run = onrecord(&[
        "ask",
        built().to_str().unwrap(),
        "How long does charging take with the fast charger?",
        "--json",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(json["mode"], "answer");
    assert_eq!(json["decline"], serde_json::Value::Null);
    let quote = &json["quotes"][0];
    assert!(
        quote["text"].as_str().unwrap().contains("4 A fast charger"),
        "{json}"
    );
    assert!(
        !quote["citation"]["url"].as_str().unwrap().is_empty(),
        "{json}"
    );
}

#[test]
fn check_fails_on_a_changed_file() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("onrecord");
    copy_dir(built(), &dir);
    let module = file_named(&dir, "onrecord-panel.", ".js");
    let mut bytes = fs::read(&module).unwrap();
    bytes.extend_from_slice(b"\n//tampered");
    fs::write(&module, bytes).unwrap();
    let run = onrecord(&["check", dir.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(
        err.contains("onrecord-panel.") && err.contains("does not match the hash"),
        "{err}"
    );
}

#[test]
fn check_fails_on_a_missing_file() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("onrecord");
    copy_dir(built(), &dir);
    fs::remove_file(file_named(&dir, "onrecord_wasm_bg.", ".wasm.gz")).unwrap();
    let run = onrecord(&["check", dir.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(
        err.contains("onrecord_wasm_bg.") && err.contains("missing"),
        "{err}"
    );
}

#[test]
fn check_verifies_the_index_checksum_not_only_its_name() {
    // A corrupt index under its own correct hash, named by the loader: only the checksum sees it.
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("onrecord");
    copy_dir(built(), &dir);
    let index = file_named(&dir, "index.", ".onr");
    let mut bytes = fs::read(&index).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    let digest = onrecord_core::hex(&Sha256::digest(&bytes));
    let new_name = format!("index.{}.onr", &digest[..10]);
    fs::remove_file(&index).unwrap();
    fs::write(dir.join(&new_name), &bytes).unwrap();
    let loader = fs::read_to_string(dir.join("onrecord.js")).unwrap();
    let old_name = index.file_name().unwrap().to_str().unwrap();
    fs::write(dir.join("onrecord.js"), loader.replace(old_name, &new_name)).unwrap();
    let run = onrecord(&["check", dir.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(err.contains(&new_name), "{err}");
}

#[test]
fn bad_input_names_the_file_and_line() {
    let corpus = tempfile::tempdir().unwrap();
    fs::write(corpus.path().join("good.md"), "# Good\n\nA fine page.\n").unwrap();
    fs::write(
        corpus.path().join("bad.md"),
        "---\ntitle: Bad\ndraft: maybe\n---\n# Bad\n\nText.\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let run = onrecord(&[
        "build",
        corpus.path().to_str().unwrap(),
        "--out",
        out.path().join("site").to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(err.contains("bad.md:3:"), "{err}");
    assert!(
        !out.path().join("site").exists(),
        "nothing written on error"
    );

    let missing = onrecord(&["build", "/no/such/folder", "--out", "x"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("/no/such/folder"));

    let not_deployed = onrecord(&["check", corpus.path().to_str().unwrap()]);
    assert_eq!(not_deployed.status.code(), Some(1));
    assert!(text(&not_deployed.stderr).contains("onrecord.js"));

    let usage = onrecord(&["build", corpus.path().to_str().unwrap()]);
    assert_eq!(usage.status.code(), Some(2), "a usage error");
    assert!(text(&usage.stderr).contains("--out"));

    let half = onrecord(&["build", ".", "--out", "x", "--teacher", "t"]);
    assert_eq!(half.status.code(), Some(2));
    assert!(text(&half.stderr).contains("--model-dir"));
}

/// `onrecord ask` reads a `build-index --shards` folder (gzip-compressed manifest and shards)
/// and answers as the one-file index does; a missing or damaged shard is named.
#[test]
fn ask_reads_a_sharded_index_as_the_one_file_index() {
    use build_index::{Layout, Options, build, write_layout};
    use onrecord_core::ShardSizes;
    let built = build(&demo_corpus(), &Options::standard()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("single");
    let sharded = dir.path().join("sharded");
    write_layout(&single, &built, Layout::Single, ShardSizes::STANDARD).unwrap();
    let small = ShardSizes {
        postings: 1024,
        text: 2048,
        threshold: 0,
    };
    let written = write_layout(&sharded, &built, Layout::Sharded, small).unwrap();
    assert!(written.len() > 10, "{}", written.len());
    let manifest = sharded.join("manifest.onr");
    for question in [
        "How many days do I have to return a bike?",
        "What does delivery cost in zone 2?",
        "What is the capital of France?",
    ] {
        let whole = onrecord(&["ask", single.to_str().unwrap(), question, "--json"]);
        assert!(whole.status.success(), "{}", text(&whole.stderr));
        for path in [&sharded, &manifest] {
            let run = onrecord(&["ask", path.to_str().unwrap(), question, "--json"]);
            assert!(run.status.success(), "{}", text(&run.stderr));
            assert_eq!(text(&run.stdout), text(&whole.stdout), "{question}");
        }
    }
    // A shard that is missing, or cut off, is named.
    let shard = written.last().unwrap();
    let name = shard.file_name().unwrap().to_str().unwrap().to_owned();
    let bytes = fs::read(shard).unwrap();
    fs::write(shard, &bytes[..bytes.len() / 2]).unwrap();
    let run = onrecord(&["ask", sharded.to_str().unwrap(), "Anything?"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(text(&run.stderr).contains(&name), "{}", text(&run.stderr));
    fs::remove_file(shard).unwrap();
    let run = onrecord(&["ask", sharded.to_str().unwrap(), "Anything?"]);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(err.contains(&name) && err.contains("not in"), "{err}");
}

#[test]
fn a_sharded_build_checks_and_answers_and_names_a_bad_shard() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("onrecord");
    let run = onrecord(&[
        "build",
        demo_corpus().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--shards",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(
        text(&run.stdout).contains("shards"),
        "{}",
        text(&run.stdout)
    );
    let shards: Vec<PathBuf> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "onr"))
        .filter(|p| {
            !p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("index.")
        })
        .collect();
    assert!(shards.len() >= 2, "{shards:?}");
    // The loader names the manifest, gzip-compressed as every sharded file is.
    let index = fs::read(file_named(&out, "index.", ".onr")).unwrap();
    assert!(index.starts_with(&[0x1f, 0x8b]), "not gzip");
    let index = onrecord_files::gunzip_if_gzipped(index).unwrap();
    assert!(index.starts_with(b"ONRMANIF"), "not the manifest");

    let check = onrecord(&["check", out.to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check.stderr));
    let version = format!("format version {}", onrecord_core::SHARD_FORMAT_VERSION);
    assert!(
        text(&check.stdout).contains(&version),
        "{}",
        text(&check.stdout)
    );
    let answer = onrecord(&[
        "ask",
        out.to_str().unwrap(),
        "How long does charging take with the fast charger?",
    ]);
    assert!(answer.status.success(), "{}", text(&answer.stderr));
    assert!(
        text(&answer.stdout).contains("With the 4 A fast charger it takes about 3 hours."),
        "{}",
        text(&answer.stdout)
    );
    // A shard cut short is named by `check`.
    let bytes = fs::read(&shards[0]).unwrap();
    fs::write(&shards[0], &bytes[..bytes.len() / 2]).unwrap();
    let check = onrecord(&["check", out.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(1));
    let err = text(&check.stderr);
    let name = shards[0].file_name().unwrap().to_str().unwrap();
    assert!(err.contains(name), "{err}");
}

#[test]
fn every_subcommand_has_help() {
    for sub in ["build", "ask", "check", "serve"] {
        let run = onrecord(&[sub, "--help"]);
        assert!(run.status.success(), "{sub}");
        assert!(text(&run.stdout).contains("Usage: onrecord"), "{sub}");
    }
}

fn get(addr: &str, path: &str) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    (
        text(&response[..split]).to_string(),
        response[split + 4..].to_vec(),
    )
}

#[test]
fn serve_sends_the_readme_headers() {
    let dir = built();
    let mut child = Command::new(env!("CARGO_BIN_EXE_onrecord"))
        .args(["serve", dir.to_str().unwrap(), "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();

    let (head, body) = get(&addr, "/onrecord.js");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("Cache-Control: no-cache"), "{head}");
    assert!(head.contains("Content-Type: text/javascript"), "{head}");
    assert_eq!(body, fs::read(dir.join("onrecord.js")).unwrap());

    let wasm = file_named(dir, "onrecord_wasm_bg.", ".wasm.gz");
    let (head, body) = get(
        &addr,
        &format!("/{}", wasm.file_name().unwrap().to_str().unwrap()),
    );
    // The wasm ships gzip-compressed and is served as the file it is: the worker gunzips it.
    assert!(head.contains("Content-Type: application/gzip"), "{head}");
    assert!(!head.contains("Content-Encoding"), "{head}");
    assert!(
        head.contains("Cache-Control: public, max-age=31536000, immutable"),
        "{head}"
    );
    assert_eq!(body, fs::read(&wasm).unwrap());

    let (head, _) = get(&addr, "/../../etc/passwd");
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A build with the teacher that `scripts/setup.sh` fetches into `target/models/`.
fn with_vectors(out: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let teacher = root.join("target/models/all-minilm-l6-v2");
    assert!(
        teacher.join("model.safetensors").is_file(),
        "{} is missing: run scripts/setup.sh",
        teacher.display()
    );
    let run = onrecord(&[
        "build",
        root.join("tests/e2e/fixtures/corpus").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--teacher",
        teacher.to_str().unwrap(),
        "--model-dir",
        root.join("build-index/model").to_str().unwrap(),
        "--no-embed-cache",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(
        !text(&run.stdout).contains("lexical build"),
        "{}",
        text(&run.stdout)
    );
}

#[test]
fn a_build_with_the_teacher_adds_vectors_and_the_query_model() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("onrecord");
    with_vectors(&dir);
    let model = file_named(&dir, "query-model.", ".onq");
    let loader = fs::read_to_string(dir.join("onrecord.js")).unwrap();
    assert!(
        loader.contains(model.file_name().unwrap().to_str().unwrap()),
        "{loader}"
    );
    let check = onrecord(&["check", dir.to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check.stderr));
    let out = text(&check.stdout);
    assert!(
        out.contains("with vectors") && out.contains("fits the index"),
        "{out}"
    );
    // The query model ships gzip-compressed, as the index files do: the worker gunzips it.
    let model_bytes = fs::read(&model).unwrap();
    assert_eq!(model_bytes[..2], [0x1f, 0x8b], "the query model is gzip");
    // A plain query model (as written before compression) still reads: `ask` uses it.
    let plain = scratch.path().join("plain");
    fs::create_dir(&plain).unwrap();
    fs::copy(file_named(&dir, "index.", ".onr"), plain.join("index.onr")).unwrap();
    fs::write(
        plain.join("query-model.onq"),
        onrecord_files::gunzip_if_gzipped(model_bytes).unwrap(),
    )
    .unwrap();
    let run = onrecord(&[
        "ask",
        plain.to_str().unwrap(),
        "When does the first ferry leave on weekdays?",
        "--json",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(
        text(&run.stdout).contains("\"matchedByMeaning\": true"),
        "{}",
        text(&run.stdout)
    );
    // A German question is matched by its words alone (the query model's teacher is English).
    let run = onrecord(&[
        "ask",
        plain.to_str().unwrap(),
        "Wann fährt die erste Fähre an Werktagen?",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(
        text(&run.stdout).contains("[matched by words only]"),
        "{}",
        text(&run.stdout)
    );

    // The same query model beside a lexical index does not fit it: check says so.
    let lexical = scratch.path().join("lexical");
    copy_dir(built(), &lexical);
    let name = model.file_name().unwrap().to_str().unwrap();
    fs::copy(&model, lexical.join(name)).unwrap();
    let loader = fs::read_to_string(lexical.join("onrecord.js")).unwrap();
    fs::write(
        lexical.join("onrecord.js"),
        loader.replace("model:null", &format!("model:\"{name}\"")),
    )
    .unwrap();
    let run = onrecord(&["check", lexical.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        text(&run.stderr).contains("does not fit"),
        "{}",
        text(&run.stderr)
    );
}

/// `onrecord` run in `dir`, with an empty cache folder.
fn onrecord_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_onrecord"))
        .args(args)
        .current_dir(dir)
        .env(
            "ONRECORD_CACHE",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-onrecord-cache"),
        )
        .output()
        .expect("onrecord runs")
}

/// `onrecord init` finds the built site beside the markdown, writes onrecord.toml, and a bare
/// `onrecord build` follows it; a flag overrides a key; a mistake names the line and the key.
#[test]
fn init_writes_the_settings_a_bare_build_follows() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("public");
    fs::create_dir_all(site.join("guide")).unwrap();
    let page = |title: &str| {
        format!(
            "<html lang=\"en\"><head><title>{title}</title></head><body><main><h1>{title}</h1><p>The {title} page says the pump runs at four bar.</p></main></body></html>"
        )
    };
    fs::write(site.join("index.html"), page("Home")).unwrap();
    fs::write(site.join("guide/index.html"), page("Guide")).unwrap();
    fs::create_dir_all(dir.path().join("content")).unwrap();
    fs::write(dir.path().join("content/home.md"), "# Home\n\nText.\n").unwrap();

    let init = onrecord_in(dir.path(), &["init"]);
    assert!(init.status.success(), "{}", text(&init.stderr));
    let settings = fs::read_to_string(dir.path().join("onrecord.toml")).unwrap();
    assert!(settings.contains("input = \"public\""), "{settings}");
    assert!(settings.contains("out = \"public/onrecord\""), "{settings}");
    let again = onrecord_in(dir.path(), &["init"]);
    assert_eq!(again.status.code(), Some(1), "never written over");

    let build = onrecord_in(dir.path(), &["build"]);
    assert!(build.status.success(), "{}", text(&build.stderr));
    assert!(site.join("onrecord/onrecord.js").is_file());
    assert!(text(&build.stdout).contains("lexical build"));
    // Not a terminal: one plain line per stage on stderr.
    assert!(
        text(&build.stderr).contains("reading: "),
        "{}",
        text(&build.stderr)
    );

    let quiet = onrecord_in(dir.path(), &["build", "--out", "elsewhere", "--quiet"]);
    assert!(quiet.status.success(), "{}", text(&quiet.stderr));
    assert!(
        dir.path().join("elsewhere/onrecord.js").is_file(),
        "the flag wins"
    );
    assert_eq!(text(&quiet.stdout), "");
    assert_eq!(text(&quiet.stderr), "");

    fs::write(
        dir.path().join("onrecord.toml"),
        "input = \"public\"\nshard = true\n",
    )
    .unwrap();
    let bad = onrecord_in(dir.path(), &["build"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("onrecord.toml:2: `shard = true`: unknown field `shard`"),
        "{}",
        text(&bad.stderr)
    );
}

/// Collections move into onrecord.toml: `init` carries them over, and the old onrecord.yml
/// alone still works with a deprecation note; both at once build when they agree, else fail.
#[test]
fn collections_move_from_onrecord_yml_into_the_settings() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    fs::create_dir_all(docs.join("adr")).unwrap();
    fs::write(docs.join("adr/one.md"), "# One\n\nWe chose one motor.\n").unwrap();
    fs::write(docs.join("guide.md"), "# Guide\n\nHow it works.\n").unwrap();
    fs::write(
        docs.join("onrecord.yml"),
        "collections:\n  decisions:\n    folders: [adr/]\n    cap: 1\n",
    )
    .unwrap();

    let old = onrecord_in(dir.path(), &["build", "docs", "--out", "a"]);
    assert!(old.status.success(), "{}", text(&old.stderr));
    assert!(
        text(&old.stderr).contains("onrecord.yml is deprecated"),
        "{}",
        text(&old.stderr)
    );
    assert!(
        text(&old.stdout).contains("collections       1 (decisions: 1)"),
        "{}",
        text(&old.stdout)
    );

    let init = onrecord_in(dir.path(), &["init"]);
    assert!(init.status.success(), "{}", text(&init.stderr));
    let settings = fs::read_to_string(dir.path().join("onrecord.toml")).unwrap();
    assert!(
        settings.contains("[collections.decisions]\nfolders = [\"adr/\"]\ncap = 1\n"),
        "{settings}"
    );
    // As init leaves them, the same collections in both build, with a note to delete the old.
    let same = onrecord_in(dir.path(), &["build"]);
    assert!(same.status.success(), "{}", text(&same.stderr));
    let said = format!("{}{}", text(&same.stdout), text(&same.stderr));
    assert!(said.contains("repeats the collections"), "{said}");
    // Different ones leave it unsaid which holds: an error.
    fs::write(
        docs.join("onrecord.yml"),
        "collections:\n  decisions:\n    folders: [adr/]\n    cap: 2\n",
    )
    .unwrap();
    let both = onrecord_in(dir.path(), &["build"]);
    assert_eq!(both.status.code(), Some(1));
    assert!(
        text(&both.stderr).contains("keep one"),
        "{}",
        text(&both.stderr)
    );

    fs::remove_file(docs.join("onrecord.yml")).unwrap();
    let new = onrecord_in(dir.path(), &["build"]);
    assert!(new.status.success(), "{}", text(&new.stderr));
    assert!(!text(&new.stderr).contains("deprecated"));
    assert!(
        text(&new.stdout).contains("collections       1 (decisions: 1)"),
        "{}",
        text(&new.stdout)
    );
}
