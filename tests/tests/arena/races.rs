//! Clients racing the same action: exactly one wins, the rest get the rule's refusal.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Barrier};
use std::thread;

use serde_json::json;

use super::client::*;

/// Runs `n` requests at once (released together by a barrier); returns the replies.
pub(super) fn race(
    arena: &Arena,
    n: usize,
    request: impl Fn(&Client, usize) -> Reply + Send + Sync + 'static,
) -> Vec<Reply> {
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

pub(super) fn tally(replies: &[Reply]) -> BTreeMap<(u16, String), usize> {
    let mut t = BTreeMap::new();
    for r in replies {
        *t.entry((r.status, r.kind().to_string())).or_insert(0) += 1;
    }
    t
}

#[test]
pub(super) fn racing_clients_never_break_a_rule() {
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
