//! `onrecord serve`: a preview server for a built site on localhost (not for production),
//! with the MIME types and `Cache-Control` headers the README recommends for a deploy.
//!
//! It runs hyper (HTTP/1.1) on the main thread alone, so it never needs a thread it cannot
//! create once it is up, and it holds:
//! - its folder: a request path is decoded, refused when it climbs (`..`, also
//!   percent-encoded), and served only when its canonical path (links resolved) lies inside
//!   the folder's canonical path and is a regular file: links that lead out, devices, FIFOs
//!   and sockets are 404;
//! - its connections: at most [`MAX_CONNECTIONS`] open; one more gets 503 and is closed;
//! - time: a request's head must arrive within [`HEADER_TIMEOUT`] of connecting (an idle
//!   connection is closed), each connection carries one request and ends after
//!   [`CONNECTION_LIFETIME`] whatever happens;
//! - memory: a request line or head past [`MAX_HEAD_BYTES`] closes the connection, and files
//!   are sent in [`CHUNK_BYTES`] pieces.

use std::convert::Infallible;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use clap::Args;
use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use hyper::header::{CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::deploy;

/// Connections open at once; one more is answered 503 and closed.
pub(crate) const MAX_CONNECTIONS: usize = 64;
/// Time from connecting to the end of the request's head.
pub(crate) const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection's whole life, however slowly the client reads.
pub(crate) const CONNECTION_LIFETIME: Duration = Duration::from_secs(120);
/// The request line and headers together (hyper's read buffer; 8 KiB is its least).
pub(crate) const MAX_HEAD_BYTES: usize = 16 * 1024;
/// A file is read and sent this much at a time.
pub(crate) const CHUNK_BYTES: usize = 64 * 1024;

/// What a connection over the cap gets before it is closed.
const REFUSED: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n\
Retry-After: 1\r\nConnection: close\r\nContent-Length: 22\r\n\r\ntoo many connections\r\n";

#[derive(Args)]
pub(crate) struct ServeArgs {
    /// The folder to serve (your built site with the widget folder copied in, or the widget
    /// folder itself).
    dir: PathBuf,
    /// The port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8000)]
    port: u16,
}

pub(crate) fn run(args: &ServeArgs) -> Result<()> {
    if !args.dir.is_dir() {
        bail!("{} does not exist or is not a folder", args.dir.display());
    }
    let root = fs::canonicalize(&args.dir)
        .with_context(|| format!("cannot resolve {}", args.dir.display()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the server")?;
    runtime.block_on(serve(args, root))
}

async fn serve(args: &ServeArgs, root: PathBuf) -> Result<()> {
    let listener = TcpListener::bind(("127.0.0.1", args.port))
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{}", args.port))?;
    let addr = listener.local_addr().context("no local address")?;
    println!(
        "serving {} at http://{addr}/ (a preview server, not for production; Ctrl-C stops)",
        args.dir.display()
    );
    let root: Arc<Path> = root.into();
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of file descriptors, or a connection reset before it was accepted: the
            // listener itself is fine, so wait a moment rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            refuse(&stream);
            continue;
        };
        let root = root.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let res = respond(&root, req.method(), req.uri().path());
                async move { Ok::<_, Infallible>(res) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .max_buf_size(MAX_HEAD_BYTES)
                .keep_alive(false)
                .title_case_headers(true)
                .serve_connection(TokioIo::new(stream), service);
            // Ending the future drops the connection, which closes its socket.
            let _ = tokio::time::timeout(CONNECTION_LIFETIME, conn).await;
        });
    }
}

/// Answers 503 without waiting: a fresh socket's send buffer is empty, so the short reply goes
/// out at once. What the client already sent (up to 64 KiB) is read away, so that closing sends
/// a normal end of stream rather than a reset that could discard the reply.
fn refuse(stream: &TcpStream) {
    let _ = stream.try_write(REFUSED);
    let mut sink = [0u8; 4096];
    for _ in 0..16 {
        if !matches!(stream.try_read(&mut sink), Ok(n) if n > 0) {
            break;
        }
    }
}

/// The content type of a file, by extension. A `.gz` file is sent as the gzip file it is, with
/// no Content-Encoding: the worker gunzips the wasm, the query model and the index itself.
pub(crate) fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "gz" => "application/gzip",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Content-hashed names (and index shards, named by their checksums) never change, so they are
/// cached for a year; everything else (the loader, the site's pages) is revalidated.
pub(crate) fn cache_control(path: &Path) -> &'static str {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if deploy::parse_hashed(name).is_some() || deploy::is_shard(name) {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    }
}

/// The path a request path names under `root`, read literally (links are resolved later);
/// `None` for paths that climb out of it, also when percent-encoded.
fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let mut file = root.to_path_buf();
    for component in Path::new(&percent_decode(path)?).components() {
        match component {
            Component::Normal(part) => file.push(part),
            Component::RootDir | Component::CurDir => {}
            _ => return None,
        }
    }
    if file.is_dir() {
        file.push("index.html");
    }
    Some(file)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The file a request path names under `root`, opened, with its length and the name it was
/// asked by (its type and caching follow that name). `None` for anything not to be served:
/// missing, outside `root` once links are resolved, or not a regular file.
fn open(root: &Path, target: &str) -> Option<(File, u64, PathBuf)> {
    let asked = resolve(root, target)?;
    let real = fs::canonicalize(&asked).ok()?;
    if !real.starts_with(root) || !fs::metadata(&real).ok()?.is_file() {
        return None;
    }
    // Checked before opening: opening a FIFO would wait for a writer.
    let file = File::open(&real).ok()?;
    let len = file.metadata().ok()?.len();
    Some((file, len, asked))
}

fn respond(root: &Path, method: &Method, target: &str) -> Response<Reply> {
    if method != Method::GET && method != Method::HEAD {
        return text(StatusCode::METHOD_NOT_ALLOWED, "GET only\n", true);
    }
    let with_body = method == Method::GET;
    let Some((file, len, asked)) = open(root, target) else {
        return text(StatusCode::NOT_FOUND, "not found\n", with_body);
    };
    let body = if with_body {
        Reply::File { file, left: len }
    } else {
        Reply::Bytes(None)
    };
    reply(
        StatusCode::OK,
        mime(&asked),
        cache_control(&asked),
        len,
        body,
    )
}

fn text(status: StatusCode, body: &'static str, with_body: bool) -> Response<Reply> {
    let bytes = with_body.then(|| Bytes::from_static(body.as_bytes()));
    reply(
        status,
        "text/plain",
        "no-cache",
        body.len() as u64,
        Reply::Bytes(bytes),
    )
}

fn reply(
    status: StatusCode,
    content_type: &'static str,
    cache: &'static str,
    len: u64,
    body: Reply,
) -> Response<Reply> {
    let mut res = Response::new(body);
    *res.status_mut() = status;
    let h = res.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(CACHE_CONTROL, HeaderValue::from_static(cache));
    // Stated for HEAD too, where the body is left out.
    h.insert(CONTENT_LENGTH, HeaderValue::from(len));
    res
}

/// A reply's body: a short text, or a file read a piece at a time as the client takes it.
enum Reply {
    Bytes(Option<Bytes>),
    File { file: File, left: u64 },
}

impl Body for Reply {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let frame = match self.get_mut() {
            Reply::Bytes(bytes) => bytes.take().map(|b| Ok(Frame::data(b))),
            Reply::File { left: 0, .. } => None,
            Reply::File { file, left } => {
                // A local file reads in well under a millisecond a piece: reading it here
                // keeps the server on one thread.
                let mut buf =
                    vec![0; CHUNK_BYTES.min(usize::try_from(*left).unwrap_or(CHUNK_BYTES))];
                Some(match file.read(&mut buf) {
                    // The file shrank since it was opened: end the reply short.
                    Ok(0) => Err(io::ErrorKind::UnexpectedEof.into()),
                    Ok(n) => {
                        buf.truncate(n);
                        *left = left.saturating_sub(n as u64);
                        Ok(Frame::data(Bytes::from(buf)))
                    }
                    Err(e) => Err(e),
                })
            }
        };
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Reply::Bytes(bytes) => bytes.is_none(),
            Reply::File { left, .. } => *left == 0,
        }
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(match self {
            Reply::Bytes(bytes) => bytes.as_ref().map_or(0, |b| b.len() as u64),
            Reply::File { left, .. } => *left,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_root() {
        let root = Path::new("/srv/site");
        assert_eq!(
            resolve(root, "/a%20b.html?x=1"),
            Some(root.join("a b.html"))
        );
        assert_eq!(resolve(root, "/../etc/passwd"), None);
        assert_eq!(resolve(root, "/x/%2e%2e/%2e%2e/etc"), None);
    }

    #[test]
    fn headers_follow_the_readme() {
        assert_eq!(
            mime(Path::new("x/onrecord_wasm_bg.0123456789.wasm")),
            "application/wasm"
        );
        assert_eq!(
            mime(Path::new("x/onrecord_wasm_bg.0123456789.wasm.gz")),
            "application/gzip"
        );
        assert_eq!(cache_control(Path::new("onrecord.js")), "no-cache");
        assert_eq!(
            cache_control(Path::new("x/onrecord_wasm_bg.0123456789.wasm.gz")),
            "public, max-age=31536000, immutable"
        );
        assert_eq!(
            cache_control(Path::new("onrecord-panel.0123456789.js")),
            "public, max-age=31536000, immutable"
        );
        // Index shards are named by their checksums: the HTTP cache keeps them across visits.
        assert_eq!(
            cache_control(Path::new("x/t-0123abcd.onr")),
            "public, max-age=31536000, immutable"
        );
    }
}
