//! The arena's JSON shapes against the spec (§12), built from a game driven the way the arena
//! drives it: opaque ids, a random round-id base, events rendered as feed items.

use serde_json::Value;
use simfleet::games::trolley::{
    AdvanceAction, ArgText, Event, NoEvents, Round, SkipCause, TrolleyConfig, TrolleyError, TrolleyState,
};

use super::feed::feed_item;
use super::responses::{Advanced, ArgumentAccepted, DecisionAccepted, SkipAccepted, Started};
use super::view::{history, open_actions_view, scoreboard, state_view, ErrorBody};

fn arena_game(n: usize, seed: u64, events: &mut Vec<Event>) -> TrolleyState {
    let mut s = TrolleyState::new_game(TrolleyConfig::default(), seed, 0xdead_beef_0000, events).unwrap();
    for i in 0..n {
        s.register(&format!("Player {i}"), &format!("opaque-{i:04x}"), events).unwrap();
    }
    s
}

/// The current round (cloned).
fn current(s: &TrolleyState) -> Round {
    s.current_round().unwrap().clone()
}

/// Every side agent that has not acted yet skips the current phase.
fn all_skip(s: &mut TrolleyState) {
    let r = current(s);
    for seat in r.missing().iter() {
        s.skip(r.id, seat, SkipCause::Agent, &mut NoEvents).unwrap();
    }
}

#[test]
fn error_bodies_name_the_kind() {
    for e in [TrolleyError::GameNotFound, TrolleyError::MalformedBody("x".into()), TrolleyError::NameTaken] {
        let body = serde_json::to_value(ErrorBody::from(&e)).unwrap();
        assert_eq!(body["error"]["kind"], e.kind());
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

/// The shapes import only the trolley rules (and serde): nothing of the arena, so the HTTP
/// side can change around them and they stay a function of the rules' state.
#[test]
fn the_shapes_import_only_the_rules() {
    let allowed = ["serde::", "serde_json::", "simfleet::games::trolley::", "super::"];
    for (file, source) in [
        ("feed.rs", include_str!("feed.rs")),
        ("responses.rs", include_str!("responses.rs")),
        ("view.rs", include_str!("view.rs")),
    ] {
        for line in source.lines().filter(|l| l.starts_with("use ")) {
            let path = &line["use ".len()..];
            assert!(allowed.iter().any(|a| path.starts_with(a)), "dto/{file}: {line}");
            if let Some(sibling) = path.strip_prefix("super::") {
                let sibling = sibling.split("::").next().unwrap_or_default();
                assert!(["feed", "responses", "view"].contains(&sibling), "dto/{file}: {line}");
            }
        }
        assert!(!source.contains("crate::"), "dto/{file} names the coordinator");
    }
}
