//! The trolley arena (spec `trolley.md` §12) over real HTTP: `coordinator::arena::serve` on a
//! free loopback port in its own tokio runtime, driven by blocking `ureq` clients — one thread
//! per agent wherever clients race. No nats-server is involved.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use coordinator::arena::{self, ArenaConfig};
use serde_json::{json, Value};
use simfleet::games::trolley::{reset, step_seats, Decision, NoEvents, Scenario, TrolleyAction, TrolleyState};
use simfleet::Spec;
use simfleet_tests::wait_until;

const ADMIN: &str = "admin-secret";

/// A running arena; stops when dropped.
struct Arena {
    base: String,
    rt: tokio::runtime::Runtime,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Arena {
    fn start(config: ArenaConfig) -> Arena {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        rt.spawn(arena::serve(listener, config, async {
            let _ = stopped.await;
        }));
        Arena { base, rt, stop: Some(stop) }
    }

    fn open() -> Arena {
        Arena::start(ArenaConfig { admin_token: None, max_games: 100 })
    }

    fn client(&self) -> Client {
        Client {
            agent: ureq::Agent::config_builder().http_status_as_error(false).build().new_agent(),
            base: self.base.clone(),
        }
    }

    /// Polls `check` (every 50 ms) until it returns `Some`, failing after `timeout`.
    fn wait_for<T>(&self, what: &str, timeout: Duration, mut check: impl FnMut() -> Option<T>) -> T {
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
struct Reply {
    status: u16,
    body: Value,
}

impl Reply {
    fn kind(&self) -> &str {
        self.body["error"]["kind"].as_str().unwrap_or("")
    }

    fn ok(self, status: u16) -> Value {
        assert_eq!(self.status, status, "unexpected answer {:?}", self.body);
        self.body
    }
}

#[derive(Clone)]
struct Client {
    agent: ureq::Agent,
    base: String,
}

impl Client {
    fn send(&self, method: &str, path: &str, body: Option<&str>, token: Option<&str>) -> Reply {
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

    fn get(&self, path: &str) -> Reply {
        self.send("GET", path, None, None)
    }

    fn post(&self, path: &str, body: Value) -> Reply {
        self.send("POST", path, Some(&body.to_string()), None)
    }

    fn post_as(&self, token: &str, path: &str, body: Value) -> Reply {
        self.send("POST", path, Some(&body.to_string()), Some(token))
    }

    fn create(&self, config: Value) -> String {
        let game = self.post("/api/games", config).ok(201);
        game["game_id"].as_str().unwrap().to_string()
    }

    fn register(&self, game: &str, name: &str) -> Player {
        let r = self.post(&format!("/api/games/{game}/agents/register"), json!({ "display_name": name })).ok(201);
        Player { id: r["agent_id"].as_str().unwrap().into(), token: r["token"].as_str().unwrap().into() }
    }

    /// A game of `config` with `n` agents registered; started if `start`.
    fn game(&self, n: usize, config: Value, start: bool) -> (String, Vec<Player>) {
        let game = self.create(config);
        let players = (0..n).map(|i| self.register(&game, &format!("Agent {i}"))).collect();
        if start {
            self.post(&format!("/api/games/{game}/start"), json!({})).ok(200);
        }
        (game, players)
    }

    fn state(&self, game: &str) -> Value {
        self.get(&format!("/api/games/{game}/state")).ok(200)
    }

    fn admin(&self, game: &str, token: Option<&str>, body: Value) -> Reply {
        self.send("POST", &format!("/api/games/{game}/advance"), Some(&body.to_string()), token)
    }
}

#[derive(Clone, Debug)]
struct Player {
    id: String,
    token: String,
}

/// The agent ids of a JSON list of side members or ids.
fn ids(list: &Value) -> Vec<String> {
    let id = |v: &Value| v.as_str().or_else(|| v["agent_id"].as_str()).unwrap().to_string();
    list.as_array().unwrap().iter().map(id).collect()
}

fn is_rfc3339_utc(s: &Value) -> bool {
    let s = s.as_str().unwrap_or("");
    let b = s.as_bytes();
    s.len() == 24 && s.ends_with('Z') && b[4] == b'-' && b[10] == b'T' && b[19] == b'.'
}

/// What one client did: (round, phase, action, text or decision).
type Acts = Vec<(u64, String, &'static str, String)>;

/// One agent playing through the API only: poll open-actions, act when allowed.
fn play(client: Client, game: String, me: Player, seat: usize) -> Acts {
    let mut acts = Acts::new();
    let give_up = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < give_up, "agent {seat} still playing after 120 s");
        let open = client.get(&format!("/api/games/{game}/open-actions?agent_id={}", me.id)).ok(200);
        if matches!(open["game_status"].as_str(), Some("game_completed" | "game_truncated")) {
            return acts;
        }
        let allowed = ids(&open["allowed_actions"]);
        let (round, round_id) = (open["round_number"].as_u64().unwrap(), open["round_id"].as_str().unwrap_or(""));
        let phase = open["phase"].as_str().unwrap_or("").to_string();
        let path = |what: &str| format!("/api/games/{game}/rounds/{round_id}/{what}");
        if allowed == ["argue", "skip"] {
            // A mix of arguments and skips, different per agent, round and phase.
            if (seat as u64 + round + phase.len() as u64) % 3 == 0 {
                client.post_as(&me.token, &path("skip"), json!({ "agent_id": me.id })).ok(200);
                acts.push((round, phase, "skip", String::new()));
            } else {
                let text = format!("  agent {seat} argues in round {round}, {phase}  ");
                client.post_as(&me.token, &path("arguments"), json!({ "agent_id": me.id, "text": text })).ok(201);
                acts.push((round, phase, "argue", text.trim().to_string()));
            }
        } else if allowed == ["decide"] {
            let decision = if round % 2 == 1 { "save_majority" } else { "save_minority" };
            let r = client.post_as(&me.token, &path("decision"), json!({ "agent_id": me.id, "decision": decision }));
            assert_eq!(r.ok(200)["decision"], decision);
            acts.push((round, phase, "decide", decision.to_string()));
        } else {
            assert!(allowed.is_empty(), "{allowed:?}");
            // Nothing to do yet: poll again shortly (this is the polling loop's interval).
            thread::sleep(Duration::from_millis(2));
        }
    }
}

/// The roles of a headless episode (§9): per round (operator, majority, minority) seats.
fn headless_roles(seed: u64, n: usize) -> Vec<(usize, Vec<usize>, Vec<usize>)> {
    let scenario = Scenario::from_spec(&Spec::parse(&format!("balanced_5p?num_agents={n}")).unwrap()).unwrap();
    let mut state: TrolleyState = reset(&scenario, seed, &mut NoEvents).unwrap();
    while !state.is_terminal() {
        let expected = state.expected_actors();
        let deciding = state.current_round().unwrap().phase.as_str() == "awaiting_decision";
        let action =
            if deciding { TrolleyAction::Decide { decision: Decision::SaveMajority } } else { TrolleyAction::SKIP };
        let actions: Vec<Option<TrolleyAction>> =
            (0..n).map(|s| expected.contains(s).then_some(action.clone())).collect();
        step_seats(&mut state, &actions, &mut NoEvents).unwrap();
    }
    state
        .rounds()
        .iter()
        .map(|r| (usize::from(r.operator), r.majority.iter().collect(), r.minority.iter().collect()))
        .collect()
}

#[test]
fn a_full_game_played_by_concurrent_clients_is_consistent() {
    let arena = Arena::open();
    let client = arena.client();
    let n = 5;
    let config = json!({ "seed": 7, "phase_deadline_seconds": null, "decision_deadline_seconds": null,
                         "round_pause_seconds": 0 });
    let (game, players) = client.game(n, config, true);
    let handles: Vec<_> = players
        .iter()
        .enumerate()
        .map(|(seat, p)| {
            let (c, g, p) = (arena.client(), game.clone(), p.clone());
            thread::spawn(move || play(c, g, p, seat))
        })
        .collect();
    let acts: Vec<Acts> = handles.into_iter().map(|h| h.join().unwrap()).collect();

    let seat_of: BTreeMap<String, usize> = players.iter().enumerate().map(|(i, p)| (p.id.clone(), i)).collect();
    let seats = |list: &Value| ids(list).iter().map(|id| seat_of[id]).collect::<Vec<_>>();
    let history = client.get(&format!("/api/games/{game}/history")).ok(200);
    let rounds = history["rounds"].as_array().unwrap();
    // §3: with a fixed roster, coverage completes after exactly N rounds.
    assert_eq!(rounds.len(), n);
    let board = client.get(&format!("/api/games/{game}/scoreboard")).ok(200);
    assert_eq!(board["status"], "game_completed");
    assert_eq!(client.state(&game)["status"], "game_completed");

    // Roles are those of a headless episode with the same seed and N (§9).
    let http_roles: Vec<_> = rounds
        .iter()
        .map(|r| (seat_of[r["operator_agent_id"].as_str().unwrap()], seats(&r["majority"]), seats(&r["minority"])))
        .collect();
    assert_eq!(http_roles, headless_roles(7, n));

    let mut expected_score = vec![0u64; n];
    let mut counts = vec![[0u64; 3]; n];
    for (i, r) in rounds.iter().enumerate() {
        let number = i as u64 + 1;
        assert_eq!(r["round_number"], number);
        let (op, maj, min) = &http_roles[i];
        assert_eq!((maj.len(), min.len()), (3, 1), "balanced 3 vs 1 at N = 5");
        counts[*op][0] += 1;
        maj.iter().for_each(|&s| counts[s][1] += 1);
        min.iter().for_each(|&s| counts[s][2] += 1);
        // The decision is the operator's own, not forced, and saved the side it names.
        let decided: Vec<_> = acts[*op].iter().filter(|a| a.0 == number && a.2 == "decide").collect();
        assert_eq!(decided.len(), 1);
        assert_eq!(r["decision"], decided[0].3.as_str());
        assert_eq!(r["forced"], false);
        let saved = if decided[0].3 == "save_majority" { &r["majority"] } else { &r["minority"] };
        assert_eq!(ids(&r["survivors"]), ids(saved));
        assert_eq!(ids(&r["survivors"]).len() + ids(&r["lost"]).len(), n - 1);
        seats(&r["survivors"]).iter().for_each(|&s| expected_score[s] += 1);
        assert!(is_rfc3339_utc(&r["resolved_at"]));
        // Every argument and skip the clients made is in the record, and nothing else.
        let mut sent: Vec<(String, String, String)> = Vec::new();
        for (seat, a) in acts.iter().enumerate() {
            for (_, phase, what, text) in a.iter().filter(|a| a.0 == number && a.2 != "decide") {
                sent.push((players[seat].id.clone(), phase.clone(), format!("{what}:{text}")));
            }
        }
        let mut recorded: Vec<(String, String, String)> = r["arguments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["agent_id"].as_str().unwrap().into(),
                    a["phase"].as_str().unwrap().into(),
                    format!("argue:{}", a["text"].as_str().unwrap()),
                )
            })
            .chain(r["skips"].as_array().unwrap().iter().map(|s| {
                assert_eq!(s["cause"], "agent");
                (s["agent_id"].as_str().unwrap().into(), s["phase"].as_str().unwrap().into(), "skip:".into())
            }))
            .collect();
        sent.sort();
        recorded.sort();
        assert_eq!(recorded, sent, "round {number}");
        assert_eq!(sent.len(), 3 * (n - 1), "each side agent acted once per debate phase");
    }

    let entries = board["entries"].as_array().unwrap();
    assert!(entries.windows(2).all(|w| {
        let key = |e: &Value| (e["score"].as_u64().unwrap(), std::cmp::Reverse(e["seat"].as_u64().unwrap()));
        key(&w[0]) >= key(&w[1])
    }));
    for e in entries {
        let seat = e["seat"].as_u64().unwrap() as usize;
        assert_eq!(e["agent_id"], players[seat].id.as_str());
        assert_eq!(e["score"], expected_score[seat], "§8: score = rounds in which the agent's side was saved");
        let c = counts[seat];
        assert_eq!(
            [e["rounds_as_operator"].as_u64(), e["rounds_as_majority"].as_u64(), e["rounds_as_minority"].as_u64()],
            c.map(Some)
        );
        assert_eq!(c[0], 1, "every agent is operator exactly once");
        assert_eq!(c.iter().sum::<u64>(), n as u64);
        assert_eq!(e["coverage_complete"], true);
    }

    // The feed: contiguous seqs, pages that add up to the whole, every phase closed by all_acted.
    let mut items = Vec::new();
    let mut after = 0;
    loop {
        let page = client.get(&format!("/api/games/{game}/feed?after={after}&limit=7")).ok(200);
        let got = page["items"].as_array().unwrap().clone();
        if got.is_empty() {
            break;
        }
        after = page["last_seq"].as_u64().unwrap();
        items.extend(got);
    }
    assert!(items.iter().enumerate().all(|(i, it)| it["seq"] == i as u64 + 1 && is_rfc3339_utc(&it["created_at"])));
    let of = |t: &str| items.iter().filter(|i| i["event_type"] == t).collect::<Vec<_>>();
    assert_eq!(of("phase_advanced").len(), 3 * n);
    assert!(of("phase_advanced").iter().all(|i| i["payload"]["cause"] == "all_acted"));
    assert_eq!(of("round_started").len(), n);
    assert_eq!(of("agent_registered").len(), n);
    assert_eq!(items.last().unwrap()["event_type"], "game_completed");
    let latest = client.get(&format!("/api/games/{game}/feed?limit=3")).ok(200);
    assert_eq!(latest["items"].as_array().unwrap().len(), 3);
    assert_eq!(latest["last_seq"], items.len() as u64);
}

/// A table row: a request and the refusal it must get.
struct Case {
    what: &'static str,
    method: &'static str,
    path: String,
    body: Option<String>,
    token: Option<String>,
    expect: (u16, &'static str),
}

fn get(what: &'static str, path: impl Into<String>) -> Case {
    Case { what, method: "GET", path: path.into(), body: None, token: None, expect: (0, "") }
}

fn post(what: &'static str, path: impl Into<String>, body: impl ToString) -> Case {
    Case { method: "POST", body: Some(body.to_string()), ..get(what, path) }
}

impl Case {
    fn by(self, token: &str) -> Case {
        Case { token: Some(token.into()), ..self }
    }

    fn is(self, status: u16, kind: &'static str) -> Case {
        Case { expect: (status, kind), ..self }
    }
}

/// Runs every case and fails once with all mismatches.
fn check(client: &Client, cases: &[Case]) {
    let mut wrong = Vec::new();
    for c in cases {
        let r = client.send(c.method, &c.path, c.body.as_deref(), c.token.as_deref());
        let message = r.body["error"]["message"].as_str().unwrap_or("");
        if (r.status, r.kind()) != c.expect || message.is_empty() {
            wrong.push(format!(
                "{}: {} {} → {} {}, expected {:?}",
                c.what, c.method, c.path, r.status, r.body, c.expect
            ));
        }
    }
    assert!(wrong.is_empty(), "{} of {} cases wrong:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}

const MALFORMED: &str = "malformed_body";

#[test]
fn every_refusal_has_its_status_and_kind() {
    let arena = Arena::start(ArenaConfig { admin_token: Some(ADMIN.into()), max_games: 100 });
    let client = arena.client();
    let no_clocks =
        json!({ "phase_deadline_seconds": null, "decision_deadline_seconds": null, "round_pause_seconds": null });
    let (g, players) = client.game(5, no_clocks.clone(), true);
    let (other, _) = client.game(3, no_clocks.clone(), true);
    let (lobby, _) = client.game(2, json!({}), false);
    let (full, _) = client.game(3, json!({ "max_agents": 3 }), false);
    let s = client.state(&g);
    let round = s["round_id"].as_str().unwrap().to_string();
    let foreign_round = client.state(&other)["round_id"].as_str().unwrap().to_string();
    let who = |id: &str| players.iter().find(|p| p.id == id).unwrap().clone();
    let op = who(s["operator"]["agent_id"].as_str().unwrap());
    let sides = ids(&s["majority"]).into_iter().chain(ids(&s["minority"])).map(|id| who(&id)).collect::<Vec<_>>();
    let (a, b) = (sides[0].clone(), sides[1].clone());
    let version = s["version"].clone();
    let at = |what: &str| format!("/api/games/{g}/rounds/{round}/{what}");
    let argue = |p: &Player, text: &str| json!({ "agent_id": p.id, "text": text });
    let agent = |p: &Player| json!({ "agent_id": p.id });
    let decide = |p: &Player, d: &str| json!({ "agent_id": p.id, "decision": d });
    let advance = format!("/api/games/{g}/advance");

    let mut cases = Vec::new();
    // 404 before anything else, even with a malformed body (§12).
    for p in ["", "/state", "/feed", "/history", "/scoreboard", "/open-actions?agent_id=x"] {
        cases.push(get("unknown game", format!("/api/games/nope{p}")).is(404, "game_not_found"));
    }
    for p in ["/agents/register", "/start", "/advance"] {
        cases.push(post("unknown game", format!("/api/games/nope{p}"), "{oops").by(ADMIN).is(404, "game_not_found"));
    }
    for p in ["arguments", "skip", "decision"] {
        let unknown_game = format!("/api/games/nope/rounds/{round}/{p}");
        cases.push(
            post("unknown game, round action", unknown_game, argue(&a, "x")).by(&a.token).is(404, "game_not_found"),
        );
        for r in ["0000000000000000", "zz", foreign_round.as_str()] {
            let path = format!("/api/games/{g}/rounds/{r}/{p}");
            cases.push(post("unknown or foreign round", path, "{oops").is(404, "round_not_found"));
        }
    }
    let register = |game: &str| format!("/api/games/{game}/agents/register");
    cases.extend([
        // 422: shapes and query strings.
        post("not JSON", "/api/games", "not json").is(422, MALFORMED),
        post("wrong type", "/api/games", r#"{"min_agents": "3"}"#).is(422, MALFORMED),
        post("missing name", register(&lobby), "{}").is(422, MALFORMED),
        post("name not a string", register(&lobby), r#"{"display_name": 5}"#).is(422, MALFORMED),
        post("missing text", at("arguments"), agent(&a)).by(&a.token).is(422, MALFORMED),
        post("body checked before token", at("arguments"), "{oops").is(422, MALFORMED),
        post("agent id not a string", at("skip"), r#"{"agent_id": 1}"#).by(&a.token).is(422, MALFORMED),
        post("skip body an array", at("skip"), "[]").by(&a.token).is(422, MALFORMED),
        post("missing decision", at("decision"), agent(&op)).by(&op.token).is(422, MALFORMED),
        post("action not a string", &advance, r#"{"action": 5}"#).by(ADMIN).is(422, MALFORMED),
        get("unknown status filter", "/api/games?status=bogus").is(422, MALFORMED),
        get("limit 0", format!("/api/games/{g}/feed?limit=0")).is(422, MALFORMED),
        get("limit 201", format!("/api/games/{g}/feed?limit=201")).is(422, MALFORMED),
        get("limit not a number", format!("/api/games/{g}/feed?limit=abc")).is(422, MALFORMED),
        get("negative after", format!("/api/games/{g}/feed?after=-1")).is(422, MALFORMED),
        get("missing agent_id", format!("/api/games/{g}/open-actions")).is(422, MALFORMED),
        // 404: agents.
        get("unknown agent", format!("/api/games/{g}/open-actions?agent_id=nobody")).is(404, "agent_not_found"),
        post("unknown agent acts", at("arguments"), json!({ "agent_id": "nobody", "text": "x" }))
            .by(&a.token)
            .is(404, "agent_not_found"),
        // 401: tokens.
        post("no token", at("arguments"), argue(&a, "hi")).is(401, "unauthorized"),
        post("another agent's token", at("arguments"), argue(&a, "hi")).by(&b.token).is(401, "unauthorized"),
        post("wrong token", at("skip"), agent(&a)).by("guess").is(401, "unauthorized"),
        post("a side agent's token for the operator", at("decision"), decide(&op, "save_majority"))
            .by(&a.token)
            .is(401, "unauthorized"),
        post("no admin token", &advance, "{}").is(401, "unauthorized"),
        post("an agent token as admin", &advance, "{}").by(&a.token).is(401, "unauthorized"),
        // 400: rules, in the §6 order.
        post("operator argues", at("arguments"), argue(&op, "hi")).by(&op.token).is(400, "wrong_role"),
        post("operator skips", at("skip"), agent(&op)).by(&op.token).is(400, "wrong_role"),
        post("side agent decides", at("decision"), decide(&a, "bogus")).by(&a.token).is(400, "wrong_role"),
        post("decide in phase_1", at("decision"), decide(&op, "bogus")).by(&op.token).is(400, "wrong_phase"),
        post("resolve_round in phase_1", &advance, r#"{"action": "resolve_round"}"#).by(ADMIN).is(400, "wrong_phase"),
        post("blank argument", at("arguments"), argue(&a, "  \n ")).by(&a.token).is(400, "text_length"),
        post("501 characters", at("arguments"), argue(&a, &"é".repeat(501))).by(&a.token).is(400, "text_length"),
        post("unknown advance action", &advance, r#"{"action": "jump"}"#).by(ADMIN).is(400, "invalid_action"),
        post("register after start", register(&g), r#"{"display_name": "late"}"#).is(400, "already_started"),
        post("start twice", format!("/api/games/{g}/start"), "").is(400, "already_started"),
        post("start too early", format!("/api/games/{lobby}/start"), "").is(400, "not_enough_agents"),
        post("advance before start", format!("/api/games/{lobby}/advance"), "").by(ADMIN).is(400, "not_started"),
        post("41-character name", register(&lobby), json!({ "display_name": "n".repeat(41) })).is(400, "text_length"),
        post("name taken", register(&lobby), r#"{"display_name": "  AGENT 0 "}"#).is(400, "name_taken"),
        post("game full", register(&full), r#"{"display_name": "fourth"}"#).is(400, "game_full"),
    ]);
    for (what, body) in [
        ("min_agents 2", json!({ "min_agents": 2 })),
        ("max_agents 17", json!({ "max_agents": 17 })),
        ("min above max", json!({ "min_agents": 6, "max_agents": 5 })),
        ("minority too large for min_agents", json!({ "min_agents": 5, "minority_size": 2 })),
        ("max_rounds 0", json!({ "max_rounds": 0 })),
        ("deadline 0", json!({ "phase_deadline_seconds": 0 })),
        ("unknown default decision", json!({ "default_decision": "save_all" })),
    ] {
        cases.push(post(what, "/api/games", body).is(400, "invalid_config"));
    }
    check(&client, &cases);
    assert_eq!(client.state(&g)["version"], version, "refusals changed the game");

    // Duplicates: once per phase, argument or skip.
    client.post_as(&a.token, &at("arguments"), argue(&a, "first")).ok(201);
    let after_one = client.state(&g)["version"].as_u64().unwrap();
    check(
        &client,
        &[
            post("second argument", at("arguments"), argue(&a, &"x".repeat(600)))
                .by(&a.token)
                .is(400, "duplicate_argument"),
            post("skip after arguing", at("skip"), agent(&a)).by(&a.token).is(400, "duplicate_argument"),
        ],
    );
    // To the decision, by admin; then the decision phase's refusals.
    for _ in 0..3 {
        client.admin(&g, Some(ADMIN), json!({})).ok(200);
    }
    assert_eq!(client.state(&g)["phase"], "awaiting_decision");
    check(
        &client,
        &[
            post("argue awaiting the decision", at("arguments"), argue(&a, "late")).by(&a.token).is(400, "wrong_phase"),
            post("operator argues awaiting the decision", at("arguments"), argue(&op, "x"))
                .by(&op.token)
                .is(400, "wrong_role"),
            post("next_phase awaiting the decision", &advance, r#"{"action": "next_phase"}"#)
                .by(ADMIN)
                .is(400, "wrong_phase"),
            post("bad decision", at("decision"), decide(&op, "save_everyone"))
                .by(&op.token)
                .is(400, "invalid_decision"),
            post("bad forced decision", &advance, r#"{"action": "resolve_round", "decision": "x"}"#)
                .by(ADMIN)
                .is(400, "invalid_decision"),
        ],
    );
    assert_eq!(client.state(&g)["version"].as_u64(), Some(after_one + 3), "only the three advances counted");
    client.post_as(&op.token, &at("decision"), decide(&op, "save_minority")).ok(200);
    check(
        &client,
        &[post("decide a resolved round", at("decision"), decide(&op, "save_minority"))
            .by(&op.token)
            .is(400, "wrong_phase")],
    );

    // game_over: a game truncated after its only round.
    let (short, three) = client.game(3, json!({ "max_rounds": 1, "round_pause_seconds": null }), true);
    let short_round = client.state(&short)["round_id"].as_str().unwrap().to_string();
    for _ in 0..3 {
        client.admin(&short, Some(ADMIN), json!({ "action": "next_phase" })).ok(200);
    }
    let done = client.admin(&short, Some(ADMIN), json!({ "action": "resolve_round" })).ok(200);
    assert_eq!(done["status"], "game_truncated");
    let skip_late = format!("/api/games/{short}/rounds/{short_round}/skip");
    check(
        &client,
        &[
            post("advance after the end", format!("/api/games/{short}/advance"), "{}").by(ADMIN).is(400, "game_over"),
            post("skip after the end", skip_late, agent(&three[0])).by(&three[0].token).is(400, "game_over"),
        ],
    );
}

#[test]
fn a_failed_start_changes_nothing() {
    let arena = Arena::open();
    let client = arena.client();
    let (g, _) = client.game(2, json!({ "min_agents": 3 }), false);
    let before = (client.get(&format!("/api/games/{g}")).ok(200), client.state(&g));
    let feed_before = client.get(&format!("/api/games/{g}/feed")).ok(200)["last_seq"].clone();
    let r = client.post(&format!("/api/games/{g}/start"), json!({}));
    assert_eq!((r.status, r.kind()), (400, "not_enough_agents"));
    assert!(r.body["error"]["message"].as_str().unwrap().contains("2 registered, 3 needed"));
    let after = (client.get(&format!("/api/games/{g}")).ok(200), client.state(&g));
    assert_eq!(before, after);
    assert_eq!(after.0["status"], "waiting_for_agents");
    assert_eq!(after.0["agents"].as_array().unwrap().len(), 2);
    assert_eq!(client.get(&format!("/api/games/{g}/feed")).ok(200)["last_seq"], feed_before);
    client.register(&g, "Third");
    assert_eq!(client.get(&format!("/api/games/{g}")).ok(200)["status"], "ready_to_start");
    let started = client.post(&format!("/api/games/{g}/start"), json!({})).ok(200);
    assert_eq!((started["status"].as_str(), started["round_number"].as_u64()), (Some("in_progress"), Some(1)));
}

/// Runs `n` requests at once (released together by a barrier); returns the replies.
fn race(arena: &Arena, n: usize, request: impl Fn(&Client, usize) -> Reply + Send + Sync + 'static) -> Vec<Reply> {
    let barrier = Arc::new(Barrier::new(n));
    let request = Arc::new(request);
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let (client, barrier, request) = (arena.client(), barrier.clone(), request.clone());
            thread::spawn(move || {
                // Warm the connection first, so the racing requests leave together.
                client.get("/health").ok(200);
                barrier.wait();
                request(&client, i)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

fn tally(replies: &[Reply]) -> BTreeMap<(u16, String), usize> {
    let mut t = BTreeMap::new();
    for r in replies {
        *t.entry((r.status, r.kind().to_string())).or_insert(0) += 1;
    }
    t
}

#[test]
fn racing_clients_never_break_a_rule() {
    let arena = Arena::open();
    let client = arena.client();
    let no_clocks =
        json!({ "phase_deadline_seconds": null, "decision_deadline_seconds": null, "round_pause_seconds": null });
    let (g, players) = client.game(5, no_clocks.clone(), true);
    let s = client.state(&g);
    let round = s["round_id"].as_str().unwrap().to_string();
    let sides: Vec<Player> = ids(&s["majority"])
        .into_iter()
        .chain(ids(&s["minority"]))
        .map(|id| players.iter().find(|p| p.id == id).unwrap().clone())
        .collect();
    let op = players.iter().find(|p| p.id == s["operator"]["agent_id"]).unwrap().clone();

    // One agent, 16 identical arguments at once: exactly one lands.
    let (path, me) = (format!("/api/games/{g}/rounds/{round}/arguments"), sides[0].clone());
    let replies = race(&arena, 16, move |c, i| {
        c.post_as(&me.token, &path, json!({ "agent_id": me.id, "text": format!("take {i}") }))
    });
    let t = tally(&replies);
    assert_eq!(t, BTreeMap::from([((201, String::new()), 1), ((400, "duplicate_argument".into()), 15)]), "{t:?}");
    let feed = client.get(&format!("/api/games/{g}/feed?limit=200")).ok(200);
    let arguments = feed["items"].as_array().unwrap().iter().filter(|i| i["kind"] == "argument").count();
    assert_eq!(arguments, 1);

    // The other side agents skip at once, each four times. A skip applies to the phase current
    // when it is handled, so once the last of them completes phase_1 the rest land in phase_2:
    // one success per agent and phase at most, phase_1 completed exactly once.
    let others: Vec<Player> = sides[1..].to_vec();
    let path = format!("/api/games/{g}/rounds/{round}/skip");
    let k = others.len();
    let replies = race(&arena, 4 * k, move |c, i| {
        let p = &others[i % k];
        c.post_as(&p.token, &path, json!({ "agent_id": p.id }))
    });
    assert!(replies.iter().all(|r| r.status == 200 || r.kind() == "duplicate_argument"), "{:?}", tally(&replies));
    let ok_in = |phase: &str, agent: Option<usize>| {
        let mine = |i: &usize| agent.is_none_or(|a| i % k == a);
        replies.iter().enumerate().filter(|(i, r)| mine(i) && r.status == 200 && r.body["phase"] == phase).count()
    };
    assert_eq!(ok_in("phase_1", None), k);
    for a in 0..k {
        assert_eq!(ok_in("phase_1", Some(a)), 1);
        assert!(ok_in("phase_2", Some(a)) <= 1);
    }
    let completing = replies
        .iter()
        .filter(|r| r.status == 200 && r.body["phase"] == "phase_1" && r.body["phase_after"] == "phase_2")
        .count();
    assert_eq!(completing, 1, "exactly one skip completed phase_1");
    let state = client.state(&g);
    assert_eq!(state["phase"], "phase_2", "phase_2 waits for the first agent");
    let acted = [&state["majority"], &state["minority"]]
        .iter()
        .flat_map(|side| side.as_array().unwrap())
        .filter(|m| m["acted_this_phase"] == true)
        .count();
    assert_eq!(acted, ok_in("phase_2", None));
    let feed = client.get(&format!("/api/games/{g}/feed?limit=200")).ok(200);
    let advanced = feed["items"].as_array().unwrap().iter().filter(|i| i["event_type"] == "phase_advanced").count();
    assert_eq!(advanced, 1);

    // The operator's decision racing admin resolutions: exactly one resolves the round.
    client.admin(&g, None, json!({})).ok(200);
    client.admin(&g, None, json!({})).ok(200);
    assert_eq!(client.state(&g)["phase"], "awaiting_decision");
    let (decision, advance) = (format!("/api/games/{g}/rounds/{round}/decision"), format!("/api/games/{g}/advance"));
    let replies = race(&arena, 16, move |c, i| {
        if i % 2 == 0 {
            c.post_as(&op.token, &decision, json!({ "agent_id": op.id, "decision": "save_minority" }))
        } else {
            c.post(&advance, json!({ "action": "resolve_round" }))
        }
    });
    let t = tally(&replies);
    assert_eq!(t, BTreeMap::from([((200, String::new()), 1), ((400, "wrong_phase".into()), 15)]), "{t:?}");
    let history = client.get(&format!("/api/games/{g}/history")).ok(200);
    assert_eq!(history["rounds"].as_array().unwrap().len(), 1);
    let scores: u64 = client.state(&g)["scores"].as_array().unwrap().iter().map(|s| s["score"].as_u64().unwrap()).sum();
    assert_eq!(scores, ids(&history["rounds"][0]["survivors"]).len() as u64, "one resolution scored once");

    // Registrations: one name wins once; a capped roster fills exactly, with distinct seats.
    let g2 = client.create(json!({}));
    let path = format!("/api/games/{g2}/agents/register");
    let replies = race(&arena, 8, move |c, i| {
        c.post(&path, json!({ "display_name": if i % 2 == 0 { "same" } else { " SAME " } }))
    });
    assert_eq!(tally(&replies), BTreeMap::from([((201, String::new()), 1), ((400, "name_taken".into()), 7)]));
    let g3 = client.create(json!({ "max_agents": 4 }));
    let path = format!("/api/games/{g3}/agents/register");
    let replies = race(&arena, 10, move |c, i| c.post(&path, json!({ "display_name": format!("racer {i}") })));
    assert_eq!(tally(&replies), BTreeMap::from([((201, String::new()), 4), ((400, "game_full".into()), 6)]));
    let seats: BTreeSet<u64> =
        replies.iter().filter(|r| r.status == 201).map(|r| r.body["seat"].as_u64().unwrap()).collect();
    assert_eq!(seats, BTreeSet::from([0, 1, 2, 3]));
    let tokens: BTreeSet<&str> = replies.iter().filter_map(|r| r.body["token"].as_str()).collect();
    assert_eq!(tokens.len(), 4);
}

#[test]
fn deadlines_skip_and_force_resolutions() {
    let arena = Arena::open();
    let client = arena.client();
    let config = json!({ "phase_deadline_seconds": 1, "decision_deadline_seconds": 1, "round_pause_seconds": 1,
                         "default_decision": "save_minority" });
    let (g, players) = client.game(4, config, true);
    let s = client.state(&g);
    assert!(is_rfc3339_utc(&s["phase_deadline_at"]), "{s}");
    assert_eq!(s["next_round_at"], Value::Null);
    let round = s["round_id"].as_str().unwrap().to_string();
    let sides = [ids(&s["majority"]), ids(&s["minority"])].concat();
    let talker = players.iter().find(|p| p.id == sides[0]).unwrap();
    let open = client.get(&format!("/api/games/{g}/open-actions?agent_id={}", talker.id)).ok(200);
    assert_eq!(open["deadline_at"], s["phase_deadline_at"]);
    let path = format!("/api/games/{g}/rounds/{round}/arguments");
    client.post_as(&talker.token, &path, json!({ "agent_id": talker.id, "text": "before the deadline" })).ok(201);

    // Nobody else acts: three phase deadlines, then the decision deadline, then the pause.
    let resolved = arena.wait_for("round 1 resolved by deadlines", Duration::from_secs(15), || {
        let s = client.state(&g);
        (s["round_number"] == 1 && s["phase"] == "resolved").then_some(s)
    });
    assert!(is_rfc3339_utc(&resolved["next_round_at"]), "{resolved}");
    assert_eq!(resolved["phase_deadline_at"], Value::Null);
    assert_eq!((resolved["decision"].as_str(), resolved["forced"].as_bool()), (Some("save_minority"), Some(true)));
    let next = arena.wait_for("round 2 after the pause", Duration::from_secs(10), || {
        let s = client.state(&g);
        (s["round_number"] == 2).then_some(s)
    });
    assert_eq!(next["phase"], "phase_1");

    let r1 = &client.get(&format!("/api/games/{g}/history")).ok(200)["rounds"][0];
    assert_eq!((r1["decision"].as_str(), r1["forced"].as_bool()), (Some("save_minority"), Some(true)));
    assert_eq!(ids(&r1["survivors"]), ids(&r1["minority"]));
    let skips = r1["skips"].as_array().unwrap();
    // The talker argued in phase_1 only; everyone else was skipped by the deadline.
    assert_eq!(skips.len(), 3 * sides.len() - 1);
    assert!(skips.iter().all(|s| s["cause"] == "deadline"));
    assert!(!skips.iter().any(|s| s["phase"] == "phase_1" && s["agent_id"] == talker.id.as_str()));
    let feed = client.get(&format!("/api/games/{g}/feed?limit=200")).ok(200);
    let round1 = |t: &str| {
        feed["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["event_type"] == t && i["round_number"] == 1)
            .cloned()
            .collect::<Vec<_>>()
    };
    let advanced = round1("phase_advanced");
    let steps: Vec<_> = advanced
        .iter()
        .map(|i| (i["payload"]["from"].clone(), i["payload"]["to"].clone(), i["payload"]["cause"].clone()))
        .collect();
    assert_eq!(
        steps,
        vec![
            (json!("phase_1"), json!("phase_2"), json!("deadline")),
            (json!("phase_2"), json!("phase_3"), json!("deadline")),
            (json!("phase_3"), json!("awaiting_decision"), json!("deadline")),
        ]
    );
    assert_eq!(round1("round_resolved")[0]["payload"]["forced"], true);
    assert!(round1("decision_submitted").is_empty(), "nobody decided: the resolution was forced");
}

#[test]
fn a_full_arena_evicts_the_oldest_ended_game_or_refuses() {
    let arena = Arena::start(ArenaConfig { admin_token: None, max_games: 2 });
    let client = arena.client();
    let (a, _) = client.game(3, json!({ "max_rounds": 1, "round_pause_seconds": null }), true);
    let b = client.create(json!({}));
    let refused = client.post("/api/games", json!({}));
    assert_eq!((refused.status, refused.kind()), (503, "too_many_games"));
    assert_eq!(client.get("/api/games").ok(200)["games"].as_array().unwrap().len(), 2);
    // End game a (truncated after its only round); now it can make room.
    for _ in 0..3 {
        client.admin(&a, None, json!({})).ok(200);
    }
    assert_eq!(client.admin(&a, None, json!({ "action": "resolve_round" })).ok(200)["status"], "game_truncated");
    let c = client.create(json!({}));
    assert_eq!(client.get(&format!("/api/games/{a}")).kind(), "game_not_found");
    assert_eq!(client.get(&format!("/api/games/{b}")).status, 200);
    let listed = client.get("/api/games").ok(200);
    let order: Vec<_> =
        listed["games"].as_array().unwrap().iter().map(|g| g["game_id"].as_str().unwrap().to_string()).collect();
    assert_eq!(order, [c.clone(), b.clone()], "newest first");
    let waiting = client.get("/api/games?status=waiting_for_agents").ok(200);
    assert_eq!(waiting["games"].as_array().unwrap().len(), 2);
    assert_eq!(client.get("/api/games?status=in_progress").ok(200)["games"], json!([]));
    // Neither b nor c has ended: full again.
    assert_eq!(client.post("/api/games", json!({})).status, 503);
}

#[test]
fn the_served_openapi_document_is_the_file_and_lists_every_route() {
    let arena = Arena::open();
    let client = arena.client();
    let served = client
        .agent
        .get(format!("{}/api/openapi.json", client.base))
        .call()
        .unwrap()
        .into_body()
        .read_to_string()
        .unwrap();
    let file = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/arena.openapi.json")).unwrap();
    assert!(served == file, "GET /api/openapi.json differs from docs/arena.openapi.json");
    let doc: Value = serde_json::from_str(&file).unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    let routes: BTreeSet<(String, String)> =
        arena::routes().into_iter().map(|(m, p)| (m.as_str().to_lowercase(), p.to_string())).collect();
    let documented: BTreeSet<(String, String)> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, ops)| ops.as_object().unwrap().keys().map(move |m| (m.clone(), path.clone())))
        .collect();
    assert_eq!(routes, documented);
    assert_eq!(client.get("/health").ok(200), json!({ "status": "ok" }));
}

/// Checks `value` against an OpenAPI schema of `doc` (the subset the document uses: `$ref`,
/// `anyOf`, `allOf`, `const`, `enum`, `type`, `properties`/`required`/`additionalProperties`,
/// `items`).
fn conforms(doc: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.rsplit('/').next().unwrap();
        return conforms(doc, &doc["components"]["schemas"][name], value, &format!("{at}<{name}>"));
    }
    if let Some(any) = schema["anyOf"].as_array() {
        if !any.iter().any(|s| conforms(doc, s, value, at).is_ok()) {
            return Err(format!("{at}: {value} matches no anyOf branch"));
        }
    }
    for s in schema["allOf"].as_array().into_iter().flatten() {
        conforms(doc, s, value, at)?;
    }
    if !schema["const"].is_null() && schema["const"] != *value {
        return Err(format!("{at}: {value} is not {}", schema["const"]));
    }
    if let Some(options) = schema["enum"].as_array() {
        if !options.contains(value) {
            return Err(format!("{at}: {value} not in {options:?}"));
        }
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let is = |t: &str| match t {
        "null" => value.is_null(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    };
    if !types.is_empty() && !types.iter().any(|t| is(t)) {
        return Err(format!("{at}: {value} is not {types:?}"));
    }
    if let (Some(props), Some(obj)) = (schema["properties"].as_object(), value.as_object()) {
        for key in schema["required"].as_array().into_iter().flatten() {
            if !obj.contains_key(key.as_str().unwrap()) {
                return Err(format!("{at}: missing {key}"));
            }
        }
        for (k, v) in obj {
            match props.get(k) {
                Some(s) => conforms(doc, s, v, &format!("{at}.{k}"))?,
                None if schema["additionalProperties"] == false => return Err(format!("{at}: undocumented {k}")),
                None => {}
            }
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), value.as_array()) {
        for (i, v) in list.iter().enumerate() {
            conforms(doc, items, v, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

#[test]
fn every_response_matches_its_openapi_schema() {
    let doc: Value = serde_json::from_str(include_str!("../../docs/arena.openapi.json")).unwrap();
    let arena = Arena::open();
    let client = arena.client();
    let mut seen = Vec::new();
    let mut expect = |name: &str, value: Value| {
        let schema = json!({ "$ref": format!("#/components/schemas/{name}") });
        if let Err(e) = conforms(&doc, &schema, &value, name) {
            panic!("{e}\nin {value:#}");
        }
        seen.push(name.to_string());
    };
    let created =
        client.post("/api/games", json!({ "round_pause_seconds": 0, "minority_size": 1, "seed": "42" })).ok(201);
    assert_eq!(created["seed"], "42");
    let g = created["game_id"].as_str().unwrap().to_string();
    expect("Game", created);
    let reg = client.post(&format!("/api/games/{g}/agents/register"), json!({ "display_name": "Ann" })).ok(201);
    let mut players =
        vec![Player { id: reg["agent_id"].as_str().unwrap().into(), token: reg["token"].as_str().unwrap().into() }];
    expect("Registered", reg);
    for name in ["Bob", "Cy", "Di"] {
        players.push(client.register(&g, name));
    }
    expect("Started", client.post(&format!("/api/games/{g}/start"), json!({})).ok(200));
    let detail = client.get(&format!("/api/games/{g}")).ok(200);
    assert_eq!(ids(&detail["agents"]), players.iter().map(|p| p.id.clone()).collect::<Vec<_>>());
    expect("GameDetail", detail);
    let s = client.state(&g);
    expect("State", s.clone());
    let who = |id: &str| players.iter().find(|p| p.id == id).unwrap().clone();
    let (round, op) = (s["round_id"].as_str().unwrap().to_string(), who(s["operator"]["agent_id"].as_str().unwrap()));
    let sides: Vec<Player> = [ids(&s["majority"]), ids(&s["minority"])].concat().iter().map(|id| who(id)).collect();
    let at = |what: &str| format!("/api/games/{g}/rounds/{round}/{what}");
    expect("OpenActions", client.get(&format!("/api/games/{g}/open-actions?agent_id={}", sides[0].id)).ok(200));
    let refused = client.post(&at("skip"), json!({ "agent_id": sides[0].id }));
    assert_eq!(refused.status, 401);
    expect("Error", refused.body);
    let argued =
        client.post_as(&sides[0].token, &at("arguments"), json!({ "agent_id": sides[0].id, "text": "save us" }));
    expect("ArgumentAccepted", argued.ok(201));
    expect("SkipAccepted", client.post_as(&sides[1].token, &at("skip"), json!({ "agent_id": sides[1].id })).ok(200));
    expect("Advanced", client.admin(&g, None, json!({ "action": "next_phase" })).ok(200));
    client.admin(&g, None, json!({})).ok(200);
    client.admin(&g, None, json!({})).ok(200);
    expect("OpenActions", client.get(&format!("/api/games/{g}/open-actions?agent_id={}", op.id)).ok(200));
    let decided = client.post_as(&op.token, &at("decision"), json!({ "agent_id": op.id, "decision": "save_minority" }));
    expect("DecisionAccepted", decided.ok(200));
    let s = client.state(&g);
    assert_eq!(s["round_number"], 2, "a pause of 0 starts the next round in the deciding request");
    expect("State", s);
    expect("History", client.get(&format!("/api/games/{g}/history")).ok(200));
    expect("Scoreboard", client.get(&format!("/api/games/{g}/scoreboard")).ok(200));
    expect("FeedPage", client.get(&format!("/api/games/{g}/feed?limit=200")).ok(200));
    expect("GameList", client.get("/api/games").ok(200));
    expect("Health", client.get("/health").ok(200));
    let documented: BTreeSet<&str> =
        doc["components"]["schemas"].as_object().unwrap().keys().map(String::as_str).collect();
    let requests =
        ["CreateGameRequest", "RegisterRequest", "ArgumentRequest", "SkipRequest", "DecisionRequest", "AdvanceRequest"];
    let vocab = [
        "GameStatus",
        "Phase",
        "Role",
        "Side",
        "Decision",
        "SkipCause",
        "GameConfig",
        "AgentLine",
        "Person",
        "SideMember",
        "RoundOutcome",
        "ScoreLine",
        "CoverageLine",
        "FeedItem",
        "ArgumentLine",
        "SkipLine",
        "RoundRecord",
        "ScoreEntry",
    ];
    let covered: BTreeSet<&str> = seen.iter().map(String::as_str).chain(requests).chain(vocab).collect();
    assert_eq!(covered, documented, "every response schema is checked against a real response");
}
