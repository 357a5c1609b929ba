//! The `build-index` command on bad input: clear errors naming file and line, nothing written.

use std::fs;
use std::path::Path;
use std::process::Command;

/// A fresh scratch folder under the system temp dir, removed when the value drops (pass or fail).
fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("onrecord-cli-")
        .tempdir()
        .unwrap()
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// Runs the command; returns (success, stdout, stderr).
fn run(corpus: &Path, out: &Path) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_build-index"))
        .arg(corpus)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A corpus with one good page, plus `rel` holding `bytes`: its failed build's stderr.
fn failing_build(rel: &str, bytes: &[u8]) -> String {
    let tmp = scratch();
    let dir = tmp.path();
    let corpus = dir.join("corpus");
    let out = dir.join("out");
    write(&corpus, "good.md", b"---\ntitle: Good\n---\nA good page.\n");
    write(&corpus, rel, bytes);
    // An index from an earlier build must survive a failed build untouched.
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("index.onr"), b"earlier").unwrap();
    let (ok, _, stderr) = run(&corpus, &out);
    assert!(!ok, "the build should fail: {stderr}");
    assert_eq!(fs::read(out.join("index.onr")).unwrap(), b"earlier");
    assert_eq!(
        fs::read_dir(&out).unwrap().count(),
        1,
        "no temporary file is left behind"
    );
    stderr
}

#[test]
fn writes_the_index_and_a_report() {
    let tmp = scratch();
    let dir = tmp.path();
    write(&dir.join("c"), "a.md", b"# Alpha\n\nSome text.\n");
    let (ok, stdout, stderr) = run(&dir.join("c"), &dir.join("out"));
    assert!(ok, "{stderr}");
    assert!(stdout.contains("pages indexed     1"), "{stdout}");
    let bytes = fs::read(dir.join("out/index.onr")).unwrap();
    assert!(
        stdout.contains(&format!("index             {} bytes", bytes.len())),
        "{stdout}"
    );
}

#[test]
fn invalid_utf8_names_the_file_and_line() {
    let stderr = failing_build("docs/bad.md", b"# Title\n\nline two\nbad \xff byte\n");
    assert!(stderr.contains("docs/bad.md:4: invalid UTF-8"), "{stderr}");
}

#[test]
fn broken_frontmatter_names_the_file_and_line() {
    let stderr = failing_build("bad.md", b"---\ntitle: T\nthemes: [a, b\n---\nbody\n");
    assert!(stderr.contains("bad.md:"), "{stderr}");
    assert!(stderr.contains("broken frontmatter"), "{stderr}");
    let stderr = failing_build("open.md", b"---\ntitle: T\n\nbody\n");
    assert!(
        stderr.contains("open.md:1: frontmatter opened with '---' is never closed"),
        "{stderr}"
    );
}

#[test]
fn an_unknown_language_is_an_error() {
    let stderr = failing_build("x.md", b"---\nlang: tlh\n---\nbody\n");
    assert!(stderr.contains("x.md: unsupported lang 'tlh'"), "{stderr}");
}

#[test]
fn superseded_by_must_name_a_public_page() {
    let stderr = failing_build("old.md", b"---\nsuperseded_by: new.md\n---\nbody\n");
    assert!(
        stderr.contains("old.md: superseded_by names 'new.md', which is not a public page"),
        "{stderr}"
    );
}

#[test]
fn a_missing_corpus_is_a_clear_error() {
    let tmp = scratch();
    let dir = tmp.path();
    let (ok, _, stderr) = run(&dir.join("nope"), &dir.join("out"));
    assert!(!ok);
    assert!(stderr.contains("does not exist"), "{stderr}");
    assert!(!dir.join("out").exists());
}

#[test]
fn a_broken_collections_file_names_the_file_and_line() {
    let stderr = failing_build("onrecord.yml", b"collections:\n  decisions:\n    cap: 0\n");
    assert!(
        stderr.contains("onrecord.yml:2: collection 'decisions': cap must be at least 1"),
        "{stderr}"
    );
    let stderr = failing_build(
        "onrecord.yml",
        b"collections:\n  guides:\n    folder: [docs/]\n",
    );
    assert!(stderr.contains("onrecord.yml:3: "), "{stderr}");
    let stderr = failing_build("p.md", b"---\ncollection: how to\n---\nbody\n");
    assert!(stderr.contains("p.md: collection 'how to'"), "{stderr}");
}

/// Folder rules assign collections, a page's own frontmatter wins, names are case-folded, and
/// the release-notes collection is release notes (set aside unless a question asks about changes).
#[test]
fn collections_come_from_folder_rules_and_frontmatter() {
    let tmp = scratch();
    let dir = tmp.path();
    let corpus = dir.join("c");
    write(
        &corpus,
        "onrecord.yml",
        b"collections:\n  decisions:\n    folders: [adr/]\n    cap: 1\n    label: Why we chose\n  release-notes:\n    folders: [changes]\n",
    );
    write(&corpus, "adr/one.md", b"# One\n\nWe chose one motor.\n");
    write(
        &corpus,
        "adr/guide.md",
        b"---\ncollection: Guides\n---\n# Guide\n\nHow it works.\n",
    );
    write(&corpus, "changes/v1.md", b"# 1.0\n\nFirst release.\n");
    write(&corpus, "plain.md", b"# Plain\n\nNo collection.\n");
    let built = build_index::build(&corpus, &build_index::Options::standard()).unwrap();
    let index = &built.index;
    let of = |path: &str| {
        let doc = index.docs.iter().find(|d| d.path == path).unwrap();
        (
            doc.collection
                .map(|c| index.collections[c as usize].name.as_str()),
            doc.kind,
        )
    };
    use onrecord_core::PageKind;
    assert_eq!(of("adr/one.md"), (Some("decisions"), PageKind::Page));
    assert_eq!(of("adr/guide.md"), (Some("guides"), PageKind::Page));
    assert_eq!(
        of("changes/v1.md"),
        (Some("release-notes"), PageKind::ReleaseNotes)
    );
    assert_eq!(of("plain.md"), (None, PageKind::Page));
    let decisions = index
        .collections
        .iter()
        .find(|c| c.name == "decisions")
        .unwrap();
    assert_eq!(
        (decisions.label.as_str(), decisions.cap),
        ("Why we chose", 1)
    );
    assert!(
        built
            .report
            .to_string()
            .contains("collections       3 (decisions: 1, release-notes: 1, guides: 1)"),
        "{}",
        built.report
    );
    // The file is part of the corpus: changing it changes the corpus hash.
    write(
        &corpus,
        "onrecord.yml",
        b"collections:\n  decisions:\n    folders: [adr/]\n",
    );
    let rebuilt = build_index::build(&corpus, &build_index::Options::standard()).unwrap();
    assert_ne!(rebuilt.index.corpus_hash, index.corpus_hash);
}

/// Builds `corpus` with the teacher (fetched by `scripts/setup.sh`) and the query model in
/// `model_dir`; returns (success, stderr).
fn run_with_vectors(corpus: &Path, out: &Path, model_dir: &Path) -> (bool, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let teacher = root.join("target/models/all-minilm-l6-v2");
    assert!(
        teacher.join("model.safetensors").is_file(),
        "{} is missing: run scripts/setup.sh",
        teacher.display()
    );
    let output = Command::new(env!("CARGO_BIN_EXE_build-index"))
        .arg(corpus)
        .arg("--out")
        .arg(out)
        .arg("--teacher")
        .arg(&teacher)
        .arg("--model-dir")
        .arg(model_dir)
        .arg("--no-embed-cache")
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_query_model_is_written_gzipped_and_read_either_way() {
    let tmp = scratch();
    let dir = tmp.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let corpus = root.join("tests/e2e/fixtures/corpus");
    let model_dir = root.join("build-index/model");
    let (ok, stderr) = run_with_vectors(&corpus, &dir.join("out"), &model_dir);
    assert!(ok, "{stderr}");
    // Written for the browser gzip-compressed (the worker gunzips it): the same model inside.
    let written = fs::read(dir.join("out/query-model.onq")).unwrap();
    assert_eq!(written[..2], [0x1f, 0x8b], "the query model is gzip");
    // Issue 10's budget for the lazy query model, on the bytes a visitor downloads.
    assert!(
        written.len() <= 600_000,
        "the query model as written is {} bytes, over the 600 KB budget",
        written.len()
    );
    let source = fs::read(model_dir.join("query-model.onq")).unwrap();
    assert_eq!(
        onrecord_files::gunzip_if_gzipped(written.clone()).unwrap(),
        source
    );
    // A model folder whose query model is gzip-compressed builds the same index.
    let gz_dir = dir.join("model");
    fs::create_dir_all(&gz_dir).unwrap();
    fs::write(gz_dir.join("query-model.onq"), &written).unwrap();
    fs::copy(
        model_dir.join("doc-projection.bin"),
        gz_dir.join("doc-projection.bin"),
    )
    .unwrap();
    let (ok, stderr) = run_with_vectors(&corpus, &dir.join("again"), &gz_dir);
    assert!(ok, "{stderr}");
    assert_eq!(
        fs::read(dir.join("again/index.onr")).unwrap(),
        fs::read(dir.join("out/index.onr")).unwrap()
    );
}
