//! The `onrecord-proxy` binary: reads the index and the key, then serves `POST /v1/summary`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Parser;
use onrecord_proxy::{ApiKey, Config, Proxy, Rate, UpstreamConfig};

/// Serves `POST /v1/summary` next to a site: asks an OpenAI-compatible model about fragments of
/// the site's own index and returns only the quotes that verify against them.
///
/// Every limit left out keeps its default, as `Config::standard` sets it.
#[derive(Parser)]
#[command(
    name = "onrecord-proxy",
    // A flag given twice keeps its last value, as the hand-written parser did.
    args_override_self = true,
    after_help = "Request bodies: at most 4096 bytes (413), all of it within 5 seconds (408)."
)]
struct Cli {
    /// The index the site serves: its index.onr (www/dist/index.onr), or a sharded index's
    /// manifest.onr or folder (shards read beside it).
    #[arg(long, value_name = "PATH")]
    index: PathBuf,
    /// OpenAI-compatible base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1
    /// (Ollama).
    #[arg(long, value_name = "URL")]
    upstream: String,
    /// The model every request uses.
    #[arg(long, value_name = "NAME")]
    model: String,
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8787")]
    listen: SocketAddr,
    /// Environment variable holding the API key (its value is never printed).
    #[arg(long, value_name = "NAME", default_value = "ONRECORD_UPSTREAM_KEY")]
    key_env: String,
    /// The upstream needs no key (a local server).
    #[arg(long)]
    no_key: bool,
    /// The site origin whose pages may call the proxy (CORS).
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Option<String>,
    /// Append one JSON line per question (no addresses, no keys).
    #[arg(long, value_name = "FILE")]
    run_log: Option<PathBuf>,
    /// Tokens the model may write per answer (default 600).
    #[arg(long, value_name = "N")]
    max_tokens: Option<u32>,
    /// Wall-clock limit per model call, in seconds (default 45).
    #[arg(long, value_name = "N")]
    deadline_secs: Option<u64>,
    /// Per-address burst/refill per second (default 5/0.2).
    #[arg(long, value_name = "N/S", value_parser = rate)]
    client_rate: Option<Rate>,
    /// Upstream calls, all clients: burst/refill per second (default 60/2).
    #[arg(long, value_name = "N/S", value_parser = rate)]
    global_rate: Option<Rate>,
    /// Model calls at once (default 1024).
    #[arg(long, value_name = "N")]
    max_in_flight: Option<usize>,
    /// Answer every question afresh.
    #[arg(long)]
    no_cache: bool,
    /// Open connections at once (default 4096).
    #[arg(long, value_name = "N", value_parser = positive::<usize>, help_heading = CONNECTIONS)]
    max_connections: Option<usize>,
    /// Open connections from one address, an IPv6 /64 (default 8); a connection beyond either
    /// cap gets 503 with Retry-After and is closed.
    #[arg(long, value_name = "N", value_parser = positive::<usize>, help_heading = CONNECTIONS)]
    max_connections_per_client: Option<usize>,
    /// A request's headers must arrive within N seconds of connecting or of the previous reply,
    /// else the connection is closed: idle and slow-header (slowloris) connections end there
    /// (default 10).
    #[arg(long, value_name = "N", value_parser = positive::<u64>, help_heading = CONNECTIONS)]
    header_timeout_secs: Option<u64>,
    /// A reply the client leaves unread for N seconds closes the connection and ends the model
    /// call (default 30).
    #[arg(long, value_name = "N", value_parser = positive::<u64>, help_heading = CONNECTIONS)]
    write_timeout_secs: Option<u64>,
}

const CONNECTIONS: &str = "Connections (HTTP/1.1 only; HTTP/2 without TLS is not spoken)";

impl Cli {
    /// The proxy's configuration: `Config::standard` with what was given, and the key read from
    /// the variable `--key-env` names.
    fn config(self) -> Result<Config> {
        let key = if self.no_key {
            None
        } else {
            // The key's value never appears in a message, only the variable's name.
            match std::env::var(&self.key_env) {
                Ok(k) if !k.trim().is_empty() => Some(ApiKey::new(k.trim().to_string())),
                _ => bail!(
                    "the API key variable {} is missing or empty (use --no-key for a local server that needs none)",
                    self.key_env
                ),
            }
        };
        let mut cfg = Config::standard(UpstreamConfig::standard(self.upstream, self.model, key));
        if self.no_cache {
            cfg.cache_bytes = 0;
        }
        cfg.allow_origin = self.allow_origin;
        cfg.run_log = self.run_log;
        if let Some(n) = self.max_tokens {
            cfg.upstream.max_tokens = n;
        }
        if let Some(secs) = self.deadline_secs {
            cfg.upstream.deadline = Duration::from_secs(secs);
        }
        if let Some(rate) = self.client_rate {
            cfg.per_client = rate;
        }
        if let Some(rate) = self.global_rate {
            cfg.global = rate;
        }
        if let Some(n) = self.max_in_flight {
            cfg.max_in_flight = n;
        }
        if let Some(n) = self.max_connections {
            cfg.max_connections = n;
        }
        if let Some(n) = self.max_connections_per_client {
            cfg.max_connections_per_client = n;
        }
        if let Some(secs) = self.header_timeout_secs {
            cfg.header_timeout = Duration::from_secs(secs);
        }
        if let Some(secs) = self.write_timeout_secs {
            cfg.write_timeout = Duration::from_secs(secs);
        }
        Ok(cfg)
    }
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let index = cli.index.clone();
    let listen = cli.listen;
    let cfg = cli.config()?;
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
fn positive<T: std::str::FromStr + PartialOrd + From<u8>>(value: &str) -> Result<T, String> {
    value
        .parse()
        .ok()
        .filter(|n: &T| *n > T::from(0))
        .ok_or_else(|| "not a whole number above zero".to_string())
}

/// A bucket as `BURST/PER_SEC`: a whole number, then a rate per second of zero or more.
fn rate(value: &str) -> Result<Rate, String> {
    let bad = || "not BURST/PER_SEC (a whole number, then a rate per second of zero or more)";
    let (burst, per_sec) = value.split_once('/').ok_or_else(bad)?;
    Ok(Rate {
        burst: burst.parse().map_err(|_| bad())?,
        per_sec: per_sec
            .parse()
            .ok()
            .filter(|r: &f64| r.is_finite() && *r >= 0.0)
            .ok_or_else(bad)?,
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_arguments_are_consistent() {
        Cli::command().debug_assert();
    }

    /// The defaults the help states are the ones `Config::standard` applies.
    #[test]
    fn the_help_states_the_standard_defaults() {
        let cfg = Config::standard(UpstreamConfig::standard(String::new(), String::new(), None));
        let help = Cli::command().render_long_help().to_string();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        let rate = |r: Rate| format!("{}/{}", r.burst, r.per_sec);
        for default in [
            cfg.upstream.max_tokens.to_string(),
            cfg.upstream.deadline.as_secs().to_string(),
            rate(cfg.per_client),
            rate(cfg.global),
            cfg.max_in_flight.to_string(),
            cfg.max_connections.to_string(),
            cfg.max_connections_per_client.to_string(),
            cfg.header_timeout.as_secs().to_string(),
            cfg.write_timeout.as_secs().to_string(),
        ] {
            assert!(
                help.contains(&format!("(default {default})")),
                "{default}: {help}"
            );
        }
        assert!(
            help.contains(&format!("at most {} bytes", cfg.max_body_bytes)),
            "{help}"
        );
        assert!(
            help.contains(&format!("within {} seconds", cfg.body_timeout.as_secs())),
            "{help}"
        );
    }

    #[test]
    fn bad_values_are_refused_naming_the_flag_and_the_value() {
        let base = [
            "onrecord-proxy",
            "--index",
            "i",
            "--upstream",
            "u",
            "--model",
            "m",
        ];
        for (flag, value) in [
            ("--max-connections", "0"),
            ("--header-timeout-secs", "-1"),
            ("--write-timeout-secs", "x"),
            ("--client-rate", "5"),
            ("--global-rate", "5/-1"),
            ("--global-rate", "5/inf"),
            ("--listen", "localhost"),
            ("--max-tokens", "many"),
        ] {
            let arg = format!("{flag}={value}");
            let mut args = base.to_vec();
            args.push(&arg);
            let err = match Cli::try_parse_from(&args) {
                Ok(_) => panic!("{flag} {value} was taken"),
                Err(e) => e.to_string(),
            };
            assert!(
                err.contains(flag) && err.contains(&format!("'{value}'")),
                "{err}"
            );
        }
        let cli = Cli::try_parse_from(
            base.iter()
                .chain(&["--client-rate", "1000/1000", "--max-connections", "3"])
                .chain(&["--max-connections", "4", "--no-key", "--no-key"]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let cfg = cli.config().unwrap();
        assert_eq!(
            (cfg.per_client.burst, cfg.per_client.per_sec),
            (1000, 1000.0)
        );
        assert_eq!(cfg.max_connections, 4, "the last value given wins");
        assert!(cfg.upstream.key.is_none());
    }
}
