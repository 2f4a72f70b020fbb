//! The attempt loop against a scripted transport: retries, corrective turns, back-off and
//! rate-limit waits, the exchanges recorded.

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
                a.map(|c| ChatResponse { content: c.to_string(), prompt_tokens: Some(10), completion_tokens: Some(3) })
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
    let second: Vec<(&str, &str)> = seen[1].messages.iter().map(|m| (m.role.as_str(), m.content.as_str())).collect();
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
