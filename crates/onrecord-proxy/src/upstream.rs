//! The OpenAI-compatible upstream client: one chat completion, streamed, with bounded retries
//! before the stream starts and hard caps once it has.
//!
//! Errors carry a kind, never upstream text: `reqwest::Error` prints the request URL, and a URL
//! or a body could carry the key, so none of it reaches a response or a log line.

use std::collections::HashSet;
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use serde::Deserialize;
use tokio::time::{sleep, timeout};

/// The upstream API key. It has no `Display`, its `Debug` is redacted, the header built from it
/// is marked sensitive, and text shown to visitors passes a `KeyFilter`.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key read from the environment.
    pub fn new(key: String) -> ApiKey {
        ApiKey(key)
    }

    /// Whether the key can be sent at all (printable ASCII, as an HTTP header needs).
    pub(crate) fn is_sendable(&self) -> bool {
        self.header().is_some()
    }

    fn header(&self) -> Option<HeaderValue> {
        let mut value = HeaderValue::from_str(&format!("Bearer {}", self.0)).ok()?;
        value.set_sensitive(true);
        Some(value)
    }
}

/// The shortest run of the key's characters that is redacted (the whole key, if it is
/// shorter): a visitor may see at most seven characters of the key in one place, and ordinary
/// words almost never share eight characters in a row with a random key.
const MIN_KEY_RUN: usize = 8;

/// Whether `c` shows nothing where it stands: controls other than line breaks and tabs, format
/// characters (Unicode category Cf), variation selectors, the combining grapheme joiner and the
/// Hangul fillers. Between two pieces of the key they show the visitor the key whole.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{8}'
            | '\u{B}'..='\u{1F}'
            | '\u{7F}'..='\u{9F}'
            | '\u{AD}'
            | '\u{34F}'
            | '\u{600}'..='\u{605}'
            | '\u{61C}'
            | '\u{6DD}'
            | '\u{70F}'
            | '\u{890}'..='\u{891}'
            | '\u{8E2}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Keeps the key out of text shown to a visitor, also when the text arrives a piece at a time
/// (an upstream that echoes the key token by token, or as `\u` escapes, or mixed with other
/// words, or in pieces joined by invisible characters, which are dropped first): every run of
/// at least [`MIN_KEY_RUN`] consecutive characters of the key becomes `[redacted]`, and while
/// the text can still grow, a tail that could become such a run is held back.
pub(crate) struct KeyFilter {
    key: Vec<char>,
    run: usize,
    runs: HashSet<Vec<char>>,
}

impl KeyFilter {
    /// `None` for an empty key (nothing to hide).
    pub(crate) fn new(key: &ApiKey) -> Option<KeyFilter> {
        let key: Vec<char> = key.0.chars().collect();
        let run = MIN_KEY_RUN.min(key.len());
        let runs = key.windows(run.max(1)).map(<[char]>::to_vec).collect();
        (run > 0).then_some(KeyFilter { key, run, runs })
    }

    /// `text` as a visitor may see it; `more` says the text may still grow.
    pub(crate) fn filter(&self, text: &str, more: bool) -> String {
        // Before matching: "sk-test\u{200B}-9Qe2Lm" reads as the key.
        let chars: Vec<char> = text.chars().filter(|&c| !is_invisible(c)).collect();
        let n = chars.len();
        let in_key = |piece: &[char]| self.key.windows(piece.len()).any(|w| w == piece);
        let ends_in_run = n >= self.run && self.runs.contains(&chars[n - self.run..]);
        let held = if more && !ends_in_run {
            (1..self.run.min(n + 1))
                .rev()
                .find(|&len| in_key(&chars[n - len..]))
                .unwrap_or(0)
        } else {
            0
        };
        let shown = &chars[..n - held];
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < shown.len() {
            let end = i + self.run;
            if end <= shown.len() && self.runs.contains(&shown[i..end]) {
                let mut end = end;
                while end < shown.len() && in_key(&shown[i..=end]) {
                    end += 1;
                }
                out.push_str("[redacted]");
                i = end;
            } else {
                out.push(shown[i]);
                i += 1;
            }
        }
        out
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(redacted)")
    }
}

/// Where the model is and how long it may take.
#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    /// Base URL up to and including `/v1` (or the full `/chat/completions` URL).
    pub base_url: String,
    /// The server-fixed model name; clients cannot choose it.
    pub model: String,
    /// `None` for a local server that needs no key.
    pub key: Option<ApiKey>,
    /// The server-fixed `max_tokens`.
    pub max_tokens: u32,
    /// TCP (and TLS) connect timeout.
    pub connect_timeout: Duration,
    /// From sending the request to the response headers, per attempt.
    pub response_timeout: Duration,
    /// Longest silence between two chunks of the body.
    pub idle_timeout: Duration,
    /// Wall-clock limit for the whole call, retries and stream included. An upstream that
    /// trickles a byte before every idle timeout still ends here.
    pub deadline: Duration,
    /// Cap on the model's text; the raw body may be 4× this (SSE framing) plus 64 KiB.
    pub max_output_bytes: usize,
    /// Retries after a 408, 429 or 5xx, never after a 2xx has started streaming.
    pub retries: u32,
    /// First backoff; doubles per retry, with 25 % jitter, up to `backoff_max`.
    pub backoff: Duration,
    /// Longest backoff.
    pub backoff_max: Duration,
    /// A `Retry-After` longer than this is not waited for: the call fails at once.
    pub max_retry_after: Duration,
}

/// What went wrong upstream, by kind only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpstreamError {
    /// Could not connect (refused, DNS, TLS).
    Unreachable,
    /// No response headers within the response timeout.
    Timeout,
    /// 401 or 403: the key is wrong or lacks access. Never retried.
    AuthFailed,
    /// 429 after the retries, or with a `Retry-After` too long to wait.
    RateLimited,
    /// 408 or 5xx after the retries.
    ServerError(u16),
    /// Another non-success status (400, 404, 422, …). Never retried.
    Refused(u16),
    /// The body broke off (reset) or could not be read.
    StreamBroken,
    /// No bytes for longer than the idle timeout.
    Stalled,
    /// The wall-clock deadline passed.
    Deadline,
    /// More output than the cap.
    TooLong,
    /// The body is not a chat completion (HTML, garbage, an `error` event).
    Garbage,
}

impl UpstreamError {
    /// A stable name for logs and the client.
    pub fn name(self) -> &'static str {
        match self {
            UpstreamError::Unreachable => "upstream-unreachable",
            UpstreamError::Timeout => "upstream-timeout",
            UpstreamError::AuthFailed => "upstream-auth-failed",
            UpstreamError::RateLimited => "upstream-rate-limited",
            UpstreamError::ServerError(_) => "upstream-server-error",
            UpstreamError::Refused(_) => "upstream-refused",
            UpstreamError::StreamBroken => "upstream-stream-broken",
            UpstreamError::Stalled => "upstream-stalled",
            UpstreamError::Deadline => "upstream-deadline",
            UpstreamError::TooLong => "upstream-output-too-long",
            UpstreamError::Garbage => "upstream-garbage",
        }
    }
}

impl fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpstreamError::ServerError(s) | UpstreamError::Refused(s) => {
                write!(f, "{} (HTTP {s})", self.name())
            }
            _ => f.write_str(self.name()),
        }
    }
}

/// The model's text and why it stopped.
#[derive(Debug)]
pub(crate) struct Completion {
    pub(crate) content: String,
    pub(crate) finish_reason: Option<String>,
}

/// Builds the HTTP client: rustls, no cookies, no redirects (a redirect could send the key
/// elsewhere), no system proxy for loopback upstreams.
pub(crate) fn client(cfg: &UpstreamConfig) -> anyhow::Result<reqwest::Client> {
    let mut builder = reqwest::Client::builder()
        .connect_timeout(cfg.connect_timeout)
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(256);
    if is_loopback(&cfg.base_url) {
        builder = builder.no_proxy();
    }
    // The builder's error names no URL or key.
    builder
        .build()
        .map_err(|e| anyhow::anyhow!("could not build the upstream HTTP client: {e}"))
}

fn is_loopback(url: &str) -> bool {
    let host = url
        .split("://")
        .nth(1)
        .unwrap_or(url)
        .split(['/', ':'])
        .next()
        .unwrap_or("");
    host == "localhost" || host.starts_with("127.") || url.contains("://[::1]")
}

/// The chat-completions URL for a base URL.
pub(crate) fn endpoint(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    if base.ends_with("/chat/completions") {
        base.to_string()
    } else {
        format!("{base}/chat/completions")
    }
}

/// Sends one chat completion request and reads the streamed reply. `on_text` sees the text so
/// far after every delta. The caller bounds the whole call with `cfg.deadline`.
pub(crate) async fn complete(
    client: &reqwest::Client,
    cfg: &UpstreamConfig,
    url: &str,
    body: Vec<u8>,
    mut on_text: impl AsyncText,
) -> Result<Completion, UpstreamError> {
    let mut attempt = 0;
    loop {
        let mut req = client
            .post(url)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "text/event-stream")
            .body(body.clone());
        if let Some(value) = cfg.key.as_ref().and_then(ApiKey::header) {
            req = req.header(AUTHORIZATION, value);
        }
        let resp = match timeout(cfg.response_timeout, req.send()).await {
            Err(_) => return Err(UpstreamError::Timeout),
            Ok(Err(e)) if e.is_timeout() => return Err(UpstreamError::Timeout),
            Ok(Err(e)) if e.is_connect() => return Err(UpstreamError::Unreachable),
            Ok(Err(_)) => return Err(UpstreamError::StreamBroken),
            Ok(Ok(resp)) => resp,
        };
        let status = resp.status().as_u16();
        if resp.status().is_success() {
            // From here on nothing is retried: the stream has begun.
            return read(resp, cfg, &mut on_text).await;
        }
        let failure = match status {
            401 | 403 => return Err(UpstreamError::AuthFailed),
            429 => UpstreamError::RateLimited,
            408 | 500..=599 => UpstreamError::ServerError(status),
            _ => return Err(UpstreamError::Refused(status)),
        };
        if attempt >= cfg.retries {
            return Err(failure);
        }
        let wait = match retry_after(resp.headers().get(RETRY_AFTER)) {
            Some(wait) if wait > cfg.max_retry_after => return Err(failure),
            Some(wait) => wait,
            None => backoff(cfg, attempt),
        };
        drop(resp);
        sleep(wait).await;
        attempt += 1;
    }
}

/// Receives the text so far. A trait rather than a closure so it can await (the SSE sink).
pub(crate) trait AsyncText {
    /// Called after each delta with all the text so far.
    fn text(&mut self, so_far: &str) -> impl std::future::Future<Output = ()> + Send;
}

/// Ignores provisional text (the JSON reply mode).
pub(crate) struct NoText;

impl AsyncText for NoText {
    async fn text(&mut self, _: &str) {}
}

fn retry_after(value: Option<&HeaderValue>) -> Option<Duration> {
    let secs: f64 = value?.to_str().ok()?.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs))
}

fn backoff(cfg: &UpstreamConfig, attempt: u32) -> Duration {
    let base = cfg
        .backoff
        .saturating_mul(1u32 << attempt.min(16))
        .min(cfg.backoff_max);
    // Jitter without a random-number crate: the clock's nanoseconds are unpredictable enough
    // to keep clients from retrying in lockstep.
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let jitter = 1.0 - 0.25 * f64::from(nanos % 1000) / 1000.0;
    base.mul_f64(jitter)
}

const MAX_LINE: usize = 64 * 1024;

async fn read(
    mut resp: reqwest::Response,
    cfg: &UpstreamConfig,
    on_text: &mut impl AsyncText,
) -> Result<Completion, UpstreamError> {
    let is_sse = resp
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let raw_cap = cfg
        .max_output_bytes
        .saturating_mul(4)
        .saturating_add(64 * 1024);
    let mut raw: Vec<u8> = Vec::new();
    let mut n_raw = 0usize;
    let mut out = Completion {
        content: String::new(),
        finish_reason: None,
    };
    let mut saw_data = false;
    loop {
        let chunk = match timeout(cfg.idle_timeout, resp.chunk()).await {
            Err(_) => return Err(UpstreamError::Stalled),
            Ok(Err(_)) => return Err(UpstreamError::StreamBroken),
            Ok(Ok(None)) => break,
            Ok(Ok(Some(chunk))) => chunk,
        };
        n_raw += chunk.len();
        if n_raw > raw_cap {
            return Err(UpstreamError::TooLong);
        }
        raw.extend_from_slice(&chunk);
        if !is_sse {
            continue;
        }
        while let Some(pos) = raw.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = raw.drain(..=pos).collect();
            match sse_line(&line, &mut out)? {
                Line::Done => return finish(out, saw_data),
                Line::Delta => {
                    saw_data = true;
                    if out.content.len() > cfg.max_output_bytes {
                        return Err(UpstreamError::TooLong);
                    }
                    on_text.text(&out.content).await;
                }
                Line::Other => {}
            }
        }
        if raw.len() > MAX_LINE {
            return Err(UpstreamError::Garbage);
        }
    }
    if is_sse {
        // A stream that ends without `[DONE]` is accepted if it ended cleanly.
        if !raw.is_empty() && matches!(sse_line(&raw, &mut out)?, Line::Delta) {
            saw_data = true;
        }
        return finish(out, saw_data);
    }
    // Some servers ignore `stream: true` and answer with one JSON completion.
    let whole: Whole = serde_json::from_slice(&raw).map_err(|_| UpstreamError::Garbage)?;
    let choice = whole
        .choices
        .into_iter()
        .next()
        .ok_or(UpstreamError::Garbage)?;
    let content = choice.message.content.unwrap_or_default();
    if content.len() > cfg.max_output_bytes {
        return Err(UpstreamError::TooLong);
    }
    Ok(Completion {
        content,
        finish_reason: choice.finish_reason,
    })
}

fn finish(out: Completion, saw_data: bool) -> Result<Completion, UpstreamError> {
    if saw_data {
        Ok(out)
    } else {
        Err(UpstreamError::Garbage)
    }
}

enum Line {
    Delta,
    Done,
    Other,
}

/// One SSE line. Comments, `event:` and blank lines are skipped; a `data:` line must be a
/// chat-completion chunk or `[DONE]`, and an `error` object ends the call.
fn sse_line(line: &[u8], out: &mut Completion) -> Result<Line, UpstreamError> {
    let line = std::str::from_utf8(line).map_err(|_| UpstreamError::Garbage)?;
    let line = line.trim_end_matches(['\n', '\r']);
    let Some(data) = line.strip_prefix("data:") else {
        return Ok(Line::Other);
    };
    let data = data.trim();
    if data == "[DONE]" {
        return Ok(Line::Done);
    }
    let chunk: Chunk = serde_json::from_str(data).map_err(|_| UpstreamError::Garbage)?;
    if chunk.error.is_some() {
        return Err(UpstreamError::Garbage);
    }
    let Some(choice) = chunk.choices.into_iter().next() else {
        return Ok(Line::Other);
    };
    if let Some(reason) = choice.finish_reason {
        out.finish_reason = Some(reason);
    }
    match choice.delta.and_then(|d| d.content) {
        Some(text) => {
            out.content.push_str(&text);
            Ok(Line::Delta)
        }
        None => Ok(Line::Other),
    }
}

// The provider's envelope is read leniently (providers add fields); the model's own reply is
// parsed strictly in `gate`.
#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Delta {
    content: Option<String>,
}

#[derive(Deserialize)]
struct Whole {
    choices: Vec<WholeChoice>,
}

#[derive(Deserialize)]
struct WholeChoice {
    message: Message,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Message {
    content: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KEY: &str = "sk-test-9Qe2Lm7Xv4Rb8Tn1Kc5Wd3Hy6Zp0Fs";

    fn longest_key_run(text: &str, key: &str) -> usize {
        let key: Vec<char> = key.chars().collect();
        let text: Vec<char> = text.chars().collect();
        (0..text.len())
            .flat_map(|i| (0..key.len()).map(move |j| (i, j)))
            .map(|(i, j)| {
                text[i..]
                    .iter()
                    .zip(&key[j..])
                    .take_while(|(a, b)| a == b)
                    .count()
            })
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn a_key_arriving_a_character_at_a_time_is_never_shown() {
        let filter = KeyFilter::new(&ApiKey::new(KEY.into())).unwrap();
        let text = format!("key: {KEY} end");
        let mut shown = Vec::new();
        for end in text.char_indices().map(|(i, _)| i).skip(1) {
            shown.push(filter.filter(&text[..end], true));
        }
        shown.push(filter.filter(&text, false));
        for s in &shown {
            assert!(longest_key_run(s, KEY) < 3, "{s:?}");
        }
        assert_eq!(shown.last().unwrap(), "key: [redacted] end");
        // A key shorter than the run is redacted whole, and only whole.
        let short = KeyFilter::new(&ApiKey::new("abc".into())).unwrap();
        assert_eq!(
            short.filter("ab abc abcabc", false),
            "ab [redacted] [redacted][redacted]"
        );
        assert!(KeyFilter::new(&ApiKey::new(String::new())).is_none());
    }

    // Issue 43: a model put U+200B or U+00AD between 7-character pieces of the key, and the
    // draft showed visitors the whole key.
    #[test]
    fn a_key_in_pieces_joined_by_invisible_characters_is_never_shown() {
        let filter = KeyFilter::new(&ApiKey::new(KEY.into())).unwrap();
        let key: Vec<char> = KEY.chars().collect();
        let separators = [
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{AD}',
            '\u{2060}',
            '\u{2061}',
            '\u{2062}',
            '\u{2063}',
            '\u{2064}',
            '\u{FEFF}',
            '\u{180E}',
            '\u{202A}',
            '\u{2066}',
            '\u{FE0F}',
            '\u{E0020}',
            '\u{7}',
        ];
        for sep in separators {
            let pieces: Vec<String> = key.chunks(7).map(|p| p.iter().collect()).collect();
            let text = format!("The key is {} today.", pieces.join(&sep.to_string()));
            let mut shown: Vec<String> = text
                .char_indices()
                .map(|(i, _)| filter.filter(&text[..i], true))
                .collect();
            shown.push(filter.filter(&text, false));
            for s in &shown {
                let seen: String = s.chars().filter(|&c| !is_invisible(c)).collect();
                assert!(
                    longest_key_run(&seen, KEY) < MIN_KEY_RUN,
                    "U+{:04X}: {s:?}",
                    sep as u32
                );
            }
            assert_eq!(
                shown.last().unwrap(),
                "The key is [redacted] today.",
                "U+{:04X}",
                sep as u32
            );
        }
    }

    proptest! {
        // Whatever the text around it and however it is cut, no draft holds eight characters
        // of the key in a row, and the finished text holds no piece of it that long either.
        #[test]
        fn no_draft_shows_a_run_of_the_key(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just(KEY.to_string()),
                    (0..KEY.len(), 1..KEY.len()).prop_map(|(a, n)| KEY[a..(a + n).min(KEY.len())].to_string()),
                    "[a-zA-Z0-9 .-]{0,12}",
                ],
                0..8,
            ),
            cuts in proptest::collection::vec(any::<usize>(), 0..20),
        ) {
            let filter = KeyFilter::new(&ApiKey::new(KEY.into())).unwrap();
            let text: String = parts.concat();
            let mut ends: Vec<usize> = cuts.iter().map(|c| c % (text.len() + 1)).collect();
            ends.sort_unstable();
            for end in ends {
                let shown = filter.filter(&text[..end], true);
                prop_assert!(longest_key_run(&shown, KEY) < MIN_KEY_RUN, "{:?}", shown);
            }
            let done = filter.filter(&text, false);
            prop_assert!(longest_key_run(&done, KEY) < MIN_KEY_RUN, "{:?}", done);
        }
    }
}
