//! Every §6 kind the rules produce, in the §6 order, each leaving the state (and `version`)
//! unchanged and emitting no event.

use super::*;

/// Calls `f` on `s` and asserts it fails with `kind` and changes nothing.
fn refused<T: std::fmt::Debug>(
    s: &mut TrolleyState,
    kind: &str,
    f: impl FnOnce(&mut TrolleyState, &mut Vec<Event>) -> Result<T, TrolleyError>,
) -> TrolleyError {
    let before = s.clone();
    let json = serde_json::to_string(&*s).unwrap();
    let mut events = Vec::new();
    let err = f(s, &mut events).expect_err("should be refused");
    assert_eq!(err.kind(), kind, "{err}");
    assert_eq!(*s, before, "state changed by a refused {kind}");
    assert_eq!(serde_json::to_string(&*s).unwrap(), json);
    assert!(events.is_empty(), "a refused call emitted {events:?}");
    assert!(!err.to_string().is_empty());
    err
}

fn lobby(n: usize, min: u8, max: u8) -> TrolleyState {
    let config = TrolleyConfig { min_agents: min, max_agents: max, ..TrolleyConfig::default() };
    let mut s = TrolleyState::new_game(config, 3, 0, &mut NoEvents).unwrap();
    for i in 0..n {
        s.register(&format!("Agent{i}"), &format!("id{i}"), &mut NoEvents).unwrap();
    }
    s
}

fn to_decision(s: &mut TrolleyState) {
    for _ in 0..3 {
        all_skip(s);
    }
}

#[test]
fn lookups_come_first() {
    let (mut s, _) = started(5, MinoritySize::Balanced, None, 1);
    let r = current(&s);
    let op = usize::from(r.operator);
    // (2) round before (4) agent.
    refused(&mut s, "round_not_found", |s, o| s.skip(RoundId(7), 99, SkipCause::Agent, o));
    refused(&mut s, "round_not_found", |s, o| s.submit_decision(RoundId(0), op, "nope", o));
    refused(&mut s, "agent_not_found", |s, o| s.submit_argument(r.id, 5, &ArgText::new(""), o));
    // A round of another game (different id base) does not resolve.
    let other = TrolleyState::new_game(TrolleyConfig::default(), 1, 1 << 40, &mut NoEvents).unwrap();
    refused(&mut s, "round_not_found", |s, o| s.skip(other.round_id(1), 0, SkipCause::Agent, o));
    assert_eq!("zz".parse::<RoundId>(), Err(TrolleyError::RoundNotFound));
    assert_eq!(r.id.to_string().parse::<RoundId>(), Ok(r.id));
    assert_eq!(s.seat_of("agent_3"), Ok(3));
    assert_eq!(s.seat_of("agent_9"), Err(TrolleyError::AgentNotFound));
}

#[test]
fn status_errors_before_role_and_phase() {
    let mut s = lobby(3, 3, 16);
    refused(&mut s, "not_started", |s, o| s.advance(AdvanceAction::NextPhase, o));
    refused(&mut s, "not_started", |s, o| s.expire_phase(o));
    refused(&mut s, "not_started", |s, o| s.start_next_round(o));
    let (mut s, _) = started(3, MinoritySize::Balanced, Some(1), 2);
    let r = current(&s);
    play_round(&mut s, Decision::SaveMajority);
    assert_eq!(s.status(), GameStatus::GameTruncated);
    // The round is resolved too, but (6) game status comes before (7).
    let side = r.sides().iter().next().unwrap();
    refused(&mut s, "game_over", |s, o| s.skip(r.id, side, SkipCause::Agent, o));
    refused(&mut s, "game_over", |s, o| s.submit_decision(r.id, usize::from(r.operator), "save_majority", o));
    refused(&mut s, "game_over", |s, o| s.advance(AdvanceAction::NextPhase, o));
    refused(&mut s, "game_over", |s, o| s.expire_decision(o));
    refused(&mut s, "game_over", |s, o| s.start_next_round(o));
}

#[test]
fn resolved_round_is_wrong_phase_before_role() {
    let (mut s, _) = started(5, MinoritySize::Balanced, None, 3);
    let r1 = current(&s);
    play_round(&mut s, Decision::SaveMajority);
    let op = usize::from(r1.operator);
    // The operator "arguing" on a resolved round: (7) beats (8).
    let e = refused(&mut s, "wrong_phase", |s, o| s.submit_argument(r1.id, op, &ArgText::new("x"), o));
    assert!(e.to_string().contains("already resolved"));
    s.start_next_round(&mut NoEvents).unwrap();
    // An old round while a newer one runs: still wrong_phase.
    refused(&mut s, "wrong_phase", |s, o| s.submit_decision(r1.id, op, "save_majority", o));
}

#[test]
fn role_before_phase_before_duplicate_before_value() {
    let (mut s, _) = started(5, MinoritySize::Balanced, None, 4);
    let r = current(&s);
    let op = usize::from(r.operator);
    let side = r.sides().iter().next().unwrap();
    let long = ArgText::new(&"x".repeat(501));
    // Operator argues or skips in a debate phase: wrong_role.
    refused(&mut s, "wrong_role", |s, o| s.submit_argument(r.id, op, &ArgText::new("hi"), o));
    refused(&mut s, "wrong_role", |s, o| s.skip(r.id, op, SkipCause::Agent, o));
    // A side agent decides (even with a bad value, in the wrong phase): wrong_role.
    refused(&mut s, "wrong_role", |s, o| s.submit_decision(r.id, side, "bogus", o));
    // The operator decides in phase_1 with a bad value: wrong_phase before invalid_decision.
    refused(&mut s, "wrong_phase", |s, o| s.submit_decision(r.id, op, "bogus", o));
    // Value: text length.
    refused(&mut s, "text_length", |s, o| s.submit_argument(r.id, side, &long, o));
    refused(&mut s, "text_length", |s, o| s.submit_argument(r.id, side, &ArgText::new("   \n "), o));
    s.submit_argument(r.id, side, &ArgText::new(&format!("  {}  ", "é".repeat(500))), &mut NoEvents).unwrap();
    // Duplicate before value.
    refused(&mut s, "duplicate_argument", |s, o| s.submit_argument(r.id, side, &long, o));
    refused(&mut s, "duplicate_argument", |s, o| s.skip(r.id, side, SkipCause::Agent, o));
    let other = r.sides().iter().nth(1).unwrap();
    s.skip(r.id, other, SkipCause::Agent, &mut NoEvents).unwrap();
    // A second skip is duplicate_argument.
    refused(&mut s, "duplicate_argument", |s, o| s.skip(r.id, other, SkipCause::Agent, o));
    to_decision(&mut s);
    // The operator arguing in awaiting_decision is wrong_role (role before phase).
    refused(&mut s, "wrong_role", |s, o| s.submit_argument(r.id, op, &ArgText::new("x"), o));
    // A side agent arguing in awaiting_decision is wrong_phase.
    refused(&mut s, "wrong_phase", |s, o| s.submit_argument(r.id, side, &ArgText::new("x"), o));
    refused(&mut s, "wrong_phase", |s, o| s.skip(r.id, side, SkipCause::Agent, o));
    refused(&mut s, "invalid_decision", |s, o| s.submit_decision(r.id, op, "save_everyone", o));
    refused(&mut s, "invalid_decision", |s, o| s.submit_decision(r.id, op, "SAVE_MAJORITY", o));
}

#[test]
fn advance_and_deadline_misuse() {
    let (mut s, _) = started(4, MinoritySize::Balanced, None, 5);
    refused(&mut s, "wrong_phase", |s, o| s.advance(AdvanceAction::ResolveRound { decision: None }, o));
    refused(&mut s, "wrong_phase", |s, o| s.expire_decision(o));
    refused(&mut s, "wrong_phase", |s, o| s.start_next_round(o));
    to_decision(&mut s);
    let e = refused(&mut s, "wrong_phase", |s, o| s.advance(AdvanceAction::NextPhase, o));
    assert!(e.to_string().contains("awaiting"));
    refused(&mut s, "wrong_phase", |s, o| s.expire_phase(o));
    refused(&mut s, "invalid_decision", |s, o| s.advance(AdvanceAction::ResolveRound { decision: Some("x") }, o));
    assert_eq!(AdvanceAction::parse(Some("jump"), None), Err(TrolleyError::InvalidAction("jump".into())));
    assert_eq!(AdvanceAction::parse(None, None), Ok(AdvanceAction::NextPhase));
}

#[test]
fn register_checks_in_order() {
    let mut s = lobby(3, 3, 4);
    refused(&mut s, "text_length", |s, o| s.register("   ", "x", o));
    refused(&mut s, "text_length", |s, o| s.register(&"n".repeat(41), "x", o));
    refused(&mut s, "name_taken", |s, o| s.register("  AGENT0 ", "x", o));
    s.register(&"n".repeat(40), "id3", &mut NoEvents).unwrap();
    // Full: name_taken still comes first; a fresh name is game_full.
    refused(&mut s, "name_taken", |s, o| s.register("agent1", "x", o));
    refused(&mut s, "game_full", |s, o| s.register("zed", "x", o));
    s.start(&mut NoEvents).unwrap();
    // already_started before text_length.
    refused(&mut s, "already_started", |s, o| s.register("", "x", o));
    refused(&mut s, "already_started", |s, o| s.start(o));
}

#[test]
fn start_needs_enough_agents_and_is_atomic() {
    let mut s = lobby(2, 3, 16);
    let e = refused(&mut s, "not_enough_agents", |s, o| s.start(o));
    assert_eq!(e, TrolleyError::NotEnoughAgents { have: 2, need: 3 });
    let mut s = lobby(4, 5, 16);
    refused(&mut s, "not_enough_agents", |s, o| s.start(o));
    assert_eq!(s.status(), GameStatus::WaitingForAgents);
    assert!(s.rounds().is_empty());
}

#[test]
fn bad_configs_are_invalid_config() {
    let bad = TrolleyConfig { minority_size: MinoritySize::Fixed(2), min_agents: 5, ..TrolleyConfig::default() };
    let e = TrolleyState::new_game(bad, 1, 0, &mut NoEvents).unwrap_err();
    assert_eq!(e.kind(), "invalid_config");
}

/// The HTTP status of each kind is the arena's (`coordinator/src/arena/error.rs`).
#[test]
fn every_kind_indexes_the_kinds_table() {
    for e in [
        TrolleyError::GameNotFound,
        TrolleyError::RoundNotFound,
        TrolleyError::AgentNotFound,
        TrolleyError::MalformedBody("x".into()),
        TrolleyError::Unauthorized,
        TrolleyError::TooManyGames,
        TrolleyError::NameTaken,
    ] {
        assert_eq!(TrolleyError::KINDS[e.kind_index()], e.kind());
    }
}
