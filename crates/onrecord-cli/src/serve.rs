//! `onrecord serve`: a small std-only HTTP server for previewing a site on localhost, with the
//! MIME types and `Cache-Control` headers the README recommends for a deploy.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::{fs, thread};

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::deploy;

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
    let listener = TcpListener::bind(("127.0.0.1", args.port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{}", args.port))?;
    let addr = listener.local_addr().context("no local address")?;
    println!(
        "serving {} at http://{addr}/ (Ctrl-C stops)",
        args.dir.display()
    );
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let root = args.dir.clone();
        // One thread per connection: a preview has one visitor.
        thread::spawn(move || {
            if let Err(e) = respond(&root, stream) {
                eprintln!("{e:#}");
            }
        });
    }
    Ok(())
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

/// The file a request path names under `root`; `None` for paths that leave it.
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

fn respond(root: &Path, stream: TcpStream) -> Result<()> {
    let mut reader = BufReader::new(stream.try_clone().context("cannot clone the connection")?);
    let mut request_line = String::new();
    reader
        .read_line(&mut request_line)
        .context("cannot read the request")?;
    // Drain the headers; a preview needs none of them.
    let mut header = String::new();
    while reader
        .read_line(&mut header)
        .context("cannot read the request")?
        > 2
    {
        header.clear();
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut stream = stream;
    if method != "GET" && method != "HEAD" {
        return send(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            "no-cache",
            b"GET only\n",
            true,
        );
    }
    let file = resolve(root, target);
    match file.as_deref().map(|f| (f, fs::read(f))) {
        Some((file, Ok(body))) => send(
            &mut stream,
            "200 OK",
            mime(file),
            cache_control(file),
            &body,
            method == "GET",
        ),
        _ => send(
            &mut stream,
            "404 Not Found",
            "text/plain",
            "no-cache",
            b"not found\n",
            method == "GET",
        ),
    }
}

fn send(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    cache: &str,
    body: &[u8],
    with_body: bool,
) -> Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: {cache}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if with_body {
        stream.write_all(body)?;
    }
    stream.flush()?;
    Ok(())
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
