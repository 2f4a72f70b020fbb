//! A minimal HTTP `CONNECT` proxy (what `HTTPS_PROXY` points at): accepts a tunnel request,
//! connects to the target, answers `200`, then copies bytes both ways. It counts the tunnels it
//! opened and remembers their targets, so a test can tell that a call went through it.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// A running proxy (its thread lives as long as the test process; it holds no resources of
/// note between tests).
#[derive(Debug)]
pub struct ConnectProxy {
    addr: SocketAddr,
    targets: Arc<Mutex<Vec<String>>>,
}

impl ConnectProxy {
    /// Starts a proxy on a free loopback port.
    pub fn start() -> ConnectProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("the bound address");
        let targets = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&targets);
        std::thread::spawn(move || {
            for conn in listener.incoming().map_while(Result::ok) {
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || tunnel(conn, &seen));
            }
        });
        ConnectProxy { addr, targets }
    }

    /// `http://127.0.0.1:<port>`, for `HTTPS_PROXY`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The `host:port` of every tunnel opened so far.
    pub fn targets(&self) -> Vec<String> {
        self.targets.lock().expect("targets lock").clone()
    }
}

fn tunnel(client: TcpStream, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(client.try_clone().expect("clone the socket"));
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let (Some("CONNECT"), Some(target)) = (parts.next(), parts.next()) else {
        let _ = (&client).write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n");
        return;
    };
    seen.lock().expect("targets lock").push(target.to_string());
    let Ok(upstream) = TcpStream::connect(target) else {
        let _ = (&client).write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
        return;
    };
    if (&client).write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n").is_err() {
        return;
    }
    let (mut c2, mut u2) = (client.try_clone().expect("clone"), upstream.try_clone().expect("clone"));
    let up = std::thread::spawn(move || {
        // What the client sent after the CONNECT head is still in the reader's buffer.
        let _ = std::io::copy(&mut reader, &mut u2);
        let _ = u2.shutdown(std::net::Shutdown::Write);
    });
    let mut upstream = upstream;
    let _ = std::io::copy(&mut upstream, &mut c2);
    let _ = c2.shutdown(std::net::Shutdown::Write);
    let _ = up.join();
}
