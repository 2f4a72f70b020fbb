//! The HTTP transport against a real local HTTP/1.1 server (`test_server`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::super::test_server::{NoSleep, Reply, StubServer};
use super::super::{
    ChatMessage, ChatRequest, ChatTransport, ClientConfig, LlmClient, LlmStats, RateLimits, Rejection, TransportError,
};
use super::HttpTransport;

fn request(endpoint: &str, key: Option<&str>, timeout: Duration) -> ChatRequest {
    ChatRequest {
        endpoint: endpoint.to_string(),
        model: "test-model".into(),
        messages: vec![
            ChatMessage { role: "system".into(), content: "rules".into() },
            ChatMessage { role: "user".into(), content: "your turn".into() },
        ],
        temperature: 0.5,
        max_tokens: 42,
        api_key: key.map(str::to_string),
        timeout,
        seat: 0,
        attempt: 0,
        limits: RateLimits::default(),
    }
}

#[test]
fn good_answer_sends_the_real_api_shape() {
    let server = StubServer::start(|_, _| Reply::Answer("{\"action\": \"pass\"}".into()));
    let t = HttpTransport::new();
    let got = t.complete(&request(&server.endpoint(), Some("sekrit"), Duration::from_secs(5))).unwrap();
    assert_eq!(got.content, "{\"action\": \"pass\"}");
    assert_eq!((got.prompt_tokens, got.completion_tokens), (Some(100), Some(20)));
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].authorization.as_deref(), Some("Bearer sekrit"));
    let body = &seen[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["temperature"], 0.5);
    assert_eq!(body["max_tokens"], 42);
    assert_eq!(body["messages"][1]["role"], "user");
    assert_eq!(body["messages"][1]["content"], "your turn");
}

#[test]
fn no_key_means_no_authorization_header() {
    let server = StubServer::start(|_, _| Reply::Answer("ok".into()));
    HttpTransport::new().complete(&request(&server.endpoint(), None, Duration::from_secs(5))).unwrap();
    HttpTransport::new().complete(&request(&server.endpoint(), Some(""), Duration::from_secs(5))).unwrap();
    assert!(server.seen().iter().all(|s| s.authorization.is_none()));
}

#[test]
fn statuses_and_malformed_answers_are_transport_errors() {
    let server = StubServer::start(|n, _| match n {
        0 => Reply::Raw(429, "{\"error\": \"slow down\"}".into()),
        1 => Reply::Raw(500, "oops".into()),
        2 => Reply::Raw(200, "{\"choices\": []}".into()),
        _ => Reply::Raw(200, "not json".into()),
    });
    let t = HttpTransport::new();
    let call = || t.complete(&request(&server.endpoint(), None, Duration::from_secs(5)));
    assert_eq!(call(), Err(TransportError::RateLimited { retry_after_ms: None }));
    assert_eq!(call(), Err(TransportError::Status(500)));
    assert!(matches!(call(), Err(TransportError::Malformed(_))));
    assert!(matches!(call(), Err(TransportError::Malformed(_))));
}

#[test]
fn retry_after_is_read_in_seconds_or_milliseconds() {
    let limited = |headers: &[(&str, &str)]| {
        let headers = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Reply::WithHeaders(429, headers, "{}".into())
    };
    let server = StubServer::start(move |n, _| match n {
        0 => limited(&[("Retry-After", "2")]),
        1 => limited(&[("retry-after-ms", "20.5"), ("Retry-After", "9")]),
        2 => limited(&[("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")]),
        _ => Reply::Answer("ok".into()),
    });
    let t = HttpTransport::new();
    let call = || t.complete(&request(&server.endpoint(), None, Duration::from_secs(5)));
    assert_eq!(call(), Err(TransportError::RateLimited { retry_after_ms: Some(2000) }));
    assert_eq!(call(), Err(TransportError::RateLimited { retry_after_ms: Some(21) }));
    assert_eq!(call(), Err(TransportError::RateLimited { retry_after_ms: None }));
}

#[test]
fn connect_errors_name_the_endpoint_without_credentials() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let endpoint = format!("http://user:secret@127.0.0.1:{port}/v1?key=k");
    let got = HttpTransport::new().complete(&request(&endpoint, None, Duration::from_secs(2)));
    let Err(TransportError::Connect(message)) = got else { panic!("{got:?}") };
    assert!(message.starts_with(&format!("http://127.0.0.1:{port}/v1: ")), "{message}");
    assert!(!message.contains("secret") && !message.contains("key=k"), "{message}");
}

#[test]
fn a_hung_server_is_a_timeout() {
    let server = StubServer::start(|_, _| Reply::Hang(Duration::from_millis(1500)));
    let started = Instant::now();
    let got = HttpTransport::new().complete(&request(&server.endpoint(), None, Duration::from_millis(200)));
    assert_eq!(got, Err(TransportError::Timeout));
    assert!(started.elapsed() < Duration::from_millis(1200), "took {:?}", started.elapsed());
}

#[test]
fn nobody_listening_is_a_connect_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let got =
        HttpTransport::new().complete(&request(&format!("http://127.0.0.1:{port}/v1"), None, Duration::from_secs(2)));
    assert!(matches!(got, Err(TransportError::Connect(_))), "{got:?}");
}

#[test]
fn client_over_http_retries_with_backoff_then_succeeds() {
    let server = StubServer::start(|n, _| match n {
        0 => Reply::Raw(429, "{}".into()),
        1 => Reply::Raw(503, "{}".into()),
        2 => Reply::Hang(Duration::from_millis(800)),
        _ => Reply::Answer("42".into()),
    });
    let transport = Arc::new(NoSleep::new(HttpTransport::new()));
    let config = ClientConfig {
        endpoint: server.endpoint(),
        model: "m".into(),
        temperature: 0.0,
        max_tokens: 10,
        timeout: Duration::from_millis(200),
        max_retries: 2,
        api_key: None,
        seat: 0,
        limits: RateLimits::default(),
    };
    let client = LlmClient::new(config, transport.clone());
    let mut stats = LlmStats::default();
    let parse = |s: &str| {
        s.trim().parse::<u32>().map_err(|_| Rejection { reason: "nan".into(), corrective: "a number".into() })
    };
    let got = client.decide(vec![ChatMessage { role: "user".into(), content: "n?".into() }], parse, &mut stats, None);
    assert_eq!(got, Some(42));
    // The 429 waits 1 s without using an attempt; the 503 uses one and waits 0.5 s; the hung
    // call uses the second; the third answers.
    assert_eq!(*transport.slept.lock().unwrap(), [Duration::from_secs(1), Duration::from_millis(500)]);
    assert_eq!((stats.calls, stats.transport_errors, stats.rate_limited, stats.fallbacks), (4, 3, 1, 0));
}
