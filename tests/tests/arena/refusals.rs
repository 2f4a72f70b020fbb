//! Every refusal of §6/§12 with its status and kind, table-driven; a failed start changes
//! nothing.

use coordinator::arena::ArenaConfig;
use serde_json::json;

use super::client::*;

/// A table row: a request and the refusal it must get.
pub(super) struct Case {
    what: &'static str,
    method: &'static str,
    path: String,
    body: Option<String>,
    token: Option<String>,
    expect: (u16, &'static str),
}

pub(super) fn get(what: &'static str, path: impl Into<String>) -> Case {
    Case { what, method: "GET", path: path.into(), body: None, token: None, expect: (0, "") }
}

pub(super) fn post(what: &'static str, path: impl Into<String>, body: impl ToString) -> Case {
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
pub(super) fn check(client: &Client, cases: &[Case]) {
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

pub(super) const MALFORMED: &str = "malformed_body";

#[test]
pub(super) fn every_refusal_has_its_status_and_kind() {
    let arena = Arena::start(ArenaConfig { admin_token: Some(ADMIN.into()), max_games: 100, rate_limits: UNLIMITED });
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
pub(super) fn a_failed_start_changes_nothing() {
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
