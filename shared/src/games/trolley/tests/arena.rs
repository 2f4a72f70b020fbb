//! The rules driven the way the arena drives them (§12): opaque ids, a random round-id base,
//! events rendered as feed items, and the JSON views.

use serde_json::Value;

use super::*;
use crate::games::trolley::feed::feed_item;
use crate::games::trolley::responses::{Advanced, ArgumentAccepted, DecisionAccepted, SkipAccepted, Started};
use crate::games::trolley::view::{history, open_actions_view, scoreboard, state_view};

fn arena_game(n: usize, seed: u64, events: &mut Vec<Event>) -> TrolleyState {
    let mut s = TrolleyState::new_game(TrolleyConfig::default(), seed, 0xdead_beef_0000, events).unwrap();
    for i in 0..n {
        s.register(&format!("Player {i}"), &format!("opaque-{i:04x}"), events).unwrap();
    }
    s
}

#[test]
fn an_arena_game_has_the_headless_roles_for_the_same_seed_and_n() {
    for (scenario, n) in [("balanced_5p", 5), ("large_10p", 10), ("trio_3p", 3)] {
        let mut g = prepare(scenario, &team("persuadable", n)).unwrap();
        g.play(123, false);
        let mut events = Vec::new();
        let mut s = arena_game(n, 123, &mut events);
        s.start(&mut events).unwrap();
        while !s.is_terminal() {
            // Deadlines, admin and explicit actions mixed: roles must not care.
            s.expire_phase(&mut events).unwrap();
            s.advance(AdvanceAction::NextPhase, &mut events).unwrap();
            all_skip(&mut s);
            s.expire_decision(&mut events).unwrap();
            if !s.is_terminal() {
                s.advance(AdvanceAction::NextPhase, &mut events).unwrap();
            }
        }
        let roles =
            |st: &TrolleyState| st.rounds().iter().map(|r| (r.operator, r.majority, r.minority)).collect::<Vec<_>>();
        assert_eq!(roles(&s), roles(g.state()), "{scenario}");
    }
}

#[test]
fn views_have_the_spec_shapes() {
    let mut events = Vec::new();
    let mut s = arena_game(4, 9, &mut events);
    let v = serde_json::to_value(state_view(&s, "g1")).unwrap();
    assert_eq!((v["status"].as_str(), v["round_number"].as_u64()), (Some("ready_to_start"), Some(0)));
    let round = s.start(&mut events).unwrap();
    assert_eq!(serde_json::to_value(Started::new("g1", &s, round)).unwrap()["round_id"], round.to_string());
    let r = current(&s);
    let side = r.sides().iter().next().unwrap();
    let acted = s.submit_argument(round, side, &ArgText::new("hello"), &mut events).unwrap();
    let body = serde_json::to_value(ArgumentAccepted::from(acted)).unwrap();
    assert_eq!(
        (body["argument_id"].as_u64(), body["phase"].as_str(), body["phase_after"].as_str()),
        (Some(1), Some("phase_1"), Some("phase_1"))
    );
    let v = serde_json::to_value(state_view(&s, "g1")).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "game_id",
            "status",
            "version",
            "round_number",
            "round_id",
            "phase",
            "phase_deadline_at",
            "operator",
            "majority",
            "minority",
            "decision",
            "forced",
            "round_outcome",
            "scores",
            "coverage",
            "next_round_at"
        ]
    );
    let me = v["majority"]
        .as_array()
        .unwrap()
        .iter()
        .chain(v["minority"].as_array().unwrap())
        .find(|m| m["agent_id"] == format!("opaque-{side:04x}"))
        .unwrap()
        .clone();
    assert_eq!((me["acted_this_phase"].as_bool(), me["argued_this_phase"].as_bool()), (Some(true), Some(true)));
    let oa = serde_json::to_value(open_actions_view(&s, usize::from(r.operator)).unwrap()).unwrap();
    assert_eq!((oa["role"].as_str(), oa["can_act"].as_bool()), (Some("operator"), Some(false)));
    let other = r.sides().iter().nth(1).unwrap();
    let oa = serde_json::to_value(open_actions_view(&s, other).unwrap()).unwrap();
    assert_eq!(oa["allowed_actions"], serde_json::json!(["argue", "skip"]));
    let skipped = s.skip(round, other, SkipCause::Agent, &mut events).unwrap();
    assert_eq!(serde_json::to_value(SkipAccepted::from(skipped)).unwrap()["round_id"], round.to_string());
    for _ in 0..3 {
        all_skip(&mut s);
    }
    let res = s.submit_decision(round, usize::from(r.operator), "save_minority", &mut events).unwrap();
    let body = serde_json::to_value(DecisionAccepted::new(&s, &res)).unwrap();
    assert_eq!(body["survivors"].as_array().unwrap().len(), 1);
    assert_eq!(body["game_status"], "in_progress");
    let h = serde_json::to_value(history(&s)).unwrap();
    assert_eq!(h[0]["arguments"][0]["text"], "hello");
    assert_eq!(h[0]["skips"].as_array().unwrap().len(), 1 + 2 + 3 + 3 - 1);
    let board = scoreboard(&s);
    assert_eq!(board[0].score, 1);
    assert!(board.windows(2).all(|w| (w[0].score, w[1].seat) >= (w[1].score, w[0].seat)));
    s.advance(AdvanceAction::NextPhase, &mut events).unwrap();
    let adv = serde_json::to_value(Advanced::new("g1", &s)).unwrap();
    assert_eq!((adv["round_number"].as_u64(), adv["phase"].as_str()), (Some(2), Some("phase_1")));
    // Feed: every event renders; arguments and skips are their own kinds.
    let items: Vec<Value> = events
        .iter()
        .enumerate()
        .map(|(i, e)| serde_json::to_value(feed_item(&s, e, i as u64 + 1, None)).unwrap())
        .collect();
    assert_eq!(items[0]["event_type"], "game_created");
    let arg = items.iter().find(|i| i["kind"] == "argument").unwrap();
    assert_eq!(
        (arg["text"].as_str(), arg["phase"].as_str(), arg["round_number"].as_u64()),
        (Some("hello"), Some("phase_1"), Some(1))
    );
    let skip = items.iter().find(|i| i["kind"] == "skip").unwrap();
    assert_eq!(skip["payload"]["cause"], "agent");
    assert!(skip["side"].is_string());
    assert!(items.iter().any(|i| i["event_type"] == "round_resolved" && i["payload"]["forced"] == false));
}
