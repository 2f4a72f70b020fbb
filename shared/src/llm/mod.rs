//! The sans-IO LLM client shared by every game with `llm` seats.
//!
//! Engines never import this module's transport: an `llm` seat reaches a model only through
//! [`crate::RunEnv::chat`], a [`ChatTransport`]. Tests inject a stub; the binaries enable the
//! `llm-http` feature for the blocking OpenAI-compatible transport in [`http`] (TLS, proxies,
//! `Retry-After`, per-endpoint rate limits).
//!
//! What every game shares lives here: the attempt loop with its retry cap, backoff, rate-limit
//! waits and corrective re-prompts ([`client`]), extraction of the first balanced JSON object
//! from an answer ([`extract`]), per-seat statistics with the recorded exchanges ([`stats`],
//! [`exchange`]), exact replays from those exchanges ([`replay`]), the fleet-wide rate limits
//! ([`limit`]), the calls a job is expected to make ([`estimate`]), the seat's shell with its
//! call log and fallback ([`seat`]) and the seats' stats as a record's `llm` stat
//! ([`LlmBySeat`]); the episodes of a job with `llm` seats are played concurrently by
//! `crate::runner::ConcurrentJob`.
//! Each game keeps only its prompt and the mapping from JSON to its actions.
//!
//! The client is sans-IO except through its transport: calls, rate-limit admission, backoff
//! waits and the clock used for latency all go through [`ChatTransport`], so tests never wait
//! for real, and a replay answers from a record without any I/O.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub mod client;
pub mod estimate;
pub mod exchange;
pub mod extract;
pub mod limit;
pub mod params;
pub mod replay;
pub mod seat;
pub mod stats;

#[cfg(feature = "llm-http")]
pub mod http;

#[cfg(all(test, feature = "llm-http"))]
pub(crate) mod test_server;

pub use client::{backoff_delay, rate_limit_delay, CallRecord, ClientConfig, LlmClient, Rejection};
pub use exchange::Exchange;
pub use extract::first_json_object;
pub use limit::RateLimits;
pub use params::ClientParams;
pub use replay::ReplayTransport;
pub use seat::{LlmCall, LlmSeat};
pub use stats::{LlmBySeat, LlmStats};

/// One chat message.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

/// One chat-completions call.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRequest {
    /// Base URL, e.g. `https://api.openai.com/v1`; the call goes to `{endpoint}/chat/completions`.
    pub endpoint: String,
    /// Model name.
    pub model: String,
    /// The conversation so far.
    pub messages: Vec<ChatMessage>,
    /// Sampling temperature.
    pub temperature: f64,
    /// Completion token cap.
    pub max_tokens: u32,
    /// Bearer token, if any. Never logged or recorded.
    pub api_key: Option<String>,
    /// Per-call timeout.
    pub timeout: Duration,
    /// The seat asking (a replay serves each seat its own recorded exchanges).
    pub seat: u32,
    /// Calls already made for this decision: 0 for the first, 1 or more for a retry.
    pub attempt: u32,
    /// The endpoint's fleet-wide limits, when the seat gives them.
    pub limits: RateLimits,
}

/// The useful part of a chat-completions answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChatResponse {
    /// `choices[0].message.content`.
    pub content: String,
    /// `usage.prompt_tokens`, when reported.
    pub prompt_tokens: Option<u64>,
    /// `usage.completion_tokens`, when reported.
    pub completion_tokens: Option<u64>,
}

/// A failed call. Serialised in records (an [`Exchange`]'s `error`) as
/// `{"kind": "<kind>", "detail": …}`, so a replay fails the same way.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum TransportError {
    /// Could not connect or the connection broke (the message names the endpoint).
    #[error("connection failed: {0}")]
    Connect(String),
    /// The TLS handshake failed, e.g. an untrusted certificate (the message names the endpoint
    /// and what to configure).
    #[error("TLS failed: {0}")]
    Tls(String),
    /// No answer within the timeout.
    #[error("timed out")]
    Timeout,
    /// HTTP 429, with the wait the server asked for (`Retry-After`, `retry-after-ms`).
    #[error("rate limited (HTTP 429){}", retry_after_ms.map_or(String::new(), |ms| format!(", retry after {ms} ms")))]
    RateLimited {
        /// The server's requested wait in milliseconds, if it gave one.
        retry_after_ms: Option<u64>,
    },
    /// A non-2xx status other than 429.
    #[error("HTTP status {0}")]
    Status(u16),
    /// A 2xx answer without `choices[0].message.content`.
    #[error("malformed answer: {0}")]
    Malformed(String),
}

impl TransportError {
    /// Whether the server asked us to slow down (HTTP 429): such a failure is waited out
    /// without using one of the decision's attempts, up to a cap ([`client`]).
    pub fn is_rate_limited(&self) -> bool {
        matches!(self, TransportError::RateLimited { .. } | TransportError::Status(429))
    }

    /// The wait the server asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            TransportError::RateLimited { retry_after_ms: Some(ms) } => Some(Duration::from_millis(*ms)),
            _ => None,
        }
    }

    /// Whether the client should back off before the next attempt (HTTP 429 and 5xx).
    pub fn wants_backoff(&self) -> bool {
        self.is_rate_limited() || matches!(self, TransportError::Status(s) if *s >= 500)
    }

    /// A bounded label for metrics and logs: `connect`, `tls`, `timeout`, `rate_limited`,
    /// `http_4xx`, `http_5xx` or `malformed`.
    pub fn kind(&self) -> &'static str {
        match self {
            TransportError::Connect(_) => "connect",
            TransportError::Tls(_) => "tls",
            TransportError::Timeout => "timeout",
            e if e.is_rate_limited() => "rate_limited",
            TransportError::Status(s) if *s >= 500 => "http_5xx",
            TransportError::Status(_) | TransportError::RateLimited { .. } => "http_4xx",
            TransportError::Malformed(_) => "malformed",
        }
    }
}

/// A blocking chat-completions transport. Calls run on the worker's I/O threads or the
/// coordinator's play threads, never on an async runtime.
pub trait ChatTransport: Send + Sync {
    /// Performs one call.
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError>;

    /// Waits until `request` may be sent under its endpoint's rate limits (and any pause a
    /// 429 asked for). Called before each call, outside the latency the client measures. No
    /// limits by default.
    fn admit(&self, request: &ChatRequest) {
        let _ = request;
    }

    /// Waits `delay` before the next attempt (backoff after HTTP 429 or 5xx). Test transports
    /// override it to record the delay instead of sleeping; a replay does not wait.
    fn sleep(&self, delay: Duration) {
        std::thread::sleep(delay);
    }

    /// The monotonic clock that call latencies are measured with (latencies are not part of
    /// the determinism contract; a replay advances its own clock by the recorded latencies).
    fn now(&self) -> Instant {
        Instant::now()
    }
}

impl<T: ChatTransport + ?Sized> ChatTransport for std::sync::Arc<T> {
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError> {
        (**self).complete(request)
    }
    fn admit(&self, request: &ChatRequest) {
        (**self).admit(request)
    }
    fn sleep(&self, delay: Duration) {
        (**self).sleep(delay)
    }
    fn now(&self) -> Instant {
        (**self).now()
    }
}

/// The endpoint as it may appear in logs, errors and metric labels: scheme, host, port and
/// path, without credentials or a query string (which can carry keys).
pub fn redact_endpoint(endpoint: &str) -> String {
    let (scheme, rest) = endpoint.split_once("://").unwrap_or(("", endpoint));
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let path = if path.is_empty() { String::new() } else { format!("/{path}") };
    if scheme.is_empty() {
        format!("{host}{path}")
    } else {
        format!("{scheme}://{host}{path}")
    }
}

/// The `endpoint` metric label: the endpoint's host, with the port when one is given. Bounded
/// (one value per model server) and free of secrets.
pub fn endpoint_host(endpoint: &str) -> String {
    let rest = endpoint.split_once("://").map_or(endpoint, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.rsplit_once('@').map_or(authority, |(_, h)| h).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_lose_credentials_and_queries() {
        let url = "https://user:pw@api.example.com:8443/v1?key=secret#x";
        assert_eq!(redact_endpoint(url), "https://api.example.com:8443/v1");
        assert_eq!(endpoint_host(url), "api.example.com:8443");
        assert_eq!(endpoint_host("http://Ollama:11434/v1"), "ollama:11434");
        assert_eq!(redact_endpoint("http://127.0.0.1:8000"), "http://127.0.0.1:8000");
    }

    #[test]
    fn errors_round_trip_through_records_and_have_bounded_kinds() {
        let all = [
            TransportError::Connect("refused".into()),
            TransportError::Tls("unknown issuer".into()),
            TransportError::Timeout,
            TransportError::RateLimited { retry_after_ms: Some(1500) },
            TransportError::RateLimited { retry_after_ms: None },
            TransportError::Status(503),
            TransportError::Status(404),
            TransportError::Malformed("no content".into()),
        ];
        let kinds: Vec<&str> = all.iter().map(TransportError::kind).collect();
        assert_eq!(
            kinds,
            ["connect", "tls", "timeout", "rate_limited", "rate_limited", "http_5xx", "http_4xx", "malformed"]
        );
        for e in &all {
            let json = serde_json::to_string(e).unwrap();
            assert_eq!(&serde_json::from_str::<TransportError>(&json).unwrap(), e, "{json}");
        }
        assert_eq!(serde_json::to_string(&all[2]).unwrap(), r#"{"kind":"timeout"}"#);
        assert_eq!(all[3].retry_after(), Some(Duration::from_millis(1500)));
        assert!(TransportError::Status(429).is_rate_limited());
    }
}
