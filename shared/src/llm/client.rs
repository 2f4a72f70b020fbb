//! The attempt loop of one decision: call, parse, re-prompt, back off, wait out rate limits,
//! give up (spec §10.3 of the games that use it).
//!
//! - At most `1 + max_retries` failed attempts per decision; an accepted answer ends it.
//! - A transport failure uses an attempt; after HTTP 5xx the client waits `0.5 s · 2^k`
//!   (k = failed attempts of this decision before this one, capped at 4 s) through
//!   [`ChatTransport::sleep`], unless no attempt is left.
//! - HTTP 429 uses no attempt: the client waits what the server asked (`Retry-After`, capped
//!   at [`MAX_RETRY_AFTER`]) or `1 s · 2^j` (j = 429s of this decision before this one, capped
//!   at 32 s) and sends the call again, up to [`MAX_RATE_LIMITED`] times per decision; after
//!   that a 429 counts as a failed attempt like any other failure. So a rate-limited endpoint
//!   slows a sweep down instead of turning its decisions into fallbacks.
//! - An answer the game rejects uses an attempt and is followed by a corrective turn: the answer
//!   as an assistant message, then the game's user message naming what was wrong.
//! - Every call is recorded as an [`Exchange`] in the seat's stats (what a replay answers from).
//! - When the attempts are spent, [`LlmClient::decide`] returns `None` and the caller asks its
//!   fallback policy.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::{ChatMessage, ChatRequest, ChatTransport, Exchange, LlmStats, RateLimits};

/// The longest backoff wait after a failed attempt.
pub const MAX_BACKOFF: Duration = Duration::from_secs(4);

/// 429s per decision that are waited out without using an attempt.
pub const MAX_RATE_LIMITED: u32 = 8;

/// The longest wait a `Retry-After` can ask for (a longer one is cut to this).
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The longest wait after a 429 without `Retry-After`.
pub const MAX_RATE_LIMIT_BACKOFF: Duration = Duration::from_secs(32);

/// The wait after the k-th failure of a decision (k from 0): 0.5 s · 2^k, at most 4 s.
pub fn backoff_delay(k: u32) -> Duration {
    let ms = 500u64.saturating_mul(1u64 << k.min(16));
    Duration::from_millis(ms).min(MAX_BACKOFF)
}

/// The wait after the j-th 429 of a decision (j from 0) that gave no `Retry-After`:
/// 1 s · 2^j, at most 32 s.
pub fn rate_limit_delay(j: u32) -> Duration {
    let ms = 1000u64.saturating_mul(1u64 << j.min(16));
    Duration::from_millis(ms).min(MAX_RATE_LIMIT_BACKOFF)
}

/// Where and how to call the model.
#[derive(Clone)]
pub struct ClientConfig {
    /// Base URL; calls go to `{endpoint}/chat/completions`.
    pub endpoint: String,
    /// Model name.
    pub model: String,
    /// Sampling temperature.
    pub temperature: f64,
    /// Completion token cap.
    pub max_tokens: u32,
    /// Per-call timeout.
    pub timeout: Duration,
    /// Extra attempts after the first.
    pub max_retries: u32,
    /// Bearer token, read once when the job is prepared. Never logged or recorded.
    pub api_key: Option<String>,
    /// The seat this client decides for.
    pub seat: u32,
    /// The endpoint's fleet-wide rate limits, if any.
    pub limits: RateLimits,
}

impl std::fmt::Debug for ClientConfig {
    // Hand-written so the key can never reach a log through `{:?}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("seat", &self.seat)
            .field("limits", &self.limits)
            .finish()
    }
}

/// Why the game refused an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// A short label for logs and replays (`no_json_object`, `self_target`, …).
    pub reason: String,
    /// The corrective user message: names the problem and restates the legal actions and format.
    pub corrective: String,
}

impl Rejection {
    /// What the record keeps of it: the label and the problem the corrective names (its first
    /// line, without the preamble), e.g. `self_target: it names the seat itself`.
    pub fn refused(&self) -> String {
        let line = self.corrective.lines().next().unwrap_or_default();
        let problem = line.strip_prefix("Your answer could not be used: ").unwrap_or(line);
        format!("{}: {}", self.reason, problem.trim_end_matches('.'))
    }
}

/// One call as kept in a replay.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallRecord {
    /// The call's number within the decision, from 0 (429 retries included).
    pub attempt: u32,
    /// The messages sent.
    pub messages: Vec<ChatMessage>,
    /// The raw answer, when the call succeeded.
    pub raw: Option<String>,
    /// The transport error, when it failed.
    pub error: Option<String>,
    /// `accepted`, `transport_error`, or the rejection reason.
    pub parse: String,
    /// Latency in milliseconds (not deterministic).
    pub latency_ms: u64,
    /// The backoff waited after this call, in milliseconds.
    pub backoff_ms: u64,
}

/// A chat-completions client for one seat.
#[derive(Clone)]
pub struct LlmClient {
    config: ClientConfig,
    transport: Arc<dyn ChatTransport>,
}

impl std::fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient").field("config", &self.config).finish_non_exhaustive()
    }
}

impl LlmClient {
    /// A client calling through `transport`.
    pub fn new(config: ClientConfig, transport: Arc<dyn ChatTransport>) -> LlmClient {
        LlmClient { config, transport }
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// Runs one decision: sends `messages`, hands each answer to `parse`, re-prompts on
    /// rejections, retries transport failures within the attempt cap and waits out 429s.
    /// Counts everything in `stats` and records every call in `stats.exchanges`; appends one
    /// [`CallRecord`] per call to `log` when given. `None` = attempts spent.
    pub fn decide<T>(
        &self,
        messages: Vec<ChatMessage>,
        mut parse: impl FnMut(&str) -> Result<T, Rejection>,
        stats: &mut LlmStats,
        mut log: Option<&mut Vec<CallRecord>>,
    ) -> Option<T> {
        let c = &self.config;
        let mut request = ChatRequest {
            endpoint: c.endpoint.clone(),
            model: c.model.clone(),
            messages,
            temperature: c.temperature,
            max_tokens: c.max_tokens,
            api_key: c.api_key.clone(),
            timeout: c.timeout,
            seat: c.seat,
            attempt: 0,
            limits: c.limits,
        };
        stats.decisions += 1;
        let attempts = 1 + c.max_retries;
        // `failed` counts the attempts used; 429s waited out are counted in `waited` instead.
        let (mut failed, mut waited) = (0u32, 0u32);
        while failed < attempts {
            self.transport.admit(&request);
            let started = self.transport.now();
            let result = self.transport.complete(&request);
            let latency_ms = self.transport.now().saturating_duration_since(started).as_millis() as u64;
            stats.calls += 1;
            stats.latency_ms_total += latency_ms;
            stats.latency_ms_max = stats.latency_ms_max.max(latency_ms);
            stats.exchanges.push(Exchange::new(&request.messages, latency_ms, &result));
            let mut record = log.as_ref().map(|_| CallRecord {
                attempt: request.attempt,
                messages: request.messages.clone(),
                raw: None,
                error: None,
                parse: String::new(),
                latency_ms,
                backoff_ms: 0,
            });
            request.attempt += 1;
            match result {
                Ok(response) => {
                    stats.prompt_tokens += response.prompt_tokens.unwrap_or(0);
                    stats.completion_tokens += response.completion_tokens.unwrap_or(0);
                    let parsed = parse(&response.content);
                    if let Some(r) = record.as_mut() {
                        r.raw = Some(response.content.clone());
                        r.parse = match &parsed {
                            Ok(_) => "accepted".into(),
                            Err(rej) => rej.reason.clone(),
                        };
                    }
                    match parsed {
                        Ok(value) => {
                            push(&mut log, record);
                            return Some(value);
                        }
                        Err(rejection) => {
                            failed += 1;
                            stats.invalid_outputs += 1;
                            if let Some(exchange) = stats.exchanges.last_mut() {
                                exchange.refused = Some(rejection.refused());
                            }
                            request.messages.push(ChatMessage { role: "assistant".into(), content: response.content });
                            request.messages.push(ChatMessage { role: "user".into(), content: rejection.corrective });
                        }
                    }
                }
                Err(error) => {
                    stats.transport_errors += 1;
                    let rate_limited = error.is_rate_limited();
                    stats.rate_limited += u64::from(rate_limited);
                    let wait = if rate_limited && waited < MAX_RATE_LIMITED {
                        waited += 1;
                        Some(error.retry_after().map_or(rate_limit_delay(waited - 1), |d| d.min(MAX_RETRY_AFTER)))
                    } else {
                        failed += 1;
                        (error.wants_backoff() && failed < attempts).then(|| backoff_delay(failed - 1))
                    };
                    if let Some(r) = record.as_mut() {
                        r.error = Some(error.to_string());
                        r.parse = "transport_error".into();
                        r.backoff_ms = wait.map_or(0, |w| w.as_millis() as u64);
                    }
                    if let Some(w) = wait {
                        self.transport.sleep(w);
                    }
                }
            }
            push(&mut log, record);
        }
        stats.fallbacks += 1;
        None
    }
}

fn push(log: &mut Option<&mut Vec<CallRecord>>, record: Option<CallRecord>) {
    if let (Some(log), Some(r)) = (log.as_mut(), record) {
        log.push(r);
    }
}

#[cfg(test)]
mod tests;
