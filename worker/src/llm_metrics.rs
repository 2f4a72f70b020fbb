//! Counting model calls as they happen: [`MeteredTransport`] wraps the worker's HTTP transport
//! for one game and records every call's outcome, tokens and latency, labelled by game, model
//! and endpoint host (the label never carries a path, a query or credentials).
//!
//! The engines stay free of metrics: this wrapper sits in the job's [`simfleet::RunEnv::chat`].
//! What only the records know (answers the game refused, fallbacks) is counted per job by
//! [`crate::job_metrics`]. A call's failure is also logged at `warn`, at most once a minute per
//! endpoint and kind, with the error (which names the endpoint): an untrusted certificate or a
//! dead endpoint shows up in the worker's log, not only in the records.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use metrics::{Counter, Gauge, Histogram};
use simfleet::llm::{endpoint_host, ChatRequest, ChatResponse, ChatTransport, TransportError};

use crate::telemetry::{
    LLM_CALLS_IN_FLIGHT, LLM_CALLS_TOTAL, LLM_CALL_DURATION_SECONDS, LLM_COMPLETION_TOKENS_TOTAL, LLM_FAILURES_TOTAL,
    LLM_PROMPT_TOKENS_TOTAL, LLM_RETRIES_TOTAL,
};

/// How often the same failure (endpoint and kind) is logged at most.
const LOG_EVERY: Duration = Duration::from_secs(60);

/// The handles of one (game, model, endpoint).
struct Handles {
    labels: [(&'static str, String); 3],
    calls: Counter,
    retries: Counter,
    prompt_tokens: Counter,
    completion_tokens: Counter,
    /// Registered with the others, so that a fleet with no fallback shows 0, not no data.
    fallbacks: Counter,
    duration: Histogram,
    failures: Mutex<HashMap<&'static str, Counter>>,
}

impl Handles {
    fn new(game: &'static str, model: &str, endpoint: String) -> Handles {
        let labels = [("game", game.to_string()), ("model", model.to_string()), ("endpoint", endpoint)];
        Handles {
            calls: metrics::counter!(LLM_CALLS_TOTAL, &labels),
            retries: metrics::counter!(LLM_RETRIES_TOTAL, &labels),
            prompt_tokens: metrics::counter!(LLM_PROMPT_TOKENS_TOTAL, &labels),
            completion_tokens: metrics::counter!(LLM_COMPLETION_TOKENS_TOTAL, &labels),
            fallbacks: metrics::counter!(crate::telemetry::LLM_FALLBACKS_TOTAL, &labels),
            duration: metrics::histogram!(LLM_CALL_DURATION_SECONDS, &labels),
            failures: Mutex::new(HashMap::new()),
            labels,
        }
    }

    fn failed(&self, kind: &'static str, n: u64) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        failures
            .entry(kind)
            .or_insert_with(|| {
                let [g, m, e] = self.labels.clone();
                metrics::counter!(LLM_FAILURES_TOTAL, &[g, m, e, ("kind", kind.to_string())])
            })
            .increment(n);
    }
}

/// A (game, model, endpoint host) label set.
type Key = (&'static str, String, String);

/// The worker's LLM metric handles, created on first use per (game, model, endpoint host).
pub struct LlmMetrics {
    handles: Mutex<HashMap<Key, Arc<Handles>>>,
    in_flight: Gauge,
    logged: Mutex<HashMap<(String, &'static str), Instant>>,
}

impl Default for LlmMetrics {
    fn default() -> LlmMetrics {
        LlmMetrics::new()
    }
}

impl LlmMetrics {
    /// Handles on the global recorder (no-ops until one is installed).
    pub fn new() -> LlmMetrics {
        LlmMetrics {
            handles: Mutex::new(HashMap::new()),
            in_flight: metrics::gauge!(LLM_CALLS_IN_FLIGHT),
            logged: Mutex::new(HashMap::new()),
        }
    }

    fn handles(&self, game: &'static str, model: &str, endpoint: &str) -> Arc<Handles> {
        let host = endpoint_host(endpoint);
        let mut all = self.handles.lock().unwrap_or_else(|p| p.into_inner());
        let key = (game, model.to_string(), host);
        Arc::clone(all.entry(key).or_insert_with_key(|(g, m, h)| Arc::new(Handles::new(g, m, h.clone()))))
    }

    /// Counts `n` failures of `kind` that only the records show (`invalid_output`).
    pub(crate) fn refused(&self, game: &'static str, model: &str, endpoint: &str, kind: &'static str, n: u64) {
        if n > 0 {
            self.handles(game, model, endpoint).failed(kind, n);
        }
    }

    /// Counts `n` fallbacks.
    pub(crate) fn fell_back(&self, game: &'static str, model: &str, endpoint: &str, n: u64) {
        if n > 0 {
            self.handles(game, model, endpoint).fallbacks.increment(n);
        }
    }

    fn record(
        &self,
        game: &'static str,
        request: &ChatRequest,
        result: &Result<ChatResponse, TransportError>,
        took: Duration,
    ) {
        let h = self.handles(game, &request.model, &request.endpoint);
        h.calls.increment(1);
        h.duration.record(took.as_secs_f64());
        if request.attempt > 0 {
            h.retries.increment(1);
        }
        match result {
            Ok(r) => {
                h.prompt_tokens.increment(r.prompt_tokens.unwrap_or(0));
                h.completion_tokens.increment(r.completion_tokens.unwrap_or(0));
            }
            Err(e) => {
                h.failed(e.kind(), 1);
                self.log_failure(request, e);
            }
        }
    }

    fn log_failure(&self, request: &ChatRequest, error: &TransportError) {
        let key = (simfleet::llm::redact_endpoint(&request.endpoint), error.kind());
        let now = Instant::now();
        let mut logged = self.logged.lock().unwrap_or_else(|p| p.into_inner());
        if logged.get(&key).is_some_and(|at| now.duration_since(*at) < LOG_EVERY) {
            return;
        }
        logged.insert(key.clone(), now);
        tracing::warn!(endpoint = key.0, model = request.model, kind = key.1, error = %error, "llm call failed");
    }
}

/// A transport that counts every call of one game's `llm` seats.
pub struct MeteredTransport {
    inner: Arc<dyn ChatTransport>,
    game: &'static str,
    metrics: Arc<LlmMetrics>,
}

impl MeteredTransport {
    /// Counts `inner`'s calls for `game`.
    pub fn new(inner: Arc<dyn ChatTransport>, game: &'static str, metrics: Arc<LlmMetrics>) -> MeteredTransport {
        MeteredTransport { inner, game, metrics }
    }
}

impl ChatTransport for MeteredTransport {
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError> {
        self.metrics.in_flight.increment(1.0);
        let started = Instant::now();
        let result = self.inner.complete(request);
        let took = started.elapsed();
        self.metrics.in_flight.decrement(1.0);
        self.metrics.record(self.game, request, &result, took);
        result
    }

    fn admit(&self, request: &ChatRequest) {
        self.inner.admit(request);
    }

    fn sleep(&self, delay: Duration) {
        self.inner.sleep(delay);
    }

    fn now(&self) -> Instant {
        self.inner.now()
    }
}
