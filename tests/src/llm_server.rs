//! A stand-in OpenAI-compatible model server: the real chat-completions protocol over real
//! HTTP/1.1 (keep-alive, `Content-Length` bodies) or HTTPS (rustls with a certificate the test
//! makes), answering `POST /v1/chat/completions` after a configurable delay with an answer the
//! game accepts ([`answer_for`]) and a `usage` block, or, for a chosen share of requests, with
//! a 429 (and `Retry-After`), a malformed body, or no answer at all (a hung call). It counts
//! requests, answers, and the calls in flight at once (the peak too). One thread per
//! connection: a real client keeps one connection per call in flight.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{json, Value};

/// What the server does; by default it answers every request at once.
#[derive(Clone, Debug, Default)]
pub struct Behaviour {
    /// How long each answer takes.
    pub delay: Duration,
    /// Every n-th request (n, 2n, …) is answered 429.
    pub rate_limit_every: Option<u64>,
    /// The `Retry-After` of those 429s, in seconds (none when `None`).
    pub retry_after_s: Option<u64>,
    /// Every n-th request gets a 200 without `choices` (offset by one from the 429s).
    pub malformed_every: Option<u64>,
    /// Every n-th request is held without an answer until the client gives up (offset by two).
    pub hang_every: Option<u64>,
    /// Every n-th request is answered with an action no game has (`{"action": "dance", …}`),
    /// which the game refuses as `invalid_output` (offset by three).
    pub illegal_every: Option<u64>,
}

/// The server's counters.
#[derive(Debug, Default)]
pub struct Counters {
    /// Requests received.
    pub requests: AtomicU64,
    /// 200s with an answer.
    pub answered: AtomicU64,
    /// 429s.
    pub rate_limited: AtomicU64,
    /// Malformed 200s.
    pub malformed: AtomicU64,
    /// Hung requests.
    pub hung: AtomicU64,
    /// Requests being handled now.
    pub in_flight: AtomicU64,
    /// The most requests handled at once.
    pub peak_in_flight: AtomicU64,
    /// TCP connections accepted.
    pub connections: AtomicU64,
    /// When each request arrived, in order.
    pub arrivals: Mutex<Vec<Instant>>,
}

/// A running server; stops accepting when dropped.
pub struct LlmServer {
    addr: SocketAddr,
    tls: bool,
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
}

impl std::fmt::Debug for LlmServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmServer").field("addr", &self.addr).field("tls", &self.tls).finish()
    }
}

impl LlmServer {
    /// Starts a plain-HTTP server on a free loopback port.
    pub fn start(behaviour: Behaviour) -> LlmServer {
        LlmServer::spawn(behaviour, None)
    }

    /// Starts an HTTPS server presenting `cert_pem` (a chain) with `key_pem`.
    pub fn start_tls(behaviour: Behaviour, cert_pem: &str, key_pem: &str) -> LlmServer {
        let certs: Vec<CertificateDer<'static>> =
            CertificateDer::pem_slice_iter(cert_pem.as_bytes()).collect::<Result<_, _>>().expect("PEM certificates");
        let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes()).expect("a PEM private key");
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .expect("a usable certificate and key");
        LlmServer::spawn(behaviour, Some(Arc::new(config)))
    }

    fn spawn(behaviour: Behaviour, tls: Option<Arc<rustls::ServerConfig>>) -> LlmServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("the bound address");
        let counters = Arc::new(Counters::default());
        let stop = Arc::new(AtomicBool::new(false));
        let server = LlmServer { addr, tls: tls.is_some(), counters: Arc::clone(&counters), stop: Arc::clone(&stop) };
        let behaviour = Arc::new(behaviour);
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                counters.connections.fetch_add(1, Ordering::SeqCst);
                let (counters, behaviour, tls) = (Arc::clone(&counters), Arc::clone(&behaviour), tls.clone());
                std::thread::spawn(move || {
                    let _ = conn.set_nodelay(true);
                    match tls.map(rustls::ServerConnection::new) {
                        Some(Ok(session)) => serve(rustls::StreamOwned::new(session, conn), &behaviour, &counters),
                        Some(Err(_)) => {}
                        None => serve(conn, &behaviour, &counters),
                    }
                });
            }
        });
        server
    }

    /// The base URL: `http://127.0.0.1:<port>/v1` (or `https://localhost:<port>/v1`, the name
    /// test certificates are made for).
    pub fn endpoint(&self) -> String {
        if self.tls {
            format!("https://localhost:{}/v1", self.addr.port())
        } else {
            format!("http://{}/v1", self.addr)
        }
    }

    /// The counters.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Requests received so far.
    pub fn requests(&self) -> u64 {
        self.counters.requests.load(Ordering::SeqCst)
    }
}

impl Drop for LlmServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

/// Serves requests on one connection until the client closes it.
fn serve<S: Read + Write>(stream: S, behaviour: &Behaviour, counters: &Counters) {
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0usize;
        let mut close = false;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            if header == "\r\n" {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                match name.trim().to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap_or(0),
                    "connection" => close = value.trim().eq_ignore_ascii_case("close"),
                    _ => {}
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        counters.arrivals.lock().expect("arrivals lock").push(Instant::now());
        let n = counters.requests.fetch_add(1, Ordering::SeqCst) + 1;
        let now = counters.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        counters.peak_in_flight.fetch_max(now, Ordering::SeqCst);
        let reply = respond(n, &body, behaviour, counters);
        let Some((status, headers, text)) = reply else {
            // A hung call: hold the connection until the client gives up and closes it.
            let mut sink = [0u8; 64];
            while matches!(reader.get_mut().read(&mut sink), Ok(k) if k > 0) {}
            counters.in_flight.fetch_sub(1, Ordering::SeqCst);
            return;
        };
        std::thread::sleep(behaviour.delay);
        let head = format!(
            "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{headers}{}\r\n",
            if status == 200 { "OK" } else { "Error" },
            text.len(),
            if close { "Connection: close\r\n" } else { "" },
        );
        counters.in_flight.fetch_sub(1, Ordering::SeqCst);
        let stream = reader.get_mut();
        if stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(text.as_bytes())).is_err()
            || stream.flush().is_err()
            || close
        {
            return;
        }
    }
}

fn every(n: u64, k: Option<u64>, offset: u64) -> bool {
    k.is_some_and(|k| k > 0 && n % k == offset % k)
}

/// The reply to the n-th request (from 1): status, extra header lines and body; `None` to hang.
fn respond(n: u64, body: &[u8], b: &Behaviour, counters: &Counters) -> Option<(u16, String, String)> {
    if every(n, b.rate_limit_every, 0) {
        counters.rate_limited.fetch_add(1, Ordering::SeqCst);
        let retry = b.retry_after_s.map_or(String::new(), |s| format!("Retry-After: {s}\r\n"));
        return Some((429, retry, r#"{"error": {"message": "rate limited", "type": "requests"}}"#.into()));
    }
    if every(n, b.malformed_every, 1) {
        counters.malformed.fetch_add(1, Ordering::SeqCst);
        return Some((200, String::new(), r#"{"object": "chat.completion", "choices": []}"#.into()));
    }
    if every(n, b.hang_every, 2) {
        counters.hung.fetch_add(1, Ordering::SeqCst);
        return None;
    }
    let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let last = messages.iter().rev().find(|m| m["role"] == "user").and_then(|m| m["content"].as_str()).unwrap_or("");
    let content = if every(n, b.illegal_every, 3) {
        r#"{"action": "dance", "parameters": {}, "reasoning": "for joy"}"#.to_string()
    } else {
        answer_for(last)
    };
    let prompt_chars: usize = messages.iter().filter_map(|m| m["content"].as_str()).map(str::len).sum();
    counters.answered.fetch_add(1, Ordering::SeqCst);
    let answer = json!({
        "id": format!("chatcmpl-{n}"),
        "object": "chat.completion",
        "model": request["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_chars.div_ceil(4),
            "completion_tokens": content.len().div_ceil(4),
            "total_tokens": prompt_chars.div_ceil(4) + content.len().div_ceil(4)
        }
    });
    Some((200, String::new(), answer.to_string()))
}

/// An answer the game accepts, from the legal actions the prompt lists: for trolley, argue or
/// decide; for deception, vote when voting, else propose a vote, else pass, else accuse the
/// first legal target.
pub fn answer_for(prompt: &str) -> String {
    if prompt.contains("Legal action now: decide") {
        return r#"{"action": "decide", "parameters": {"decision": "save_majority"}, "reasoning": "more lives"}"#
            .into();
    }
    if prompt.contains("Legal actions now: argue") {
        return r#"{"action": "argue", "parameters": {"text": "Please save my side."}, "reasoning": "plead"}"#.into();
    }
    let Some(section) = prompt.split("Legal actions now:\n").nth(1) else {
        return r#"{"action": "pass", "parameters": {}}"#.into();
    };
    let kinds: Vec<&str> =
        section.lines().filter_map(|l| l.strip_prefix("- ")).filter_map(|l| l.split_whitespace().next()).collect();
    let target = section
        .lines()
        .find_map(|l| l.strip_prefix("Legal targets: "))
        .and_then(|t| t.trim_end_matches('.').split(", ").next())
        .filter(|t| !t.is_empty())
        .unwrap_or("agent_0");
    let has = |k: &str| kinds.contains(&k);
    if has("vote") {
        format!(r#"{{"action": "vote", "parameters": {{"target": "{target}"}}, "reasoning": "suspicious"}}"#)
    } else if has("propose_vote") {
        r#"{"action": "propose_vote", "parameters": {}, "reasoning": "time to vote"}"#.into()
    } else if has("pass") {
        r#"{"action": "pass", "parameters": {}}"#.into()
    } else {
        format!(r#"{{"action": "accuse", "parameters": {{"target": "{target}"}}, "reasoning": "quiet"}}"#)
    }
}
