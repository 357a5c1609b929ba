//! Connections: the accept loop, the connection caps and the timeouts that close slow or idle
//! clients. HTTP/1.1 only: HTTP/2 without TLS (h2c) is not spoken, so every request meets the
//! same body limit and timeouts (browsers use HTTP/2 only over TLS, in front of the proxy).
//!
//! - Headers: a request's headers must arrive within `header_timeout` of the connection opening
//!   or of the previous reply ending (hyper's header-read timer), so a connection that sends
//!   nothing, or trickles its headers (slowloris), is closed.
//! - Body: `body_timeout` in the handler (408).
//! - Reply: a write that the client leaves waiting (it stopped reading) for `write_timeout`
//!   closes the connection, which also ends the model call behind it.
//! - Caps: at most `max_connections` open, `max_connections_per_client` from one address, and
//!   the last eighth only for addresses with none open; a connection beyond a cap is answered
//!   `503` with `Retry-After` and closed at once.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tower_service::Service;

use crate::Config;
use crate::limits::Connections;

/// What a connection over a cap gets before it is closed.
const REFUSED: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
retry-after: 1\r\nconnection: close\r\ncontent-length: 43\r\n\r\n{\"error\":\"too many connections; try again\"}";

/// Accepts connections until `shutdown` resolves, then waits for the replies in progress.
pub(crate) async fn serve(
    router: Router,
    cfg: &Config,
    connections: Arc<Connections>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors, or a connection reset before it was accepted: the
                // listener itself is fine, so wait a moment rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(slot) = connections.open(peer.ip()) else {
            refuse(&stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let (conn, stall) = connection(router.clone(), cfg, stream, peer);
        let conn = graceful.watch(conn);
        let write_timeout = cfg.write_timeout;
        tokio::spawn(async move {
            let _slot = slot;
            // Returning drops the connection, which closes its socket.
            tokio::select! {
                _ = conn => {}
                () = stalled(&stall, write_timeout) => {}
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// Serves one connection over any transport (the tests and the fuzz target use in-memory
/// pipes) with the same timeouts as [`serve`].
pub(crate) async fn serve_io<I>(router: Router, cfg: &Config, io: I, peer: SocketAddr)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (conn, stall) = connection(router, cfg, io, peer);
    tokio::select! {
        _ = conn => {}
        () = stalled(&stall, cfg.write_timeout) => {}
    }
}

/// Answers 503 without waiting. A fresh socket's send buffer is empty, so the short reply goes
/// out at once; what the client already sent (up to 64 KiB: a client sending without pause must
/// not keep this loop busy) is read away so that closing sends a normal end of stream rather
/// than a reset.
fn refuse(stream: &TcpStream) {
    let _ = stream.try_write(REFUSED);
    let mut sink = [0u8; 4096];
    for _ in 0..16 {
        if !matches!(stream.try_read(&mut sink), Ok(n) if n > 0) {
            break;
        }
    }
}

type Connection<I> = hyper::server::conn::http1::Connection<TokioIo<Stalls<I>>, Handler>;

/// One connection: HTTP/1.1 with the header-read timer, over a transport that notes when its
/// writes wait.
fn connection<I>(
    router: Router,
    cfg: &Config,
    io: I,
    peer: SocketAddr,
) -> (Connection<I>, Arc<Stall>)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let stall = Arc::new(Stall::default());
    let io = Stalls {
        inner: io,
        stall: stall.clone(),
    };
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(cfg.header_timeout)
        .serve_connection(TokioIo::new(io), Handler { router, peer });
    (conn, stall)
}

/// Resolves once a write has waited for the client for `limit`. Between stalls it looks again
/// every `limit`, so a stall is noticed within twice the limit.
async fn stalled(stall: &Stall, limit: Duration) {
    loop {
        match stall.since() {
            Some(since) if since.elapsed() >= limit => return,
            Some(since) => tokio::time::sleep_until((since + limit).into()).await,
            None => tokio::time::sleep(limit).await,
        }
    }
}

/// The router, with the peer address as axum's `ConnectInfo`.
#[derive(Clone)]
pub(crate) struct Handler {
    router: Router,
    peer: SocketAddr,
}

impl hyper::service::Service<hyper::Request<Incoming>> for Handler {
    type Response = axum::response::Response;
    type Error = std::convert::Infallible;
    type Future = axum::routing::future::RouteFuture<std::convert::Infallible>;

    fn call(&self, mut req: hyper::Request<Incoming>) -> Self::Future {
        req.extensions_mut().insert(ConnectInfo(self.peer));
        self.router.clone().call(req)
    }
}

/// Since when a write has been waiting for the client, if one is.
#[derive(Default)]
pub(crate) struct Stall(Mutex<Option<Instant>>);

impl Stall {
    fn note(&self, waiting: bool) {
        let mut since = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match (waiting, *since) {
            (true, None) => *since = Some(Instant::now()),
            (false, Some(_)) => *since = None,
            _ => {}
        }
    }

    fn since(&self) -> Option<Instant> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A connection's transport that notes when its writes wait.
pub(crate) struct Stalls<I> {
    inner: I,
    stall: Arc<Stall>,
}

impl<I: AsyncRead + Unpin> AsyncRead for Stalls<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Stalls<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let res = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.stall.note(res.is_pending());
        res
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let res = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.stall.note(res.is_pending());
        res
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let res = Pin::new(&mut self.inner).poll_flush(cx);
        self.stall.note(res.is_pending());
        res
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let res = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.stall.note(res.is_pending());
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_is_a_well_formed_reply() {
        let text = std::str::from_utf8(REFUSED).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(length, body.len());
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert!(json["error"].is_string());
    }
}
