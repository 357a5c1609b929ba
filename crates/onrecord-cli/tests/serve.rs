//! `onrecord serve` against hostile clients and hostile folders (issue 43): it stays inside its
//! folder, closes idle and oversized requests, caps its connections and says it is a preview.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use std::{fs, thread};

/// A running `onrecord serve` over `dir`, killed when dropped.
struct Server {
    child: Child,
    addr: String,
    banner: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(dir: &Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_onrecord"))
        .args(["serve", dir.to_str().unwrap(), "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut banner = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut banner)
        .unwrap();
    let addr = banner
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {banner:?}"))
        .to_string();
    Server {
        child,
        addr,
        banner,
    }
}

/// The status line and body of one request (`raw` is the whole request).
fn exchange(addr: &str, raw: &str) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.write_all(raw.as_bytes()).unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(response.len());
    let head = String::from_utf8_lossy(&response[..split]).to_string();
    let body = response.get(split + 4..).unwrap_or_default().to_vec();
    (head, body)
}

fn get(addr: &str, path: &str) -> (String, Vec<u8>) {
    exchange(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n"),
    )
}

/// Whether the server closes `stream` (end of stream or reset) within `limit`.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let t = Instant::now();
    let mut buf = [0u8; 4096];
    while t.elapsed() < limit {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => return true,
        }
    }
    false
}

/// A site folder with a page, a sub-folder and a secret beside (outside) it.
fn site() -> (tempfile::TempDir, std::path::PathBuf) {
    let scratch = tempfile::tempdir().unwrap();
    let site = scratch.path().join("site");
    fs::create_dir_all(site.join("docs")).unwrap();
    fs::write(site.join("index.html"), "<h1>home</h1>").unwrap();
    fs::write(site.join("docs/index.html"), "<h1>docs</h1>").unwrap();
    fs::create_dir_all(scratch.path().join("private")).unwrap();
    fs::write(scratch.path().join("secret.txt"), "CANARY-SECRET-43").unwrap();
    fs::write(
        scratch.path().join("private/index.html"),
        "CANARY-SECRET-43 page",
    )
    .unwrap();
    (scratch, site)
}

#[test]
fn it_says_it_is_a_preview_server() {
    let (_scratch, site) = site();
    let server = serve(&site);
    assert!(server.banner.contains("preview"), "{}", server.banner);
    assert!(
        server.banner.contains("not for production"),
        "{}",
        server.banner
    );
}

// Issue 43: `onrecord serve` followed symlinks out of its folder.
#[cfg(unix)]
#[test]
fn links_that_lead_out_of_the_folder_are_not_served() {
    use std::os::unix::fs::symlink;
    let (scratch, site) = site();
    symlink(scratch.path().join("secret.txt"), site.join("secret.txt")).unwrap();
    symlink("/etc/passwd", site.join("passwd.txt")).unwrap();
    symlink(scratch.path().join("private"), site.join("private")).unwrap();
    symlink(scratch.path(), site.join("up")).unwrap();
    // A link that stays inside is served as the file it names.
    symlink(site.join("docs/index.html"), site.join("alias.html")).unwrap();
    let server = serve(&site);
    for path in [
        "/secret.txt",
        "/passwd.txt",
        "/private/",
        "/private/index.html",
        "/up/secret.txt",
        "/up/site/../secret.txt",
        "/up/%73ecret.txt",
        "/..%2fsecret.txt",
        "/%2e%2e/secret.txt",
        "/docs/..%2f..%2fsecret.txt",
    ] {
        let (head, body) = get(&server.addr, path);
        assert!(head.starts_with("HTTP/1.1 404"), "{path}: {head}");
        assert!(!String::from_utf8_lossy(&body).contains("CANARY"), "{path}");
    }
    let (head, body) = get(&server.addr, "/alias.html");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, b"<h1>docs</h1>");
    let (head, body) = get(&server.addr, "/docs/");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, b"<h1>docs</h1>");
    // HEAD states the length and sends no body.
    let (head, body) = exchange(&server.addr, "HEAD /index.html HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(head.contains("Content-Length: 13"), "{head}");
    assert!(body.is_empty(), "{body:?}");
}

// A FIFO inside the folder is never opened: opening it would wait for a writer.
#[cfg(unix)]
#[test]
fn a_fifo_in_the_folder_is_not_served_and_blocks_nothing() {
    let (_scratch, site) = site();
    let made = Command::new("mkfifo")
        .arg(site.join("pipe.html"))
        .status()
        .unwrap();
    assert!(made.success());
    let server = serve(&site);
    let t = Instant::now();
    let (head, _) = get(&server.addr, "/pipe.html");
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    let (head, _) = get(&server.addr, "/");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

// Issue 43: idle connections were never closed (one thread each), and a request line with no
// newline grew the server's memory without limit.
#[test]
fn idle_connections_and_endless_request_lines_are_closed() {
    let (_scratch, site) = site();
    let server = serve(&site);
    let mut idle = TcpStream::connect(&server.addr).unwrap();
    let mut trickle = TcpStream::connect(&server.addr).unwrap();
    trickle
        .write_all(b"GET /index.html HTTP/1.1\r\nX-Slow: a")
        .unwrap();
    // 64 MiB of request line with no newline: the server stops reading long before.
    let mut endless = TcpStream::connect(&server.addr).unwrap();
    endless
        .set_write_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let line = vec![b'a'; 1 << 20];
    let mut sent = 0usize;
    let refused = (0..64).any(|_| match endless.write_all(&line) {
        Ok(()) => {
            sent += line.len();
            false
        }
        Err(_) => true,
    });
    assert!(refused, "the server took {sent} bytes of one request line");
    assert!(sent < 16 << 20, "{sent}");
    let _ = endless.shutdown(Shutdown::Both);
    // The header timeout is 10 s.
    assert!(closed_within(&mut idle, Duration::from_secs(20)));
    assert!(closed_within(&mut trickle, Duration::from_secs(5)));
    let (head, _) = get(&server.addr, "/index.html");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

// Issue 43: every connection had a thread, however many there were; now a bounded number, the
// one past it answered 503 at once, and the places come back.
#[test]
fn connections_are_capped_and_the_cap_frees_up() {
    let (_scratch, site) = site();
    let server = serve(&site);
    let held: Vec<TcpStream> = (0..64)
        .map(|_| TcpStream::connect(&server.addr).unwrap())
        .collect();
    // Accepting is asynchronous: wait until the last one holds its place.
    thread::sleep(Duration::from_millis(500));
    let (head, _) = get(&server.addr, "/index.html");
    assert!(head.starts_with("HTTP/1.1 503"), "{head}");
    drop(held);
    let t = Instant::now();
    loop {
        let (head, body) = get(&server.addr, "/index.html");
        if head.starts_with("HTTP/1.1 200") {
            assert_eq!(body, b"<h1>home</h1>");
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(5), "{head}");
        thread::sleep(Duration::from_millis(50));
    }
}
