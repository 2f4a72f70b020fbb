//! The headless `reset` / `step` API (§7) and snapshots.

use std::collections::BTreeMap;

use super::*;
use crate::games::trolley::engine::{reset, step};
use crate::games::trolley::observation::{observation, observations};

fn scenario(s: &str) -> Scenario {
    Scenario::from_spec(&Spec::parse(s).unwrap()).unwrap()
}

fn debate_actions(s: &TrolleyState, text: &str) -> BTreeMap<String, TrolleyAction> {
    current(s)
        .sides()
        .iter()
        .map(|seat| (format!("agent_{seat}"), TrolleyAction::Argue { text: ArgText::new(text) }))
        .collect()
}

#[test]
fn reset_registers_and_starts() {
    let s = reset(&scenario("balanced_6p"), 5, &mut NoEvents).unwrap();
    assert_eq!(
        s.agents().iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["agent_0", "agent_1", "agent_2", "agent_3", "agent_4", "agent_5"]
    );
    assert_eq!((s.status(), current(&s).phase), (GameStatus::InProgress, Phase::Phase1));
}

#[test]
fn a_debate_step_applies_all_in_seat_order_then_advances() {
    let mut s = reset(&scenario("balanced_5p"), 1, &mut NoEvents).unwrap();
    let actions = debate_actions(&s, "we matter");
    let events = step(&mut s, &actions).unwrap();
    let r = current(&s);
    assert_eq!(r.phase, Phase::Phase2);
    let authors: Vec<usize> = s.arguments().iter().map(|a| usize::from(a.agent)).collect();
    assert_eq!(authors, r.sides().iter().collect::<Vec<_>>());
    assert_eq!(events.len(), 5);
    assert_eq!(events[4].kind(), "phase_advanced");
}

#[test]
fn step_errors_leave_the_state_unchanged() {
    let mut s = reset(&scenario("balanced_5p"), 2, &mut NoEvents).unwrap();
    let before = s.clone();
    let r = current(&s);
    let op = format!("agent_{}", r.operator);
    // Missing actions.
    let mut partial = debate_actions(&s, "x");
    let dropped = partial.keys().next().unwrap().clone();
    partial.remove(&dropped);
    assert_eq!(step(&mut s, &partial), Err(StepError::MissingActions { agents: vec![dropped] }));
    // The operator acting in a debate step: invalid (wrong_role), reported before missing ones.
    let mut with_op = partial.clone();
    with_op.insert(op.clone(), TrolleyAction::SKIP);
    let e = step(&mut s, &with_op).unwrap_err();
    assert!(matches!(e, StepError::Invalid { ref agent, error: TrolleyError::WrongRole { .. } } if *agent == op));
    // An invalid text: the first in seat order is reported.
    let mut bad = debate_actions(&s, "");
    let first = bad.keys().next().unwrap().clone();
    bad.insert(first.clone(), TrolleyAction::SKIP);
    let e = step(&mut s, &bad).unwrap_err();
    assert!(matches!(e, StepError::Invalid { ref agent, error: TrolleyError::TextLength { .. } } if *agent != first));
    // Unknown agents.
    let mut unknown = debate_actions(&s, "x");
    unknown.insert("agent_9".into(), TrolleyAction::SKIP);
    assert!(matches!(step(&mut s, &unknown), Err(StepError::Invalid { error: TrolleyError::AgentNotFound, .. })));
    assert_eq!(s, before);
}

#[test]
fn a_decision_step_resolves_and_starts_the_next_round() {
    let mut s = reset(&scenario("trio_3p"), 3, &mut NoEvents).unwrap();
    for _ in 0..3 {
        let all: BTreeMap<_, _> =
            current(&s).sides().iter().map(|x| (format!("agent_{x}"), TrolleyAction::SKIP)).collect();
        step(&mut s, &all).unwrap();
    }
    let op = format!("agent_{}", current(&s).operator);
    let decide = BTreeMap::from([(op, TrolleyAction::Decide { decision: Decision::SaveMinority })]);
    let events = step(&mut s, &decide).unwrap();
    let kinds: Vec<_> = events.iter().map(Event::kind).collect();
    assert_eq!(kinds, ["decision_submitted", "round_resolved", "round_started"]);
    assert_eq!((current(&s).number, current(&s).phase), (2, Phase::Phase1));
}

#[test]
fn a_finished_game_refuses_steps() {
    let mut s = reset(&scenario("trio_3p?max_rounds=1"), 3, &mut NoEvents).unwrap();
    for _ in 0..3 {
        let all: BTreeMap<_, _> =
            current(&s).sides().iter().map(|x| (format!("agent_{x}"), TrolleyAction::SKIP)).collect();
        step(&mut s, &all).unwrap();
    }
    let op = format!("agent_{}", current(&s).operator);
    step(&mut s, &BTreeMap::from([(op, TrolleyAction::Decide { decision: Decision::SaveMajority })])).unwrap();
    assert_eq!(s.status(), GameStatus::GameTruncated);
    assert!(s.is_terminal() && s.expected_actors().is_empty());
    assert_eq!(step(&mut s, &BTreeMap::new()), Err(StepError::GameOver));
}

#[test]
fn json_snapshot_continues_identically() {
    let mut a = reset(&scenario("balanced_6p"), 8, &mut NoEvents).unwrap();
    let actions = debate_actions(&a, "first");
    step(&mut a, &actions).unwrap();
    let mut b: TrolleyState = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
    assert_eq!(a, b);
    while !a.is_terminal() {
        let actions = match current(&a).phase {
            Phase::AwaitingDecision => BTreeMap::from([(
                format!("agent_{}", current(&a).operator),
                TrolleyAction::Decide { decision: Decision::SaveMajority },
            )]),
            _ => debate_actions(&a, "again"),
        };
        assert_eq!(step(&mut a, &actions), step(&mut b, &actions));
    }
    assert_eq!(a, b);
}

#[test]
fn actions_have_the_spec_json_shape() {
    let argue: TrolleyAction = serde_json::from_str(r#"{"action": "argue", "parameters": {"text": " hi "}}"#).unwrap();
    assert_eq!(argue, TrolleyAction::Argue { text: ArgText::new("hi") });
    let skip: TrolleyAction = serde_json::from_str(r#"{"action": "skip", "parameters": {}}"#).unwrap();
    assert_eq!(skip, TrolleyAction::SKIP);
    let decide: TrolleyAction =
        serde_json::from_str(r#"{"action": "decide", "parameters": {"decision": "save_minority"}}"#).unwrap();
    assert_eq!(decide, TrolleyAction::Decide { decision: Decision::SaveMinority });
    assert!(serde_json::from_str::<TrolleyAction>(r#"{"action": "decide", "parameters": {"decision": "x"}}"#).is_err());
    assert_eq!(serde_json::to_string(&TrolleyAction::SKIP).unwrap(), r#"{"action":"skip","parameters":{}}"#);
}

#[test]
fn observations_show_the_round_and_legal_actions() {
    let mut s = reset(&scenario("balanced_5p"), 4, &mut NoEvents).unwrap();
    let actions = debate_actions(&s, "argue");
    step(&mut s, &actions).unwrap();
    let r = current(&s);
    let obs = observations(&s);
    assert_eq!(obs.len(), 5);
    let op = &obs[usize::from(r.operator)];
    assert_eq!((op.role, op.phase, op.round_number), (Some(Role::Operator), Some(Phase::Phase2), 1));
    assert!(op.legal.is_empty());
    let side = observation(&s, r.majority.iter().next().unwrap());
    assert_eq!(side.legal, vec![ActionKind::Argue, ActionKind::Skip]);
    assert_eq!(side.arguments.len(), 4);
    assert!(side.previous_rounds.is_empty() && !side.acted_this_phase);
    assert_eq!(side.minority, r.minority.iter().map(|x| format!("agent_{x}")).collect::<Vec<_>>());
}
