//! Rate limits: a token bucket per client address and one for everyone, each answering with
//! how long to wait; and the count of open connections, in all and per client address.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A bucket's size and refill rate.
#[derive(Debug, Clone, Copy)]
pub struct Rate {
    /// Requests allowed at once.
    pub burst: u32,
    /// Requests added back per second.
    pub per_sec: f64,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn full(rate: Rate, now: Instant) -> Bucket {
        Bucket {
            tokens: f64::from(rate.burst),
            at: now,
        }
    }

    /// Takes one token, or says how long until one is there.
    fn take(&mut self, rate: Rate, now: Instant) -> Result<(), Duration> {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed * rate.per_sec).min(f64::from(rate.burst));
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else if rate.per_sec > 0.0 {
            Err(Duration::from_secs_f64((1.0 - self.tokens) / rate.per_sec))
        } else {
            Err(Duration::from_secs(3600))
        }
    }

    fn is_full(&self, rate: Rate, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens + elapsed * rate.per_sec >= f64::from(rate.burst)
    }
}

/// Per-client buckets, keyed by the peer address (an IPv6 client by its /64, which one
/// subscriber typically holds whole). Forwarded-for headers are not trusted.
pub(crate) struct Limiter {
    per_client: Rate,
    max_clients: usize,
    clients: Mutex<HashMap<IpAddr, Bucket>>,
    global: Rate,
    global_bucket: Mutex<Bucket>,
}

impl Limiter {
    pub(crate) fn new(per_client: Rate, global: Rate, max_clients: usize) -> Limiter {
        let now = Instant::now();
        Limiter {
            per_client,
            max_clients,
            clients: Mutex::new(HashMap::new()),
            global,
            global_bucket: Mutex::new(Bucket::full(global, now)),
        }
    }

    /// Charges one request to a client.
    pub(crate) fn client(&self, ip: IpAddr) -> Result<(), Duration> {
        let now = Instant::now();
        let key = client_key(ip);
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if !clients.contains_key(&key) && clients.len() >= self.max_clients {
            // Forget clients whose buckets have refilled: they hold no state worth keeping.
            let rate = self.per_client;
            clients.retain(|_, b| !b.is_full(rate, now));
            if clients.len() >= self.max_clients {
                // Still full of active clients: fail closed rather than grow without bound.
                return Err(Duration::from_secs(1));
            }
        }
        clients
            .entry(key)
            .or_insert_with(|| Bucket::full(self.per_client, now))
            .take(self.per_client, now)
    }

    /// Charges one upstream call to the global budget.
    pub(crate) fn global(&self) -> Result<(), Duration> {
        let mut bucket = self.global_bucket.lock().unwrap_or_else(|p| p.into_inner());
        bucket.take(self.global, Instant::now())
    }

    #[cfg(test)]
    fn n_clients(&self) -> usize {
        self.clients.lock().map(|c| c.len()).unwrap_or(0)
    }
}

/// Open connections, in all and per client address (keyed as for the rate limits).
pub(crate) struct Connections {
    max: usize,
    max_per_client: usize,
    open: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// One open connection's place; dropping it gives the place back.
pub(crate) struct Slot {
    connections: Arc<Connections>,
    key: IpAddr,
}

impl Connections {
    pub(crate) fn new(max: usize, max_per_client: usize) -> Arc<Connections> {
        Arc::new(Connections {
            max,
            max_per_client,
            open: Mutex::new((0, HashMap::new())),
        })
    }

    /// A place for a new connection from `ip`, or `None` when it would pass either cap. The
    /// last eighth of the places goes only to addresses with none open, so addresses that
    /// each hold their share cannot keep a new one out. The map holds only addresses with
    /// open connections, so it never outgrows `max`.
    pub(crate) fn open(self: &Arc<Self>, ip: IpAddr) -> Option<Slot> {
        let key = client_key(ip);
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let (total, per_client) = &mut *open;
        let mine = per_client.get(&key).copied().unwrap_or(0);
        let reserved = self.max - self.max / 8;
        if *total >= self.max || mine >= self.max_per_client || (mine > 0 && *total >= reserved) {
            return None;
        }
        *total += 1;
        per_client.insert(key, mine + 1);
        Some(Slot {
            connections: self.clone(),
            key,
        })
    }

    /// Connections open now.
    #[cfg(test)]
    fn count(&self) -> usize {
        self.open.lock().map(|o| o.0).unwrap_or(0)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self
            .connections
            .open
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let (total, per_client) = &mut *open;
        *total = total.saturating_sub(1);
        if let Some(n) = per_client.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                per_client.remove(&self.key);
            }
        }
    }
}

fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut s = v6.segments();
                s[4..].fill(0);
                IpAddr::V6(s.into())
            }
        },
    }
}

/// Seconds for a `Retry-After` header: whole seconds, rounded up, at least 1.
pub(crate) fn retry_after_secs(wait: Duration) -> u64 {
    wait.as_secs_f64().ceil().max(1.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIGHT: Rate = Rate {
        burst: 2,
        per_sec: 0.5,
    };
    const LOOSE: Rate = Rate {
        burst: 1000,
        per_sec: 1000.0,
    };

    #[test]
    fn burst_then_wait_per_client_and_others_unaffected() {
        let l = Limiter::new(TIGHT, LOOSE, 100);
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        assert!(l.client(a).is_ok() && l.client(a).is_ok());
        let wait = l.client(a).unwrap_err();
        assert!(wait > Duration::from_millis(1500) && wait <= Duration::from_secs(2));
        assert_eq!(retry_after_secs(wait), 2);
        assert!(l.client("127.0.0.2".parse().unwrap()).is_ok());
    }

    #[test]
    fn ipv6_clients_share_their_64() {
        let l = Limiter::new(TIGHT, LOOSE, 100);
        for host in ["2001:db8::1", "2001:db8::2"] {
            assert!(l.client(host.parse().unwrap()).is_ok());
        }
        assert!(l.client("2001:db8::ffff".parse().unwrap()).is_err());
        assert!(l.client("2001:db8:0:1::1".parse().unwrap()).is_ok());
    }

    #[test]
    fn the_global_bucket_limits_everyone() {
        let l = Limiter::new(LOOSE, TIGHT, 100);
        assert!(l.global().is_ok() && l.global().is_ok());
        assert!(l.global().is_err());
    }

    #[test]
    fn connection_places_are_capped_in_all_and_per_client_and_given_back() {
        let c = Connections::new(3, 2);
        let a: IpAddr = "2001:db8::1".parse().unwrap();
        let a2: IpAddr = "2001:db8::2".parse().unwrap();
        let b: IpAddr = "192.0.2.1".parse().unwrap();
        let first = c.open(a).unwrap();
        let _second = c.open(a2).unwrap();
        assert!(c.open(a).is_none(), "the /64 has its two");
        let _third = c.open(b).unwrap();
        assert!(
            c.open("192.0.2.2".parse().unwrap()).is_none(),
            "three in all"
        );
        assert_eq!(c.count(), 3);
        drop(first);
        assert_eq!(c.count(), 2);
        assert!(c.open(a).is_some());
    }

    // Issue 43: with the standard caps, 64 addresses each holding all the connections it may
    // (reconnecting as the header timeout closes them) kept every other address at 503.
    #[test]
    fn addresses_at_their_cap_leave_places_for_another() {
        let up = crate::UpstreamConfig::standard(String::new(), String::new(), None);
        let cfg = crate::Config::standard(up);
        let c = Connections::new(cfg.max_connections, cfg.max_connections_per_client);
        let mut held = Vec::new();
        for a in 0..64u32 {
            let ip = IpAddr::V4((0x0a00_0000 + a).into());
            while let Some(slot) = c.open(ip) {
                held.push(slot);
            }
        }
        assert!(c.open("192.0.2.1".parse().unwrap()).is_some());
        // However many addresses take their share, the reserve is left to new ones.
        let c = Connections::new(16, 8);
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let mut held: Vec<Slot> = (0..8).filter_map(|_| c.open(a)).collect();
        held.extend((0..8).filter_map(|_| c.open(b)));
        assert_eq!(c.count(), 14, "two places kept back");
        assert!(c.open("192.0.2.3".parse().unwrap()).is_some());
    }

    #[test]
    fn client_state_stays_bounded() {
        let l = Limiter::new(
            Rate {
                burst: 1,
                per_sec: 1e9,
            },
            LOOSE,
            1000,
        );
        for i in 0..100_000u32 {
            let _ = l.client(IpAddr::V4(i.into()));
        }
        assert!(l.n_clients() <= 1000, "{}", l.n_clients());
    }
}
