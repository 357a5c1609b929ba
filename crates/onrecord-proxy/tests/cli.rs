//! The binary refuses to start without what it needs, and says which thing is missing.

use std::process::Command;

fn proxy(args: &[&str], key: Option<&str>) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_onrecord-proxy"));
    cmd.args(args).env_remove("ONRECORD_UPSTREAM_KEY");
    if let Some(k) = key {
        cmd.env("ONRECORD_UPSTREAM_KEY", k);
    }
    let out = cmd.output().expect("runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// Whether a usage error says required arguments are missing and names each of `flags`.
fn missing_names(err: &str, flags: &[&str]) -> bool {
    err.contains("required arguments were not provided") && flags.iter().all(|f| err.contains(f))
}

const BASE: [&str; 6] = [
    "--upstream",
    "http://127.0.0.1:9/v1",
    "--model",
    "m",
    "--listen",
    "127.0.0.1:0",
];

#[test]
fn a_missing_or_empty_key_stops_startup_naming_the_variable() {
    for key in [None, Some(""), Some("   ")] {
        let mut args = vec!["--index", "/nonexistent.onr"];
        args.extend(BASE);
        let (ok, err) = proxy(&args, key);
        assert!(!ok);
        assert!(
            err.contains("ONRECORD_UPSTREAM_KEY is missing or empty"),
            "{err}"
        );
    }
}

#[test]
fn a_bad_index_stops_startup_and_the_key_is_not_printed() {
    // Removed when the test ends, pass or fail.
    let tmp = tempfile::Builder::new()
        .prefix("onrecord-proxy-cli-")
        .tempdir()
        .unwrap();
    let dir = tmp.path();
    let bad = dir.join("bad.onr");
    std::fs::write(&bad, b"<!doctype html>").unwrap();
    let mut args = vec!["--index", bad.to_str().unwrap()];
    args.extend(BASE);
    let (ok, err) = proxy(&args, Some("sk-CANARY-cli-0123456789"));
    assert!(!ok);
    assert!(err.contains("the index does not load"), "{err}");
    assert!(!err.contains("sk-CANARY"), "{err}");
    let (ok, err) = proxy(&["--index", "x.onr"], Some("k"));
    assert!(
        !ok && missing_names(&err, &["--upstream", "--model"]),
        "{err}"
    );
    // A key no HTTP header can carry is refused up front, not silently dropped.
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/injection-corpus");
    let built = build_index::build(&corpus, &build_index::Options::standard()).unwrap();
    let index = dir.join("good.onr");
    std::fs::write(&index, &built.bytes).unwrap();
    let mut args = vec!["--index", index.to_str().unwrap()];
    args.extend(BASE);
    let (ok, err) = proxy(&args, Some("sk-CANARY\u{7}bell"));
    assert!(
        !ok && err.contains("characters an HTTP header cannot carry"),
        "{err}"
    );
    assert!(!err.contains("sk-CANARY"), "{err}");
    let (ok, err) = proxy(&["--index", "x.onr"], Some("k"));
    assert!(
        !ok && missing_names(&err, &["--upstream", "--model"]),
        "{err}"
    );
}
