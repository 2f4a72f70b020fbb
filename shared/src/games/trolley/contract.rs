//! The agent contract of `trolley` (docs/agents.md, "trolley"): an observation as the JSON of
//! its Gymnasium space, and an action back from that space's JSON. Every outside seat (a
//! `python:` seat's host, a Python environment's `"agent"` seat) sees exactly this.
//!
//! The observation is the round as codes (phase, the seat's role, who is operator, majority
//! and minority, scores, what is legal now; counts saturate at 255) plus the `transcript`: earlier rounds and this
//! round's arguments as text. The action is `{"action": code, "decision": code, "text": text}`:
//! argue 0 (with `text`), skip 1, decide 2 (with `decision`: save_majority 0, save_minority 1).

use std::fmt::Write;

use serde_json::{json, Value};

use super::engine::TrolleyAction;
use super::observation::{observation, Observation};
use super::state::TrolleyState;
use super::text::ArgText;
use super::vocab::{ActionKind, Decision, Phase, Role};

/// `phase` codes: phase_1 0, phase_2 1, phase_3 2, awaiting_decision 3, resolved (or no
/// round) 4.
fn phase_code(phase: Option<Phase>) -> u8 {
    match phase {
        Some(Phase::Phase1) => 0,
        Some(Phase::Phase2) => 1,
        Some(Phase::Phase3) => 2,
        Some(Phase::AwaitingDecision) => 3,
        Some(Phase::Resolved) | None => 4,
    }
}

/// `role` codes: operator 0, majority 1, minority 2.
fn role_code(role: Role) -> u8 {
    match role {
        Role::Operator => 0,
        Role::Majority => 1,
        Role::Minority => 2,
    }
}

/// The observation of `seat` as the contract's JSON.
pub fn encode(state: &TrolleyState, seat: usize) -> Value {
    let obs = observation(state, seat);
    let n = state.agents().len();
    let seat_of = |id: &str| state.agents().iter().position(|a| a.id == id);
    let mut roles = vec![1u8; n];
    if let Some(r) = state.current_round() {
        for (s, role) in roles.iter_mut().enumerate() {
            *role = role_code(r.role_of(s));
        }
    }
    let legal = [ActionKind::Argue, ActionKind::Skip, ActionKind::Decide].map(|k| u8::from(obs.legal.contains(&k)));
    json!({
        "seat": [seat],
        "round": [saturate(obs.round_number)],
        "phase": [phase_code(obs.phase)],
        "role": [obs.role.map_or(1, role_code)],
        "operator": [obs.operator.as_deref().and_then(seat_of).unwrap_or(0)],
        "roles": roles,
        "scores": obs.agents.iter().map(|a| saturate(a.score)).collect::<Vec<_>>(),
        "acted": [u8::from(obs.acted_this_phase)],
        "legal_actions": legal,
        "transcript": transcript(&obs),
    })
}

/// A count as a code: at most 255 (the transcript has every round in full).
fn saturate(v: u32) -> u8 {
    u8::try_from(v).unwrap_or(u8::MAX)
}

/// Earlier rounds, one line each, then this round's arguments and skips in order of phase.
pub fn transcript(obs: &Observation) -> String {
    let mut out = String::new();
    for r in &obs.previous_rounds {
        let decision = r.decision.map_or("undecided", Decision::as_str);
        let forced = if r.forced { " (forced)" } else { "" };
        let _ = writeln!(
            out,
            "round {}: operator {}, majority {}, minority {}: {decision}{forced}",
            r.number,
            r.operator,
            r.majority.join(" "),
            r.minority.join(" ")
        );
    }
    for a in &obs.arguments {
        let _ = writeln!(out, "{} {} ({}): {}", phase_name(a.phase), a.agent, a.side.as_str(), a.text);
    }
    for s in &obs.skips {
        let _ = writeln!(out, "{} {} skips", phase_name(s.phase), s.agent);
    }
    out
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Phase1 => "phase_1",
        Phase::Phase2 => "phase_2",
        Phase::Phase3 => "phase_3",
        Phase::AwaitingDecision => "awaiting_decision",
        Phase::Resolved => "resolved",
    }
}

/// `action` as the contract's JSON (what a built-in policy chose, handed to Python).
pub fn encode_action(action: &TrolleyAction) -> Value {
    match action {
        TrolleyAction::Argue { text } => json!({"action": 0, "decision": 0, "text": text.as_str()}),
        TrolleyAction::Skip {} => json!({"action": 1, "decision": 0, "text": ""}),
        TrolleyAction::Decide { decision } => {
            json!({"action": 2, "decision": u8::from(*decision == Decision::SaveMinority), "text": ""})
        }
    }
}

/// The action `answer` gives; `None` when it is not the contract's shape. Whether the rules
/// allow it now is the engine's question.
pub fn decode(answer: &Value) -> Option<TrolleyAction> {
    let code = |key: &str, below: u64| answer.get(key).and_then(Value::as_u64).filter(|v| *v < below);
    Some(match code("action", 3)? {
        0 => TrolleyAction::Argue { text: ArgText::new(answer.get("text")?.as_str()?) },
        1 => TrolleyAction::SKIP,
        _ => TrolleyAction::Decide { decision: Decision::ALL[code("decision", 2)? as usize] },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_round_trips_through_the_contract() {
        for a in [
            TrolleyAction::Argue { text: ArgText::new("five lives outweigh one") },
            TrolleyAction::SKIP,
            TrolleyAction::Decide { decision: Decision::SaveMajority },
            TrolleyAction::Decide { decision: Decision::SaveMinority },
        ] {
            assert_eq!(decode(&encode_action(&a)), Some(a));
        }
        for bad in [json!(null), json!({"action": 3}), json!({"action": 0}), json!({"action": 2, "decision": 2})] {
            assert_eq!(decode(&bad), None, "{bad}");
        }
    }
}
