//! The arena protected by default, tried as a new user would: `coordinator arena` refuses a
//! non-loopback `--listen` without an admin token (naming the option), and a client creating
//! games or registering agents past its per-address limit gets `429 rate_limited` with
//! `Retry-After` while another client address is still served. Two client addresses on one
//! machine: the loopback network is all of 127.0.0.0/8, so a second client binds 127.0.0.2.

use std::io::Read;
use std::net::SocketAddr;
use std::process::{Command, Stdio};

use coordinator::arena::{ArenaConfig, RateLimits};
use serde_json::{json, Value};
use simfleet_tests::coordinator_binary;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::client::*;

/// A raw HTTP/1.1 exchange from client address `from`: status, headers (lowercase names), body.
fn post_from(arena: &Arena, from: &str, path: &str, body: Value) -> (u16, Vec<(String, String)>, Value) {
    let to: SocketAddr = arena.base.trim_start_matches("http://").parse().unwrap();
    let from: SocketAddr = format!("{from}:0").parse().unwrap();
    let raw = arena.rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(from).unwrap();
        let mut stream = socket.connect(to).await.unwrap();
        let body = body.to_string();
        let request = format!(
            "POST {path} HTTP/1.1\r\nhost: {to}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             connection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).await.unwrap();
        raw
    });
    let (head, body) = raw.split_once("\r\n\r\n").expect("a response head");
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// Asserts a 429 as the OpenAPI document describes it.
fn assert_rate_limited(status: u16, headers: &[(String, String)], body: &Value, limit: u32) {
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["error"]["kind"], "rate_limited");
    let retry: u64 = header(headers, "retry-after").expect("a Retry-After header").parse().unwrap();
    // One call per 60 / limit seconds, rounded up.
    assert!((1..=60u64.div_ceil(u64::from(limit))).contains(&retry), "Retry-After {retry}");
    let doc: Value = serde_json::from_str(include_str!("../../../docs/arena.openapi.json")).unwrap();
    super::openapi::conforms(&doc, &json!({"$ref": "#/components/schemas/Error"}), body, "429").unwrap();
}

#[test]
fn a_client_creating_games_past_the_default_limit_gets_429_while_another_is_served() {
    // What a user gets: the defaults.
    let arena = Arena::start(ArenaConfig::default());
    let limit = RateLimits::default().games_per_minute;
    for i in 0..limit {
        let (status, _, body) = post_from(&arena, "127.0.0.1", "/api/games", json!({}));
        assert_eq!(status, 201, "game {i}: {body}");
    }
    let (status, headers, body) = post_from(&arena, "127.0.0.1", "/api/games", json!({}));
    assert_rate_limited(status, &headers, &body, limit);
    let (status, _, body) = post_from(&arena, "127.0.0.2", "/api/games", json!({}));
    assert_eq!(status, 201, "another address is served: {body}");
}

#[test]
fn a_client_registering_past_its_limit_gets_429_while_another_is_served() {
    let limits = RateLimits { registrations_per_minute: 3, ..RateLimits::default() };
    let arena = Arena::start(ArenaConfig { rate_limits: limits, ..ArenaConfig::default() });
    let (_, _, game) = post_from(&arena, "127.0.0.1", "/api/games", json!({"max_agents": 10}));
    let register = format!("/api/games/{}/agents/register", game["game_id"].as_str().unwrap());
    for name in ["Ann", "Bob", "Cy"] {
        let (status, _, body) = post_from(&arena, "127.0.0.1", &register, json!({"display_name": name}));
        assert_eq!(status, 201, "{body}");
    }
    let (status, headers, body) = post_from(&arena, "127.0.0.1", &register, json!({"display_name": "Di"}));
    assert_rate_limited(status, &headers, &body, 3);
    let (status, _, body) = post_from(&arena, "127.0.0.2", &register, json!({"display_name": "Di"}));
    assert_eq!(status, 201, "another address is served: {body}");
}

/// Runs `coordinator arena ARGS` with `env`; returns (exit code or None if it kept serving, its
/// first stdout line, stderr). A server that starts is stopped once it says where it listens.
fn arena_binary(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut child = Command::new(coordinator_binary())
        .arg("arena")
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    // Either the server prints where it listens, or it exits (EOF) having refused.
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    let code = if first.is_empty() {
        child.wait().unwrap().code()
    } else {
        child.kill().unwrap();
        child.wait().unwrap();
        None
    };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    (code, first, stderr)
}

#[test]
fn the_arena_refuses_to_serve_beyond_loopback_without_an_admin_token() {
    let (code, _, stderr) = arena_binary(&["--listen", "0.0.0.0:0"], &[]);
    assert!(code.is_some_and(|c| c != 0), "exit {code:?}: {stderr}");
    assert!(stderr.contains("--admin-token-env") && stderr.contains("--allow-open-admin"), "{stderr}");
    // With a token, or opened on purpose (with a warning), it serves.
    let (code, first, stderr) = arena_binary(
        &["--listen", "0.0.0.0:0", "--admin-token-env", "SIMFLEET_TEST_ARENA_TOKEN"],
        &[("SIMFLEET_TEST_ARENA_TOKEN", "s3cret")],
    );
    assert_eq!(code, None, "{stderr}");
    assert!(first.starts_with("arena listening on http://0.0.0.0:"), "{first}");
    let (code, first, stderr) = arena_binary(&["--listen", "0.0.0.0:0", "--allow-open-admin"], &[]);
    assert_eq!(code, None, "{stderr}");
    assert!(first.starts_with("arena listening on"), "{first}");
    assert!(stderr.contains("warning: --allow-open-admin"), "{stderr}");
    // The default, loopback, needs neither.
    let (code, first, stderr) = arena_binary(&["--listen", "127.0.0.1:0"], &[]);
    assert_eq!(code, None, "{stderr}");
    assert!(first.starts_with("arena listening on http://127.0.0.1:") && stderr.is_empty(), "{first} {stderr}");
}
