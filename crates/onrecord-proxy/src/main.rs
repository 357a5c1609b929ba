//! The `onrecord-proxy` binary: reads the index and the key, then serves `POST /v1/summary`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use onrecord_proxy::{ApiKey, Config, Proxy, Rate, UpstreamConfig};

const USAGE: &str = "usage: onrecord-proxy --index PATH --upstream URL --model NAME [options]

  --index PATH           the index the site serves: its index.onr (www/dist/index.onr), or a
                         sharded index's manifest.onr or folder (shards read beside it)
  --upstream URL         OpenAI-compatible base URL, e.g. https://api.openai.com/v1 or
                         http://127.0.0.1:11434/v1 (Ollama)
  --model NAME           the model every request uses
  --listen ADDR          address to listen on (default 127.0.0.1:8787)
  --key-env NAME         environment variable holding the API key (default ONRECORD_UPSTREAM_KEY)
  --no-key               the upstream needs no key (a local server)
  --allow-origin ORIGIN  the site origin whose pages may call the proxy (CORS)
  --run-log FILE         append one JSON line per question (no addresses, no keys)
  --max-tokens N         (default 600)
  --deadline-secs N      wall-clock limit per model call (default 45)
  --client-rate N/S      per-address burst/refill per second (default 5/0.2)
  --global-rate N/S      upstream calls, all clients (default 60/2)
  --max-in-flight N      model calls at once (default 1024)
  --no-cache             answer every question afresh

Connections (HTTP/1.1 only; HTTP/2 without TLS is not spoken):
  --max-connections N    open connections at once (default 4096)
  --max-connections-per-client N
                         open connections from one address, an IPv6 /64 (default 8);
                         a connection beyond either cap gets 503 with Retry-After and is closed
  --header-timeout-secs N
                         a request's headers must arrive within N seconds of connecting or of
                         the previous reply, else the connection is closed: idle and
                         slow-header (slowloris) connections end there (default 10)
  --write-timeout-secs N a reply the client leaves unread for N seconds closes the connection
                         and ends the model call (default 30)
  Request bodies: at most 4096 bytes (413), all of it within 5 seconds (408).";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(());
    }
    let mut index = None;
    let mut base_url = None;
    let mut model = None;
    let mut listen: SocketAddr = "127.0.0.1:8787".parse()?;
    let mut key_env = "ONRECORD_UPSTREAM_KEY".to_string();
    let mut no_key = false;
    let mut extra: Vec<(String, String)> = Vec::new();
    let mut flags: Vec<String> = Vec::new();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        if matches!(arg.as_str(), "--no-key" | "--no-cache") {
            flags.push(arg);
            continue;
        }
        let value = it
            .next()
            .with_context(|| format!("{arg} needs a value\n\n{USAGE}"))?;
        match arg.as_str() {
            "--index" => index = Some(PathBuf::from(value)),
            "--upstream" => base_url = Some(value),
            "--model" => model = Some(value),
            "--listen" => listen = value.parse().with_context(|| format!("--listen {value}"))?,
            "--key-env" => key_env = value,
            _ => extra.push((arg, value)),
        }
    }
    no_key |= flags.iter().any(|f| f == "--no-key");
    let (Some(index), Some(base_url), Some(model)) = (index, base_url, model) else {
        bail!("--index, --upstream and --model are required\n\n{USAGE}");
    };
    let key = if no_key {
        None
    } else {
        // The key's value never appears in a message, only the variable's name.
        match std::env::var(&key_env) {
            Ok(k) if !k.trim().is_empty() => Some(ApiKey::new(k.trim().to_string())),
            _ => bail!(
                "the API key variable {key_env} is missing or empty (use --no-key for a local server that needs none)"
            ),
        }
    };
    let mut cfg = Config::standard(UpstreamConfig::standard(base_url, model, key));
    if flags.iter().any(|f| f == "--no-cache") {
        cfg.cache_bytes = 0;
    }
    for (arg, value) in extra {
        let bad = || format!("{arg} {value}: not a valid value");
        match arg.as_str() {
            "--allow-origin" => cfg.allow_origin = Some(value),
            "--run-log" => cfg.run_log = Some(PathBuf::from(value)),
            "--max-tokens" => cfg.upstream.max_tokens = value.parse().with_context(bad)?,
            "--deadline-secs" => {
                cfg.upstream.deadline = Duration::from_secs(value.parse().with_context(bad)?)
            }
            "--client-rate" => cfg.per_client = rate(&value).with_context(bad)?,
            "--global-rate" => cfg.global = rate(&value).with_context(bad)?,
            "--max-in-flight" => cfg.max_in_flight = value.parse().with_context(bad)?,
            "--max-connections" => cfg.max_connections = positive(&value).with_context(bad)?,
            "--max-connections-per-client" => {
                cfg.max_connections_per_client = positive(&value).with_context(bad)?
            }
            "--header-timeout-secs" => {
                cfg.header_timeout = Duration::from_secs(positive(&value).with_context(bad)?)
            }
            "--write-timeout-secs" => {
                cfg.write_timeout = Duration::from_secs(positive(&value).with_context(bad)?)
            }
            _ => bail!("unknown option {arg}\n\n{USAGE}"),
        }
    }
    let loaded = onrecord_files::load_index(&index).context("the index does not load")?;
    let proxy =
        Proxy::with_index(loaded, cfg).with_context(|| format!("loading {}", index.display()))?;
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("listening on {listen}"))?;
        eprintln!(
            "onrecord-proxy: serving POST http://{}/v1/summary for corpus {}",
            listener.local_addr()?,
            proxy.corpus_hash()
        );
        proxy
            .serve(listener, shutdown_signal())
            .await
            .context("serving")
    })
}

/// A whole number above zero (a zero cap or timeout would refuse everything at once).
fn positive<T: std::str::FromStr + PartialOrd + From<u8>>(value: &str) -> Option<T> {
    value.parse().ok().filter(|n: &T| *n > T::from(0))
}

fn rate(value: &str) -> Option<Rate> {
    let (burst, per_sec) = value.split_once('/')?;
    Some(Rate {
        burst: burst.parse().ok()?,
        per_sec: per_sec
            .parse()
            .ok()
            .filter(|r: &f64| r.is_finite() && *r >= 0.0)?,
    })
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}
