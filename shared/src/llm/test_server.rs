//! A small HTTP/1.1 chat-completions server for tests: binds `127.0.0.1:0`, speaks enough of
//! the real API for a real client, and answers from a script. Each connection gets its own
//! thread, so a deliberately hung connection does not delay the next attempt.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

use super::{ChatRequest, ChatResponse, ChatTransport, TransportError};

/// What the server does with one request.
#[derive(Clone, Debug)]
pub(crate) enum Reply {
    /// 200 with `choices[0].message.content` = this text and a `usage` block.
    Answer(String),
    /// This status with this body.
    Raw(u16, String),
    /// This status with these extra headers and this body.
    WithHeaders(u16, Vec<(String, String)>, String),
    /// Hold the connection this long without answering, then close it.
    Hang(Duration),
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    /// Request line target, e.g. `/v1/chat/completions`.
    pub path: String,
    /// The `Authorization` header, if sent.
    pub authorization: Option<String>,
    /// The JSON body.
    pub body: Value,
}

type Responder = dyn Fn(usize, &Seen) -> Reply + Send + Sync;

/// The running server; stops accepting when dropped.
pub(crate) struct StubServer {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
}

impl StubServer {
    /// Starts a server that answers the n-th request (from 0) with `responder(n, request)`.
    pub fn start(responder: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> StubServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let responder: Arc<Responder> = Arc::new(responder);
        let count = Arc::new(AtomicUsize::new(0));
        let (seen2, stop2) = (seen.clone(), stop.clone());
        thread::spawn(move || {
            for conn in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (seen, responder, count) = (seen2.clone(), responder.clone(), count.clone());
                thread::spawn(move || serve(conn, &seen, &*responder, &count));
            }
        });
        StubServer { addr, seen, stop }
    }

    /// The base URL, `http://127.0.0.1:<port>/v1`.
    pub fn endpoint(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for StubServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(conn: TcpStream, seen: &Mutex<Vec<Seen>>, responder: &Responder, count: &AtomicUsize) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let (mut length, mut authorization) = (0usize, None);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim().to_string();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse().unwrap_or(0),
                "authorization" => authorization = Some(value),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let request = Seen { path, authorization, body: serde_json::from_slice(&body).unwrap_or(Value::Null) };
    let n = count.fetch_add(1, Ordering::SeqCst);
    let reply = responder(n, &request);
    seen.lock().unwrap().push(request);
    let (status, headers, text) = match reply {
        Reply::Hang(d) => {
            thread::sleep(d);
            return;
        }
        Reply::Raw(status, text) => (status, Vec::new(), text),
        Reply::WithHeaders(status, headers, text) => (status, headers, text),
        Reply::Answer(content) => (
            200,
            Vec::new(),
            json!({
                "id": format!("chatcmpl-{n}"),
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
            })
            .to_string(),
        ),
    };
    let mut conn = conn;
    let extra: String = headers.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
    let _ = write!(
        conn,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{text}",
        text.len()
    );
    let _ = conn.flush();
}

/// Wraps a transport so backoff waits are recorded instead of slept.
pub(crate) struct NoSleep<T> {
    pub inner: T,
    pub slept: Mutex<Vec<Duration>>,
}

impl<T> NoSleep<T> {
    pub fn new(inner: T) -> NoSleep<T> {
        NoSleep { inner, slept: Mutex::new(Vec::new()) }
    }
}

impl<T: ChatTransport> ChatTransport for NoSleep<T> {
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError> {
        self.inner.complete(request)
    }
    fn admit(&self, request: &ChatRequest) {
        self.inner.admit(request)
    }
    fn sleep(&self, delay: Duration) {
        self.slept.lock().unwrap().push(delay);
    }
}
