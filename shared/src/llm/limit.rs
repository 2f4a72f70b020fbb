//! Per-endpoint rate limits: requests and tokens per minute for the whole fleet, and the pause
//! a 429's `Retry-After` asks for.
//!
//! A seat's `rpm` and `tpm` are the endpoint's limits for the *whole fleet*. Each process
//! enforces its share: the limits divided by the number of processes that share the endpoint
//! (the worker's `llm_fleet_workers`; 1 for `coordinator run`). A static split, not a budget
//! shared through NATS: it costs no round trip per call and has no single point of failure, and
//! a fleet that runs fewer workers than configured stays under the limit (set it to the most
//! workers that run at once, e.g. the autoscaler's maximum). What the split misses, the 429
//! handling of [`super::client`] absorbs.
//!
//! Each limit is a token bucket that refills continuously at `limit / 60` per second and holds
//! at most [`BURST`] worth of it (a full bucket admits any one call, however costly), so calls
//! are spread over the minute instead of spent in one burst. A call *reserves* its cost at once and learns how long
//! to wait ([`EndpointLimiter::reserve`]); the level may go below zero, so callers queue up in
//! the order they reserved. Tokens are reserved by estimate (a quarter of the prompt's
//! characters plus `max_tokens`) and settled with the usage the answer reports
//! ([`EndpointLimiter::settle`]). Everything here takes `now` as an argument: the arithmetic is
//! tested without waiting.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::ChatRequest;

/// The longest burst a bucket holds: this many seconds of its rate.
pub const BURST: Duration = Duration::from_secs(1);

/// An endpoint's limits, per minute, for the whole fleet. `None` = no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RateLimits {
    /// Requests per minute (`rpm`).
    pub requests_per_minute: Option<u32>,
    /// Prompt plus completion tokens per minute (`tpm`).
    pub tokens_per_minute: Option<u32>,
}

impl RateLimits {
    /// One process's share when `processes` share the endpoint (each limit divided, at least 1
    /// per minute).
    pub fn share(self, processes: u32) -> RateLimits {
        let n = processes.max(1);
        let part = |l: Option<u32>| l.map(|v| (v / n).max(1));
        RateLimits {
            requests_per_minute: part(self.requests_per_minute),
            tokens_per_minute: part(self.tokens_per_minute),
        }
    }

    /// The stricter of two limits, each kind on its own (two seats that give the same endpoint
    /// different limits get the smaller one).
    pub fn min(self, other: RateLimits) -> RateLimits {
        let min = |a: Option<u32>, b: Option<u32>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        RateLimits {
            requests_per_minute: min(self.requests_per_minute, other.requests_per_minute),
            tokens_per_minute: min(self.tokens_per_minute, other.tokens_per_minute),
        }
    }
}

/// The tokens a request is expected to cost before its answer says: a quarter of the prompt's
/// characters plus the completion cap.
pub fn estimated_tokens(request: &ChatRequest) -> u64 {
    let chars: usize = request.messages.iter().map(|m| m.content.chars().count()).sum();
    (chars as u64).div_ceil(4) + u64::from(request.max_tokens)
}

/// One token bucket.
#[derive(Clone, Debug)]
struct Bucket {
    per_second: f64,
    level: f64,
    updated: Instant,
}

impl Bucket {
    fn new(per_minute: u32, now: Instant) -> Bucket {
        let per_second = f64::from(per_minute) / 60.0;
        Bucket { per_second, level: per_second * BURST.as_secs_f64(), updated: now }
    }

    fn capacity(&self) -> f64 {
        self.per_second * BURST.as_secs_f64()
    }

    /// Refills up to the burst.
    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        self.level = (self.level + elapsed * self.per_second).min(self.capacity());
        self.updated = self.updated.max(now);
    }

    /// Takes `cost` now; returns how long the caller must wait for the level to have covered it.
    /// A full bucket admits any one call at once (a call may cost more than the burst holds).
    fn reserve(&mut self, now: Instant, cost: f64) -> Duration {
        self.refill(now);
        let full = self.level >= self.capacity();
        let short = if full { 0.0 } else { cost - self.level };
        self.level -= cost;
        if short <= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(short / self.per_second)
        }
    }
}

/// The limits and buckets of one endpoint in this process.
#[derive(Clone, Debug)]
pub struct EndpointLimiter {
    limits: RateLimits,
    requests: Option<Bucket>,
    tokens: Option<Bucket>,
    paused_until: Option<Instant>,
}

impl EndpointLimiter {
    /// A limiter for this process's share `limits`.
    pub fn new(limits: RateLimits, now: Instant) -> EndpointLimiter {
        EndpointLimiter {
            limits,
            requests: limits.requests_per_minute.map(|l| Bucket::new(l, now)),
            tokens: limits.tokens_per_minute.map(|l| Bucket::new(l, now)),
            paused_until: None,
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> RateLimits {
        self.limits
    }

    /// Reserves one request of `tokens` estimated tokens at `now`; returns how long to wait
    /// before sending it.
    pub fn reserve(&mut self, now: Instant, tokens: u64) -> Duration {
        let r = self.requests.as_mut().map_or(Duration::ZERO, |b| b.reserve(now, 1.0));
        let t = self.tokens.as_mut().map_or(Duration::ZERO, |b| b.reserve(now, tokens as f64));
        let paused = self.paused_until.map_or(Duration::ZERO, |until| until.saturating_duration_since(now));
        r.max(t).max(paused)
    }

    /// Corrects a reservation of `estimated` tokens by what the answer reported (`actual`):
    /// refunds an overestimate, charges an underestimate.
    pub fn settle(&mut self, estimated: u64, actual: u64) {
        if let Some(b) = self.tokens.as_mut() {
            b.level += estimated as f64 - actual as f64;
        }
    }

    /// Holds every call until `until` (the server answered 429 with `Retry-After`).
    pub fn pause(&mut self, until: Instant) {
        self.paused_until = Some(self.paused_until.map_or(until, |p| p.max(until)));
    }
}

/// Every endpoint's limiter in this process, keyed by endpoint URL. `processes` is how many
/// processes share each endpoint's fleet-wide limits.
#[derive(Debug)]
pub struct RateLimiter {
    processes: u32,
    endpoints: Mutex<HashMap<String, EndpointLimiter>>,
}

impl RateLimiter {
    /// A limiter enforcing `1 / processes` of each endpoint's limits.
    pub fn new(processes: u32) -> RateLimiter {
        RateLimiter { processes: processes.max(1), endpoints: Mutex::new(HashMap::new()) }
    }

    fn key(endpoint: &str) -> &str {
        endpoint.trim_end_matches('/')
    }

    /// Reserves `request` (one request, its estimated tokens) and returns the wait before it
    /// may go. Requests without limits to endpoints never paused return at once, lock-free of
    /// any other endpoint's state.
    pub fn reserve(&self, request: &ChatRequest, now: Instant) -> Duration {
        let share = request.limits.share(self.processes);
        let mut endpoints = self.endpoints.lock().unwrap_or_else(|p| p.into_inner());
        let key = RateLimiter::key(&request.endpoint);
        if share == RateLimits::default() && !endpoints.contains_key(key) {
            return Duration::ZERO;
        }
        let limiter = endpoints.entry(key.to_string()).or_insert_with(|| EndpointLimiter::new(share, now));
        if share != RateLimits::default() && limiter.limits() != limiter.limits().min(share) {
            let paused = limiter.paused_until;
            *limiter = EndpointLimiter::new(limiter.limits().min(share), now);
            limiter.paused_until = paused;
        }
        limiter.reserve(now, estimated_tokens(request))
    }

    /// Settles `request`'s token estimate with the `actual` tokens its answer reported.
    pub fn settle(&self, request: &ChatRequest, actual: u64) {
        let mut endpoints = self.endpoints.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(l) = endpoints.get_mut(RateLimiter::key(&request.endpoint)) {
            l.settle(estimated_tokens(request), actual);
        }
    }

    /// Pauses every call to `endpoint` until `until`.
    pub fn pause(&self, endpoint: &str, until: Instant) {
        let mut endpoints = self.endpoints.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        endpoints
            .entry(RateLimiter::key(endpoint).to_string())
            .or_insert_with(|| EndpointLimiter::new(RateLimits::default(), now))
            .pause(until);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn requests_are_spread_over_the_minute_after_a_one_second_burst() {
        let t0 = Instant::now();
        // 600 per minute = 10 per second; the burst holds one second's worth.
        let mut l = EndpointLimiter::new(RateLimits { requests_per_minute: Some(600), tokens_per_minute: None }, t0);
        let waits: Vec<Duration> = (0..13).map(|_| l.reserve(t0, 0)).collect();
        assert!(waits[..10].iter().all(|w| *w == Duration::ZERO), "{waits:?}");
        // The 11th waits for one refill (100 ms), the 12th for two, in reservation order.
        assert_eq!(&waits[10..], [ms(100), ms(200), ms(300)]);
        // A second later the level has come back to -3 + 10 = 7 calls.
        let later = t0 + Duration::from_secs(1);
        let waits: Vec<Duration> = (0..8).map(|_| l.reserve(later, 0)).collect();
        assert_eq!(waits.iter().filter(|w| w.is_zero()).count(), 7);
    }

    #[test]
    fn tokens_are_reserved_by_estimate_and_settled_by_usage() {
        let t0 = Instant::now();
        // 6000 tokens per minute = 100 per second; a call estimated at 150 tokens.
        let mut l = EndpointLimiter::new(RateLimits { requests_per_minute: None, tokens_per_minute: Some(6000) }, t0);
        assert_eq!(l.reserve(t0, 150), Duration::ZERO, "a full bucket admits a call bigger than the burst");
        assert_eq!(l.reserve(t0, 150), ms(2000), "the next waits until the level (-50) covers 150 at 100/s");
        // Both answers used 50 tokens: 200 refunded, so the level is back to 0 (from -200).
        l.settle(150, 50);
        l.settle(150, 50);
        assert_eq!(l.reserve(t0, 100), ms(1000));
    }

    #[test]
    fn a_pause_holds_every_call_and_limits_split_across_processes() {
        let t0 = Instant::now();
        let mut l = EndpointLimiter::new(RateLimits::default(), t0);
        l.pause(t0 + ms(800));
        l.pause(t0 + ms(300));
        assert_eq!(l.reserve(t0 + ms(200), 10), ms(600));
        assert_eq!(l.reserve(t0 + ms(900), 10), Duration::ZERO);
        let fleet = RateLimits { requests_per_minute: Some(1000), tokens_per_minute: Some(3) };
        assert_eq!(fleet.share(4), RateLimits { requests_per_minute: Some(250), tokens_per_minute: Some(1) });
        let other = RateLimits { requests_per_minute: Some(500), tokens_per_minute: None };
        assert_eq!(fleet.min(other), RateLimits { requests_per_minute: Some(500), tokens_per_minute: Some(3) });
    }

    #[test]
    fn the_registry_keys_endpoints_and_leaves_unlimited_ones_alone() {
        let limiter = RateLimiter::new(2);
        let mut request = ChatRequest {
            endpoint: "http://a/v1/".into(),
            model: "m".into(),
            messages: vec![super::super::ChatMessage { role: "user".into(), content: "x".repeat(400) }],
            temperature: 0.0,
            max_tokens: 100,
            api_key: None,
            timeout: Duration::from_secs(1),
            seat: 0,
            attempt: 0,
            limits: RateLimits::default(),
        };
        assert_eq!(estimated_tokens(&request), 200);
        let t0 = Instant::now();
        assert_eq!(limiter.reserve(&request, t0), Duration::ZERO);
        assert!(limiter.endpoints.lock().unwrap().is_empty(), "no state for an unlimited endpoint");
        // 120 per minute for the fleet, 60 for each of the two processes: one per second.
        request.limits.requests_per_minute = Some(120);
        assert_eq!(limiter.reserve(&request, t0), Duration::ZERO);
        request.endpoint = "http://a/v1".into();
        assert_eq!(limiter.reserve(&request, t0), ms(1000), "the same endpoint with or without a slash");
    }
}
