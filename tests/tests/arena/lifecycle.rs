//! Deadlines that skip and force, and `--max-games` eviction.

use std::time::Duration;

use coordinator::arena::ArenaConfig;
use serde_json::{json, Value};

use super::client::*;

#[test]
pub(super) fn deadlines_skip_and_force_resolutions() {
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
pub(super) fn a_full_arena_evicts_the_oldest_ended_game_or_refuses() {
    let arena = Arena::start(ArenaConfig { admin_token: None, max_games: 2, rate_limits: UNLIMITED });
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
