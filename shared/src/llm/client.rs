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
mod tests {
    use std::sync::Mutex;

    use super::super::{ChatResponse, TransportError};
    use super::*;

    /// Answers from a script and records every request and every backoff wait.
    struct Scripted {
        answers: Mutex<Vec<Result<ChatResponse, TransportError>>>,
        seen: Mutex<Vec<ChatRequest>>,
        slept: Mutex<Vec<Duration>>,
    }

    impl Scripted {
        fn new(mut answers: Vec<Result<&str, TransportError>>) -> Arc<Scripted> {
            answers.reverse();
            let answers = answers
                .into_iter()
                .map(|a| {
                    a.map(|c| ChatResponse {
                        content: c.to_string(),
                        prompt_tokens: Some(10),
                        completion_tokens: Some(3),
                    })
                })
                .collect();
            Arc::new(Scripted { answers: Mutex::new(answers), seen: Mutex::default(), slept: Mutex::default() })
        }
    }

    impl ChatTransport for Scripted {
        fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError> {
            self.seen.lock().unwrap().push(request.clone());
            self.answers.lock().unwrap().pop().expect("script ran out")
        }
        fn sleep(&self, delay: Duration) {
            self.slept.lock().unwrap().push(delay);
        }
    }

    fn client(t: Arc<Scripted>, max_retries: u32) -> LlmClient {
        let config = ClientConfig {
            endpoint: "http://stub/v1".into(),
            model: "m".into(),
            temperature: 0.0,
            max_tokens: 300,
            timeout: Duration::from_secs(1),
            max_retries,
            api_key: Some("k".into()),
            seat: 3,
            limits: RateLimits::default(),
        };
        LlmClient::new(config, t)
    }

    fn parse_number(answer: &str) -> Result<u32, Rejection> {
        answer
            .trim()
            .parse()
            .map_err(|_| Rejection { reason: "not_a_number".into(), corrective: format!("{answer:?} is not a number") })
    }

    fn user(s: &str) -> Vec<ChatMessage> {
        vec![ChatMessage { role: "user".into(), content: s.into() }]
    }

    #[test]
    fn backoff_doubles_from_half_a_second_and_caps_at_four() {
        let ms: Vec<u64> = (0..6).map(|k| backoff_delay(k).as_millis() as u64).collect();
        assert_eq!(ms, [500, 1000, 2000, 4000, 4000, 4000]);
        assert_eq!(backoff_delay(u32::MAX), MAX_BACKOFF);
    }

    #[test]
    fn rejected_answers_get_a_corrective_turn_then_succeed() {
        let t = Scripted::new(vec![Ok("seven"), Ok("7")]);
        let mut stats = LlmStats::default();
        let mut log = Vec::new();
        let got = client(t.clone(), 2).decide(user("number?"), parse_number, &mut stats, Some(&mut log));
        assert_eq!(got, Some(7));
        let seen = t.seen.lock().unwrap();
        assert_eq!(seen.len(), 2);
        let second: Vec<(&str, &str)> =
            seen[1].messages.iter().map(|m| (m.role.as_str(), m.content.as_str())).collect();
        assert_eq!(second, [("user", "number?"), ("assistant", "seven"), ("user", "\"seven\" is not a number")]);
        assert_eq!((stats.decisions, stats.calls, stats.invalid_outputs, stats.fallbacks), (1, 2, 1, 0));
        assert_eq!((stats.prompt_tokens, stats.completion_tokens), (20, 6));
        assert_eq!(log.iter().map(|r| r.parse.as_str()).collect::<Vec<_>>(), ["not_a_number", "accepted"]);
        let answers: Vec<Option<&str>> = stats.exchanges.iter().map(|e| e.answer.as_deref()).collect();
        assert_eq!(answers, [Some("seven"), Some("7")]);
        assert_eq!(stats.exchanges[1].prompt_hash, crate::llm::exchange::prompt_hash(&seen[1].messages));
        assert!(t.slept.lock().unwrap().is_empty(), "rejections never back off");
    }

    #[test]
    fn retry_cap_then_fallback_with_backoff_only_on_5xx() {
        let t = Scripted::new(vec![
            Err(TransportError::Status(503)),
            Err(TransportError::Timeout),
            Err(TransportError::Status(500)),
        ]);
        let mut stats = LlmStats::default();
        let got = client(t.clone(), 2).decide(user("n"), parse_number, &mut stats, None);
        assert_eq!(got, None);
        // 503 → 0.5 s, the timeout waits nothing, the last 500 has no attempt left.
        assert_eq!(*t.slept.lock().unwrap(), [Duration::from_millis(500)]);
        assert_eq!((stats.calls, stats.transport_errors, stats.rate_limited, stats.fallbacks), (3, 3, 0, 1));
        // A transport failure resends the same conversation, numbered, from the seat.
        let seen = t.seen.lock().unwrap();
        assert!(seen.iter().all(|r| r.messages == user("n") && r.seat == 3));
        assert_eq!(seen.iter().map(|r| r.attempt).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(stats.exchanges.len(), 3);
        assert_eq!(stats.exchanges[1].error, Some(TransportError::Timeout));
    }

    #[test]
    fn rate_limits_are_waited_out_without_using_attempts() {
        let limited = |ms| Err(TransportError::RateLimited { retry_after_ms: ms });
        let t = Scripted::new(vec![limited(Some(1500)), limited(None), limited(Some(120_000)), limited(None), Ok("7")]);
        let mut stats = LlmStats::default();
        // No retry at all: only the 429s' waits stand between the first call and the answer.
        let got = client(t.clone(), 0).decide(user("n"), parse_number, &mut stats, None);
        assert_eq!(got, Some(7));
        let slept = t.slept.lock().unwrap().clone();
        // Retry-After as asked, 2 s (one 429 before it), Retry-After cut to 60 s, 8 s (three before).
        let secs = |s: f64| Duration::from_secs_f64(s);
        assert_eq!(slept, [secs(1.5), secs(2.0), secs(60.0), secs(8.0)]);
        assert_eq!((stats.calls, stats.transport_errors, stats.rate_limited, stats.fallbacks), (5, 4, 4, 0));
    }

    #[test]
    fn rate_limits_count_as_failures_past_the_cap() {
        let answers = vec![Err(TransportError::Status(429)); MAX_RATE_LIMITED as usize + 2];
        let t = Scripted::new(answers);
        let mut stats = LlmStats::default();
        let got = client(t.clone(), 1).decide(user("n"), parse_number, &mut stats, None);
        assert_eq!(got, None);
        assert_eq!((stats.calls, stats.rate_limited, stats.fallbacks), (u64::from(MAX_RATE_LIMITED) + 2, 10, 1));
        let slept = t.slept.lock().unwrap().clone();
        // Eight waits doubling from 1 s to the 32 s cap, then 0.5 s before the last attempt.
        let waits: Vec<u64> = slept.iter().map(|d| d.as_millis() as u64).collect();
        assert_eq!(waits, [1000, 2000, 4000, 8000, 16000, 32000, 32000, 32000, 500]);
    }

    #[test]
    fn debug_never_shows_the_key() {
        let t = Scripted::new(vec![]);
        let text = format!("{:?}", client(t, 0));
        assert!(!text.contains("\"k\""), "{text}");
        assert!(text.contains("<set>"));
    }
}
