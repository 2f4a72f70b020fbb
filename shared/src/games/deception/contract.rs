//! The agent contract of `deception` (docs/agents.md, "deception"): an observation as the JSON
//! of its Gymnasium space, and an action back from that space's JSON. Every outside seat (a
//! `python:` seat's host, a Python environment's `"agent"` seat) sees exactly this.
//!
//! The observation is public state as codes (phase, tick, who speaks, who is alive, revealed
//! roles, what is legal now) plus the `transcript`: the game's history as text, one line per
//! discussion action and per vote, because talk is what this game is. The action is
//! `{"action": code, "target": seat, "message": text, "reasoning": text}`: `message` is a
//! discussion's message and a defence's statement, `reasoning` a defence's reasoning; fields an
//! action does not use are ignored.

use std::fmt::Write;

use serde_json::{json, Value};

use super::action::{ActionKind, GameAction, ACTION_NAMES};
use super::agent::{AgentId, Role, Status};
use super::observation::AgentObservation;
use super::state::{Phase, VoteOutcome};
use super::text::Text;

/// `phase` codes: discussion 0, voting 1, over 2.
fn phase_code(phase: Phase) -> u8 {
    match phase {
        Phase::Discussion { .. } => 0,
        Phase::Voting => 1,
        Phase::Over => 2,
    }
}

/// The observation of `obs`'s agent as the contract's JSON.
pub fn encode(obs: &AgentObservation<'_>) -> Value {
    let n = obs.agents.len();
    let round = match obs.phase {
        Phase::Discussion { round, .. } => round,
        _ => 0,
    };
    let alive: Vec<u8> = obs.agents.iter().map(|a| u8::from(a.status == Status::Alive)).collect();
    let revealed: Vec<u8> = obs
        .agents
        .iter()
        .map(|a| match a.revealed_role {
            None => 0,
            Some(Role::Crewmate) => 1,
            Some(Role::Imposter) => 2,
        })
        .collect();
    let legal_actions: Vec<u8> = ACTION_NAMES.iter().map(|k| u8::from(obs.legal.allows(k))).collect();
    let mut legal_targets = vec![0u8; n];
    for t in obs.legal.targets.iter() {
        if let Some(s) = t.seat_in(n) {
            legal_targets[s] = 1;
        }
    }
    json!({
        "seat": [obs.seat],
        "role": [obs.own_role.code()],
        "phase": [phase_code(obs.phase)],
        "tick": [obs.tick],
        "round": [round],
        "speaker": [obs.current_speaker.and_then(|s| s.seat_in(n)).unwrap_or(n)],
        "alive": alive,
        "revealed": revealed,
        "legal_actions": legal_actions,
        "legal_targets": legal_targets,
        "transcript": transcript(obs),
    })
}

/// The history as text: `t<tick> r<round> agent_<i>: <action>` per discussion action, and
/// `t<tick> vote: agent_<i> -> agent_<j>, ...; <outcome>` per vote, each line ended by `\n`.
pub fn transcript(obs: &AgentObservation<'_>) -> String {
    let mut out = String::new();
    let mut votes = obs.votes.iter().peekable();
    for m in obs.discussion {
        while let Some(v) = votes.next_if(|v| v.tick < m.tick) {
            vote_line(&mut out, v);
        }
        let _ = write!(out, "t{} r{} {}: {}", m.tick, m.round, m.speaker, m.content.name());
        match &m.content {
            ActionKind::Discuss { message } => {
                let _ = write!(out, ": {message}");
            }
            ActionKind::Accuse { target } | ActionKind::Vote { target } => {
                let _ = write!(out, " {target}");
            }
            ActionKind::Defend { reasoning, defense_statement } => {
                let _ = write!(out, ": {defense_statement} (reasoning: {reasoning})");
            }
            _ => {}
        }
        out.push('\n');
    }
    for v in votes {
        vote_line(&mut out, v);
    }
    out
}

fn vote_line(out: &mut String, v: &super::state::VoteRound) {
    let _ = write!(out, "t{} vote:", v.tick);
    for (i, b) in v.votes.iter().enumerate() {
        let sep = if i == 0 { " " } else { ", " };
        match b.target {
            Some(t) => {
                let _ = write!(out, "{sep}{} -> {t}", b.voter);
            }
            None => {
                let _ = write!(out, "{sep}{} abstains", b.voter);
            }
        }
    }
    match v.outcome {
        VoteOutcome::Ejected { agent, role } => {
            let _ = writeln!(out, "; {agent} ejected ({})", role.as_str());
        }
        VoteOutcome::NoEjection { cause } => {
            let _ = writeln!(out, "; no ejection ({})", cause.as_str());
        }
    }
}

/// `action` as the contract's JSON (what a built-in policy chose, handed to Python).
pub fn encode_action(action: &ActionKind, n: usize) -> Value {
    let target = action.target().and_then(|t| t.seat_in(n)).unwrap_or(0);
    let (message, reasoning) = match action {
        ActionKind::Discuss { message } => (message.as_str(), ""),
        ActionKind::Defend { reasoning, defense_statement } => (defense_statement.as_str(), reasoning.as_str()),
        _ => ("", ""),
    };
    json!({"action": action.code(), "target": target, "message": message, "reasoning": reasoning})
}

/// The action `answer` gives for `agent` in a game of `n` seats; `None` when it is not the
/// contract's shape (not an object, a code or seat out of range, a text that is not a string).
/// Whether the rules allow it now is the engine's question, not this one's.
pub fn decode(answer: &Value, agent: AgentId, n: usize) -> Option<GameAction> {
    let code = |key: &str, below: usize| {
        let v = answer.get(key).and_then(Value::as_u64)?;
        ((v as usize) < below).then_some(v as usize)
    };
    let text = |key: &str| -> Option<Text> {
        match answer.get(key) {
            None => Some(Text::default()),
            Some(v) => v.as_str().map(Text::new),
        }
    };
    let kind = match code("action", ACTION_NAMES.len())? {
        0 => ActionKind::Discuss { message: text("message")? },
        1 => ActionKind::Accuse { target: AgentId::seat(code("target", n)?) },
        2 => ActionKind::Defend { reasoning: text("reasoning")?, defense_statement: text("message")? },
        3 => ActionKind::ProposeVote,
        4 => ActionKind::Pass,
        5 => ActionKind::Vote { target: AgentId::seat(code("target", n)?) },
        _ => ActionKind::Abstain,
    };
    Some(GameAction::new(agent, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_round_trips_through_the_contract() {
        let all = [
            ActionKind::Discuss { message: Text::new("I was in the kitchen") },
            ActionKind::Accuse { target: AgentId(2) },
            ActionKind::Defend { reasoning: Text::new("r"), defense_statement: Text::new("s") },
            ActionKind::ProposeVote,
            ActionKind::Pass,
            ActionKind::Vote { target: AgentId(3) },
            ActionKind::Abstain,
        ];
        for a in all {
            let back = decode(&encode_action(&a, 5), AgentId(1), 5).unwrap();
            assert_eq!(back, GameAction::new(AgentId(1), a));
        }
    }

    #[test]
    fn answers_outside_the_space_are_refused() {
        for bad in [
            json!(null),
            json!([1, 2]),
            json!({"action": 7}),
            json!({"action": -1}),
            json!({"action": 1, "target": 5}),
            json!({"action": 1}),
            json!({"action": 0, "message": 3}),
        ] {
            assert_eq!(decode(&bad, AgentId(0), 5), None, "{bad}");
        }
    }
}
