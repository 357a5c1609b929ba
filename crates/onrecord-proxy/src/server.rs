//! The HTTP server: one route, checks in order of cost, then the model, as JSON or SSE.

use std::borrow::Cow;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::{
    ACCEPT, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_MAX_AGE, CACHE_CONTROL, CONTENT_TYPE, ORIGIN,
    RETRY_AFTER, VARY,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use http_body_util::LengthLimitError;
use onrecord_core::{
    FORMAT_VERSION, Index, MAX_QUESTION_CHARS, QuestionError, check_question, hex,
};
use serde::Serialize;
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::Config;
use crate::api::{AskRequest, ErrorDto, ProvisionalDto, SummaryDto};
use crate::cache::{self, Cache};
use crate::gate;
use crate::limits::{Connections, Limiter, retry_after_secs};
use crate::listen;
use crate::prompt;
use crate::runlog::{Entry, RunLog};
use crate::upstream::{self, AsyncText, KeyFilter, NoText, UpstreamError};

/// A configured proxy over one index.
pub struct Proxy {
    state: Arc<AppState>,
}

struct AppState {
    index: Index,
    corpus_hex: String,
    cfg: Config,
    endpoint: String,
    client: reqwest::Client,
    limiter: Limiter,
    in_flight: Arc<Semaphore>,
    cache: Mutex<Cache>,
    log: RunLog,
}

impl Proxy {
    /// Loads the index (the same file the site serves) and prepares the upstream client.
    pub fn new(index_bytes: &[u8], cfg: Config) -> anyhow::Result<Proxy> {
        let index = Index::from_bytes(index_bytes)
            .map_err(|e| anyhow::anyhow!("the index does not load: {e}"))?;
        Proxy::with_index(index, cfg)
    }

    /// Prepares the upstream client for an index already loaded: a whole index, or a sharded
    /// one with every shard taken (`onrecord_files::load_index`), since a request may name any
    /// fragment.
    pub fn with_index(index: Index, cfg: Config) -> anyhow::Result<Proxy> {
        if cfg.upstream.key.as_ref().is_some_and(|k| !k.is_sendable()) {
            // Name the problem, never the key.
            anyhow::bail!("the API key contains characters an HTTP header cannot carry");
        }
        if cfg.allow_origin.as_deref() == Some("*") {
            anyhow::bail!("allow-origin must name one origin, not '*'");
        }
        let corpus_hex = hex(&index.corpus_hash);
        let client = upstream::client(&cfg.upstream)?;
        let state = AppState {
            corpus_hex,
            endpoint: upstream::endpoint(&cfg.upstream.base_url),
            client,
            limiter: Limiter::new(cfg.per_client, cfg.global, cfg.max_clients),
            in_flight: Arc::new(Semaphore::new(cfg.max_in_flight)),
            cache: Mutex::new(Cache::new(cfg.cache_bytes)),
            log: RunLog::open(cfg.run_log.as_deref())?,
            index,
            cfg,
        };
        Ok(Proxy {
            state: Arc::new(state),
        })
    }

    /// The corpus hash of the loaded index, as clients must send it.
    pub fn corpus_hash(&self) -> &str {
        &self.state.corpus_hex
    }

    /// The routes: `POST /v1/summary` (and its CORS preflight); everything else is 404/405.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/v1/summary", post(summary).options(preflight))
            .with_state(self.state.clone())
    }

    /// Serves HTTP/1.1 until `shutdown` resolves, then lets requests in flight finish. Slow,
    /// idle and surplus connections are closed (see `listen.rs` and [`Config`]).
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let cfg = &self.state.cfg;
        let connections = Connections::new(cfg.max_connections, cfg.max_connections_per_client);
        listen::serve(self.router(), cfg, connections, listener, shutdown).await
    }

    /// Serves one connection over any byte stream, with the same timeouts (no connection
    /// caps: there is no listener). For tests and fuzzing over in-memory pipes.
    pub async fn serve_connection<I>(&self, io: I, peer: SocketAddr)
    where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        listen::serve_io(self.router(), &self.state.cfg, io, peer).await;
    }
}

/// A question shorter than this is refused before it costs a model call.
const MIN_QUESTION_CHARS: usize = 3;

/// A request that passed every check.
struct Valid {
    question: String,
    fragments: Vec<u32>,
    key: [u8; 32],
}

async fn summary(
    State(st): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    req: Request,
) -> Response {
    let cors = allowed_origin(&st, req.headers());
    let mut resp = handle(st, peer, req).await;
    let h = resp.headers_mut();
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(VARY, HeaderValue::from_static("origin"));
    if let Some(origin) = cors {
        h.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    resp
}

async fn preflight(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let mut resp = StatusCode::NO_CONTENT.into_response();
    if let Some(origin) = allowed_origin(&st, &headers) {
        let h = resp.headers_mut();
        h.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        h.insert(
            ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("POST"),
        );
        h.insert(
            ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("content-type"),
        );
        h.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
        h.insert(VARY, HeaderValue::from_static("origin"));
    }
    resp
}

/// The request's `Origin` when it is exactly the configured one (never `null`).
fn allowed_origin(st: &AppState, headers: &HeaderMap) -> Option<HeaderValue> {
    let allowed = st.cfg.allow_origin.as_deref()?;
    let origin = headers.get(ORIGIN)?;
    (origin.as_bytes() == allowed.as_bytes() && allowed != "null").then(|| origin.clone())
}

async fn handle(st: Arc<AppState>, peer: SocketAddr, req: Request) -> Response {
    // Cheapest checks first; nothing here reaches the model.
    if let Err(wait) = st.limiter.client(peer.ip()) {
        return too_many(wait, "too many requests from this address");
    }
    // A declared length over the cap is refused before any of the body is waited for.
    if HttpBody::size_hint(req.body()).lower() > st.cfg.max_body_bytes as u64 {
        return error(StatusCode::PAYLOAD_TOO_LARGE, "request body too large");
    }
    let is_json = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
        });
    if !is_json {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "content type must be application/json",
        );
    }
    let wants_sse = req
        .headers()
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    // A body sent a byte at a time must not hold a connection for long.
    let body = tokio::time::timeout(
        st.cfg.body_timeout,
        axum::body::to_bytes(req.into_body(), st.cfg.max_body_bytes),
    )
    .await;
    let body = match body {
        Err(_) => return error(StatusCode::REQUEST_TIMEOUT, "request body too slow"),
        Ok(Err(e)) if is_too_large(&e) => {
            return error(StatusCode::PAYLOAD_TOO_LARGE, "request body too large");
        }
        // A malformed body (bad chunked framing, a connection cut mid-body) is no size problem.
        Ok(Err(_)) => return error(StatusCode::BAD_REQUEST, "request body is malformed"),
        Ok(Ok(body)) => body,
    };
    let valid = match validate(&st, &body) {
        Ok(v) => v,
        Err((status, message)) => return error(status, &message),
    };
    let started = Instant::now();
    let cached = (st.cfg.cache_bytes > 0)
        .then(|| lock(&st.cache).get(&valid.key))
        .flatten();
    if let Some(mut hit) = cached {
        hit.cached = true;
        log(&st, &valid, Ok(&hit), started);
        return if wants_sse {
            sse_once(&hit)
        } else {
            json_response(StatusCode::OK, &hit)
        };
    }
    if let Err(wait) = st.limiter.global() {
        return too_many(wait, "the summary service is at its limit; try again later");
    }
    let Ok(permit) = st.in_flight.clone().try_acquire_owned() else {
        return too_many(Duration::from_secs(1), "too many summaries in progress");
    };
    if wants_sse {
        return stream(st, valid, permit, started);
    }
    let res = generate(&st, &valid, NoText).await;
    drop(permit);
    finish(&st, &valid, &res, started);
    match res {
        Ok(summary) => json_response(StatusCode::OK, &summary),
        Err(e) => json_response(upstream_status(e), &json!({ "error": e.name() })),
    }
}

/// Whether reading the body failed on the size cap (rather than on its framing).
fn is_too_large(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.is::<LengthLimitError>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// The request, checked against the proxy's own index; the error is the status and message.
fn validate(st: &AppState, body: &[u8]) -> Result<Valid, (StatusCode, Cow<'static, str>)> {
    let ask: AskRequest = serde_json::from_slice(body).map_err(|_| {
        (
            StatusCode::BAD_REQUEST,
            "request must be JSON {indexVersion, corpusHash, question, fragments} and nothing else"
                .into(),
        )
    })?;
    // The core's rule (length, no control characters), then a floor of our own: a model call
    // costs money, and a question of one or two characters is not worth one.
    let question = match check_question(&ask.question) {
        Ok(q) if q.chars().count() >= MIN_QUESTION_CHARS => q,
        Ok(_) | Err(QuestionError::TooLong { .. }) => {
            return Err((
                StatusCode::BAD_REQUEST,
                format!("question must be {MIN_QUESTION_CHARS} to {MAX_QUESTION_CHARS} characters")
                    .into(),
            ));
        }
        Err(_) => {
            return Err((
                StatusCode::BAD_REQUEST,
                "question must not contain control characters".into(),
            ));
        }
    };
    let mut sorted = ask.fragments.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if ask.fragments.is_empty()
        || ask.fragments.len() > st.cfg.max_fragments
        || sorted.len() != ask.fragments.len()
    {
        return Err((
            StatusCode::UNPROCESSABLE_ENTITY,
            "send between 1 and the allowed number of distinct fragment ids".into(),
        ));
    }
    if ask.index_version != FORMAT_VERSION || ask.corpus_hash != st.corpus_hex {
        return Err((
            StatusCode::CONFLICT,
            "index version or corpus hash differs from the proxy's index; reload the page".into(),
        ));
    }
    if sorted.iter().any(|&id| id >= st.index.fragment_count()) {
        return Err((StatusCode::BAD_REQUEST, "unknown fragment id".into()));
    }
    let key = cache::key(
        ask.index_version,
        &st.index.corpus_hash,
        question,
        &ask.fragments,
        &st.cfg.upstream.model,
        st.cfg.upstream.max_tokens,
    );
    Ok(Valid {
        question: question.to_string(),
        fragments: ask.fragments,
        key,
    })
}

/// One model call and the gates; bounded by the wall-clock deadline.
async fn generate(
    st: &AppState,
    valid: &Valid,
    on_text: impl AsyncText,
) -> Result<SummaryDto, UpstreamError> {
    let up = &st.cfg.upstream;
    // Server-fixed: model, temperature, max tokens, one choice, no tools.
    let body = json!({
        "model": up.model,
        "messages": prompt::messages(&st.index, &valid.fragments, &valid.question),
        "temperature": 0,
        "max_tokens": up.max_tokens,
        "n": 1,
        "stream": true,
        "response_format": { "type": "json_object" },
    });
    let body = serde_json::to_vec(&body).map_err(|_| UpstreamError::Garbage)?;
    let completion = tokio::time::timeout(
        up.deadline,
        upstream::complete(&st.client, up, &st.endpoint, body, on_text),
    )
    .await
    .map_err(|_| UpstreamError::Deadline)??;
    Ok(gate::check(
        &st.index,
        &valid.fragments,
        &completion.content,
        completion.finish_reason.as_deref(),
    ))
}

/// Caches what may be cached and writes the run log.
fn finish(st: &AppState, valid: &Valid, res: &Result<SummaryDto, UpstreamError>, started: Instant) {
    match res {
        Ok(summary) => {
            if st.cfg.cache_bytes > 0 {
                lock(&st.cache).put(valid.key, summary);
            }
            log(st, valid, Ok(summary), started);
        }
        Err(e) => {
            if *e == UpstreamError::AuthFailed {
                eprintln!("onrecord-proxy: upstream auth failed (HTTP 401/403); check the key");
            }
            log(st, valid, Err(e.name()), started);
        }
    }
}

fn log(st: &AppState, valid: &Valid, res: Result<&SummaryDto, &str>, started: Instant) {
    let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let entry = match res {
        Ok(s) => Entry {
            question: &valid.question,
            fragments: &valid.fragments,
            outcome: s.mode,
            reason: s.reason,
            claims: s.claims.len(),
            dropped: s.dropped,
            cached: s.cached,
            ms,
        },
        Err(kind) => Entry {
            question: &valid.question,
            fragments: &valid.fragments,
            outcome: kind,
            reason: None,
            claims: 0,
            dropped: 0,
            cached: false,
            ms,
        },
    };
    st.log.write(&entry);
}

/// Sends provisional text to the browser as the model writes, one event per change of the
/// answer text, with the key filtered out.
struct Provisional {
    tx: mpsc::Sender<Bytes>,
    key: Option<KeyFilter>,
    last: String,
}

impl AsyncText for Provisional {
    async fn text(&mut self, so_far: &str) {
        let Some((mut text, complete)) = gate::partial_answer(so_far) else {
            return;
        };
        if let Some(key) = &self.key {
            text = key.filter(&text, !complete);
        }
        if text != self.last {
            // A closed channel means the client left; the select in `stream` ends the call.
            let _ = self
                .tx
                .send(event("provisional", &ProvisionalDto { text: &text }))
                .await;
            self.last = text;
        }
    }
}

/// The SSE reply: provisional events, then one `summary` (validated) or `error` event. The
/// model call runs in its own task and stops as soon as the client goes away, which drops the
/// upstream connection.
fn stream(
    st: Arc<AppState>,
    valid: Valid,
    permit: OwnedSemaphorePermit,
    started: Instant,
) -> Response {
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    tokio::spawn(async move {
        let _permit = permit;
        let sink = Provisional {
            tx: tx.clone(),
            key: st.cfg.upstream.key.as_ref().and_then(KeyFilter::new),
            last: String::new(),
        };
        let res = tokio::select! {
            res = generate(&st, &valid, sink) => res,
            () = tx.closed() => {
                log(&st, &valid, Err("client-gone"), started);
                return;
            }
        };
        finish(&st, &valid, &res, started);
        let last = match &res {
            Ok(summary) => event("summary", summary),
            Err(e) => event("error", &json!({ "error": e.name() })),
        };
        let _ = tx.send(last).await;
    });
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<_, Infallible>(b), rx))
    });
    sse_response(Body::from_stream(body))
}

fn sse_once(summary: &SummaryDto) -> Response {
    sse_response(Body::from(event("summary", summary)))
}

fn sse_response(body: Body) -> Response {
    let mut resp = Response::new(body);
    resp.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    resp
}

fn event<T: Serialize>(name: &str, data: &T) -> Bytes {
    // serde_json never writes a raw newline, so the data fits on one `data:` line.
    let data = serde_json::to_string(data).unwrap_or_else(|_| "{}".into());
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

fn upstream_status(e: UpstreamError) -> StatusCode {
    match e {
        UpstreamError::Timeout | UpstreamError::Stalled | UpstreamError::Deadline => {
            StatusCode::GATEWAY_TIMEOUT
        }
        UpstreamError::StreamBroken | UpstreamError::Garbage | UpstreamError::TooLong => {
            StatusCode::BAD_GATEWAY
        }
        UpstreamError::Unreachable
        | UpstreamError::AuthFailed
        | UpstreamError::RateLimited
        | UpstreamError::ServerError(_)
        | UpstreamError::Refused(_) => StatusCode::SERVICE_UNAVAILABLE,
    }
}

fn json_response<T: Serialize>(status: StatusCode, value: &T) -> Response {
    let body = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    let mut resp = (status, body).into_response();
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    resp
}

fn error(status: StatusCode, message: &str) -> Response {
    json_response(status, &ErrorDto { error: message })
}

fn too_many(wait: Duration, message: &'static str) -> Response {
    let mut resp = error(StatusCode::TOO_MANY_REQUESTS, message);
    resp.headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(retry_after_secs(wait)));
    resp
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
