//! Per-client rate limits on the calls that make state for everyone: creating a game and
//! registering an agent. Without them one client could fill the arena's `--max-games` and evict
//! other people's finished games, or fill every lobby. A token bucket per client address and
//! call: a client may burst up to the limit, then gets one call per 60 / limit seconds; past it,
//! `429 rate_limited` with `Retry-After` (whole seconds).
//!
//! The address is the TCP peer's: behind a reverse proxy every client shares the proxy's, and
//! the proxy should limit instead (docs/topology.md, "The arena").

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Buckets kept before the full ones (clients idle long enough to have refilled) are dropped.
const PRUNE_ABOVE: usize = 4096;

/// The limits of `coordinator arena` (calls per client address per minute; 0: unlimited).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimits {
    /// `POST /api/games` (`--games-per-minute`).
    pub games_per_minute: u32,
    /// `POST /api/games/{game_id}/agents/register` (`--registrations-per-minute`).
    pub registrations_per_minute: u32,
}

impl Default for RateLimits {
    fn default() -> RateLimits {
        RateLimits { games_per_minute: 20, registrations_per_minute: 120 }
    }
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// One call's limit: a bucket per client address.
#[derive(Debug)]
pub struct Limiter {
    per_minute: u32,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

impl Limiter {
    /// `per_minute` calls per address per minute, in bursts of as many; 0 is no limit.
    pub fn new(per_minute: u32) -> Limiter {
        Limiter { per_minute, buckets: Mutex::new(HashMap::new()) }
    }

    /// The limit (calls per address per minute; 0: none).
    pub fn per_minute(&self) -> u32 {
        self.per_minute
    }

    /// Takes one call for `client` at `now`; `Err(wait)` when its bucket is empty, with how long
    /// until it holds a call again.
    pub fn take(&self, client: IpAddr, now: Instant) -> Result<(), Duration> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let capacity = f64::from(self.per_minute);
        let per_second = capacity / 60.0;
        let refilled =
            |b: &Bucket| (b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * per_second).min(capacity);
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() > PRUNE_ABOVE {
            buckets.retain(|_, b| refilled(b) < capacity);
        }
        let bucket = buckets.entry(client).or_insert(Bucket { tokens: capacity, at: now });
        let tokens = refilled(bucket);
        if tokens >= 1.0 {
            *bucket = Bucket { tokens: tokens - 1.0, at: now };
            Ok(())
        } else {
            *bucket = Bucket { tokens, at: now };
            Err(Duration::from_secs_f64((1.0 - tokens) / per_second))
        }
    }
}

/// Whole seconds for `Retry-After`: rounded up, at least 1.
pub fn retry_after_seconds(wait: Duration) -> u64 {
    wait.as_secs_f64().ceil().max(1.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_bursts_to_the_limit_then_waits_while_others_are_served() {
        let limiter = Limiter::new(3);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(limiter.take(a, t0), Ok(()));
        }
        let wait = limiter.take(a, t0).unwrap_err();
        // One call per 20 s at 3 a minute.
        assert_eq!(retry_after_seconds(wait), 20);
        assert_eq!(limiter.take(b, t0), Ok(()));
        assert!(limiter.take(a, t0 + Duration::from_secs(19)).is_err());
        assert_eq!(limiter.take(a, t0 + Duration::from_secs(21)), Ok(()));
        assert!(Limiter::new(0).take(a, t0).is_ok());
    }

    #[test]
    fn idle_clients_are_forgotten() {
        let limiter = Limiter::new(60);
        let t0 = Instant::now();
        for i in 0..=PRUNE_ABOVE as u32 {
            limiter.take(IpAddr::from(i.to_be_bytes()), t0).unwrap();
        }
        // A minute later every bucket has refilled: the next call prunes them all but its own.
        limiter.take("10.0.0.9".parse().unwrap(), t0 + Duration::from_secs(61)).unwrap();
        assert_eq!(limiter.buckets.lock().unwrap().len(), 1);
    }
}
