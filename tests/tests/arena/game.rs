//! A whole game played only through the API by concurrent clients, checked against the
//! headless engine's roles for the same seed.

use std::collections::BTreeMap;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use simfleet::games::trolley::{reset, step_seats, Decision, NoEvents, Scenario, TrolleyAction, TrolleyState};
use simfleet::Spec;

use super::client::*;

/// What one client did: (round, phase, action, text or decision).
type Acts = Vec<(u64, String, &'static str, String)>;

/// One agent playing through the API only: poll open-actions, act when allowed.
pub(super) fn play(client: Client, game: String, me: Player, seat: usize) -> Acts {
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
            if (seat as u64 + round + phase.len() as u64).is_multiple_of(3) {
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
pub(super) fn headless_roles(seed: u64, n: usize) -> Vec<(usize, Vec<usize>, Vec<usize>)> {
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
pub(super) fn a_full_game_played_by_concurrent_clients_is_consistent() {
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
