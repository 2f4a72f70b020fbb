//! The sans-IO LLM client shared by every game with `llm` seats.
//!
//! Engines never import this module's transport: an `llm` seat reaches a model only through
//! [`crate::RunEnv::chat`], a [`ChatTransport`]. Tests inject a stub; the binaries enable the
//! `llm-http` feature for the blocking OpenAI-compatible transport in [`http`].
//!
//! What every game shares lives here: the attempt loop with its retry cap, backoff and
//! corrective re-prompts ([`client`]), extraction of the first balanced JSON object from an
//! answer ([`extract`]), per-seat statistics ([`stats`]) and the call log kept for replays.
//! Each game keeps only its prompt and the mapping from JSON to its actions.
//!
//! The client is sans-IO except through its transport: calls, backoff waits and the clock used
//! for latency all go through [`ChatTransport`], so tests never wait for real.

use std::time::{Duration, Instant};

pub mod client;
pub mod extract;
pub mod params;
pub mod stats;

#[cfg(feature = "llm-http")]
pub mod http;

#[cfg(all(test, feature = "llm-http"))]
pub(crate) mod test_server;

pub use client::{backoff_delay, CallRecord, ClientConfig, LlmClient, Rejection};
pub use extract::first_json_object;
pub use params::ClientParams;
pub use stats::LlmStats;

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

/// A failed call.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// Could not connect or the connection broke.
    #[error("connection failed: {0}")]
    Connect(String),
    /// No answer within the timeout.
    #[error("timed out")]
    Timeout,
    /// A non-2xx status.
    #[error("HTTP status {0}")]
    Status(u16),
    /// A 2xx answer without `choices[0].message.content`.
    #[error("malformed answer: {0}")]
    Malformed(String),
}

impl TransportError {
    /// Whether the client should back off before the next attempt (HTTP 429 and 5xx).
    pub fn wants_backoff(&self) -> bool {
        matches!(self, TransportError::Status(s) if *s == 429 || *s >= 500)
    }
}

/// A blocking chat-completions transport. Calls run on the worker's blocking pool, never on
/// its async runtime.
pub trait ChatTransport: Send + Sync {
    /// Performs one call.
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError>;

    /// Waits `delay` before the next attempt (backoff after HTTP 429 or 5xx). Test transports
    /// override it to record the delay instead of sleeping.
    fn sleep(&self, delay: Duration) {
        std::thread::sleep(delay);
    }

    /// The monotonic clock that call latencies are measured with (latencies are not part of
    /// the determinism contract).
    fn now(&self) -> Instant {
        Instant::now()
    }
}
