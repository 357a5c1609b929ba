//! onrecord-proxy: the optional model-answer server. HTTP, limits and the model provider only.
//!
//! The browser sends `{indexVersion, corpusHash, question, fragments}` to `POST /v1/summary`;
//! the proxy checks them against its own copy of the index, builds the prompt from its own
//! fragment text, asks an OpenAI-compatible model for JSON, and returns only the quotes that
//! verify against the fragments that were sent ([`onrecord_core::verify_quote`]), taken from the
//! fragments' bytes. Everything decisive about quotes lives in the core; this crate adds the
//! network, the limits and the cache.

mod api;
mod cache;
mod gate;
mod limits;
mod listen;
mod prompt;
mod runlog;
mod server;
mod upstream;

use std::path::PathBuf;
use std::time::Duration;

pub use crate::api::{AskRequest, ClaimDto, SummaryDto};
pub use crate::limits::Rate;
pub use crate::prompt::PROMPT_VERSION;
pub use crate::server::Proxy;
pub use crate::upstream::{ApiKey, UpstreamConfig, UpstreamError};

/// Everything the proxy can be told. No `Default`: [`Config::standard`] names the production
/// values, and tests change the few they need.
#[derive(Debug, Clone)]
pub struct Config {
    /// The model server.
    pub upstream: UpstreamConfig,
    /// Each client address (an IPv6 /64).
    pub per_client: Rate,
    /// Upstream calls, all clients together.
    pub global: Rate,
    /// Clients tracked at once; beyond this, new clients are refused until old buckets refill.
    pub max_clients: usize,
    /// Upstream calls at once; more get 503 with `Retry-After`.
    pub max_in_flight: usize,
    /// Request body cap in bytes.
    pub max_body_bytes: usize,
    /// Time to receive the whole request body (a slow sender gets 408).
    pub body_timeout: Duration,
    /// Time to receive a request's headers, from the connection opening or the previous reply
    /// ending: a connection that stays silent (idle) or trickles its headers is closed.
    pub header_timeout: Duration,
    /// A reply the client leaves unread for this long (its window stays full) closes the
    /// connection, and ends the model call behind it.
    pub write_timeout: Duration,
    /// Open connections at once; a connection beyond this gets 503 and is closed.
    pub max_connections: usize,
    /// Open connections from one client address (an IPv6 /64); beyond this, 503 and closed.
    /// The last eighth of `max_connections` goes only to addresses with none open.
    pub max_connections_per_client: usize,
    /// Fragment ids per request.
    pub max_fragments: usize,
    /// Answer cache size; 0 turns the cache off.
    pub cache_bytes: usize,
    /// The one origin whose pages may read the responses (CORS); `None` sends no CORS headers.
    pub allow_origin: Option<String>,
    /// Where the JSON-lines run log goes; `None` keeps none.
    pub run_log: Option<PathBuf>,
}

impl Config {
    /// Production defaults around the given upstream.
    pub fn standard(upstream: UpstreamConfig) -> Config {
        Config {
            upstream,
            per_client: Rate {
                burst: 5,
                per_sec: 0.2,
            },
            global: Rate {
                burst: 60,
                per_sec: 2.0,
            },
            max_clients: 100_000,
            max_in_flight: 1024,
            max_body_bytes: 4096,
            body_timeout: Duration::from_secs(5),
            header_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(30),
            max_connections: 4096,
            // 512 addresses to fill every place, not 64 (issue 43); a browser opens at most 6.
            max_connections_per_client: 8,
            max_fragments: 8,
            cache_bytes: 16 << 20,
            allow_origin: None,
            run_log: None,
        }
    }
}

impl UpstreamConfig {
    /// Production timeouts and caps for a model at `base_url`.
    pub fn standard(base_url: String, model: String, key: Option<ApiKey>) -> UpstreamConfig {
        UpstreamConfig {
            base_url,
            model,
            key,
            max_tokens: 600,
            connect_timeout: Duration::from_secs(2),
            response_timeout: Duration::from_secs(20),
            idle_timeout: Duration::from_secs(15),
            deadline: Duration::from_secs(45),
            max_output_bytes: 8 * 1024,
            retries: 2,
            backoff: Duration::from_millis(500),
            backoff_max: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(20),
        }
    }
}
