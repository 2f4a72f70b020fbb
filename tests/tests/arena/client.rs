//! The arena under test and its HTTP clients: `Arena` (serve on a free port, stop on drop),
//! `Client` (blocking `ureq`), `Reply`, and small JSON helpers.

use std::time::Duration;

use coordinator::arena::{self, ArenaConfig, RateLimits};
use serde_json::{json, Value};
use simfleet_tests::wait_until;

pub(super) const ADMIN: &str = "admin-secret";

/// No per-client limits: the contract and lifecycle tests create games and register agents far
/// faster than any one client may by default (`protection.rs` tests the limits).
pub(super) const UNLIMITED: RateLimits = RateLimits { games_per_minute: 0, registrations_per_minute: 0 };

/// A running arena; stops when dropped.
pub(super) struct Arena {
    pub(super) base: String,
    pub(super) rt: tokio::runtime::Runtime,
    pub(super) stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Arena {
    pub(super) fn start(config: ArenaConfig) -> Arena {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        rt.spawn(arena::serve(listener, config, async {
            let _ = stopped.await;
        }));
        Arena { base, rt, stop: Some(stop) }
    }

    pub(super) fn open() -> Arena {
        Arena::start(ArenaConfig { admin_token: None, max_games: 100, rate_limits: UNLIMITED })
    }

    pub(super) fn client(&self) -> Client {
        Client {
            agent: ureq::Agent::config_builder().http_status_as_error(false).build().new_agent(),
            base: self.base.clone(),
        }
    }

    /// Polls `check` (every 50 ms) until it returns `Some`, failing after `timeout`.
    pub(super) fn wait_for<T>(&self, what: &str, timeout: Duration, mut check: impl FnMut() -> Option<T>) -> T {
        self.rt.block_on(wait_until(what, timeout, || std::future::ready(check())))
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A status and a JSON body (`null` if the body is not JSON).
#[derive(Debug)]
pub(super) struct Reply {
    pub(super) status: u16,
    pub(super) body: Value,
}

impl Reply {
    pub(super) fn kind(&self) -> &str {
        self.body["error"]["kind"].as_str().unwrap_or("")
    }

    pub(super) fn ok(self, status: u16) -> Value {
        assert_eq!(self.status, status, "unexpected answer {:?}", self.body);
        self.body
    }
}

#[derive(Clone)]
pub(super) struct Client {
    pub(super) agent: ureq::Agent,
    pub(super) base: String,
}

impl Client {
    pub(super) fn send(&self, method: &str, path: &str, body: Option<&str>, token: Option<&str>) -> Reply {
        let url = format!("{}{path}", self.base);
        let auth = token.map(|t| format!("Bearer {t}"));
        let response = match method {
            "GET" => {
                let mut req = self.agent.get(&url);
                if let Some(a) = &auth {
                    req = req.header("authorization", a);
                }
                req.call()
            }
            _ => {
                let mut req = self.agent.post(&url).content_type("application/json");
                if let Some(a) = &auth {
                    req = req.header("authorization", a);
                }
                req.send(body.unwrap_or(""))
            }
        };
        let response = response.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = response.status().as_u16();
        let text = response.into_body().read_to_string().unwrap();
        Reply { status, body: serde_json::from_str(&text).unwrap_or(Value::Null) }
    }

    pub(super) fn get(&self, path: &str) -> Reply {
        self.send("GET", path, None, None)
    }

    pub(super) fn post(&self, path: &str, body: Value) -> Reply {
        self.send("POST", path, Some(&body.to_string()), None)
    }

    pub(super) fn post_as(&self, token: &str, path: &str, body: Value) -> Reply {
        self.send("POST", path, Some(&body.to_string()), Some(token))
    }

    pub(super) fn create(&self, config: Value) -> String {
        let game = self.post("/api/games", config).ok(201);
        game["game_id"].as_str().unwrap().to_string()
    }

    pub(super) fn register(&self, game: &str, name: &str) -> Player {
        let r = self.post(&format!("/api/games/{game}/agents/register"), json!({ "display_name": name })).ok(201);
        Player { id: r["agent_id"].as_str().unwrap().into(), token: r["token"].as_str().unwrap().into() }
    }

    /// A game of `config` with `n` agents registered; started if `start`.
    pub(super) fn game(&self, n: usize, config: Value, start: bool) -> (String, Vec<Player>) {
        let game = self.create(config);
        let players = (0..n).map(|i| self.register(&game, &format!("Agent {i}"))).collect();
        if start {
            self.post(&format!("/api/games/{game}/start"), json!({})).ok(200);
        }
        (game, players)
    }

    pub(super) fn state(&self, game: &str) -> Value {
        self.get(&format!("/api/games/{game}/state")).ok(200)
    }

    pub(super) fn admin(&self, game: &str, token: Option<&str>, body: Value) -> Reply {
        self.send("POST", &format!("/api/games/{game}/advance"), Some(&body.to_string()), token)
    }
}

#[derive(Clone, Debug)]
pub(super) struct Player {
    pub(super) id: String,
    pub(super) token: String,
}

/// The agent ids of a JSON list of side members or ids.
pub(super) fn ids(list: &Value) -> Vec<String> {
    let id = |v: &Value| v.as_str().or_else(|| v["agent_id"].as_str()).unwrap().to_string();
    list.as_array().unwrap().iter().map(id).collect()
}

pub(super) fn is_rfc3339_utc(s: &Value) -> bool {
    let s = s.as_str().unwrap_or("");
    let b = s.as_bytes();
    s.len() == 24 && s.ends_with('Z') && b[4] == b'-' && b[10] == b'T' && b[19] == b'.'
}
