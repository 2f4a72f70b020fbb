//! The replay (§13): the common fields (docs/protocol.md), then every round with its roles, actions (with
//! reasoning and `fallback`) and events, and, when the job has `llm` seats, `llm_calls`: each
//! call's messages, raw answer and parse (§11). Built only when a job asks for replays.

use serde_json::{json, Value};

use super::engine::TrolleyAction;
use super::error::TrolleyError;
use super::events::Event;
use super::policies::{LlmCall, Reason};
use super::scenario::Scenario;
use super::state::TrolleyState;
use super::vocab::Phase;
use crate::protocol::EpisodeRecord;

/// One asked-and-applied action.
#[derive(Clone, Debug)]
pub struct ActionLog {
    /// The phase it was taken in.
    pub phase: Phase,
    /// The seat.
    pub seat: usize,
    /// The applied action (the fallback when the policy's was invalid).
    pub action: TrolleyAction,
    /// The policy's reasoning.
    pub reason: Reason,
    /// Why the policy's own action was refused, when it was.
    pub invalid: Option<TrolleyError>,
}

/// One round's log.
#[derive(Clone, Debug, Default)]
pub struct RoundLog {
    /// The actions in the order applied.
    pub actions: Vec<ActionLog>,
    /// The round's events, from `round_started` on.
    pub events: Vec<Event>,
}

/// What the engine collects while playing an episode with a replay.
#[derive(Clone, Debug, Default)]
pub struct ReplayLog {
    /// Events before round 1.
    pub setup: Vec<Event>,
    /// Per round.
    pub rounds: Vec<RoundLog>,
}

impl ReplayLog {
    /// Files a step's events: a `round_started` opens the next round's log.
    pub fn file_events(&mut self, events: &mut Vec<Event>) {
        for e in events.drain(..) {
            if matches!(e, Event::RoundStarted { .. }) {
                self.rounds.push(RoundLog::default());
            }
            match self.rounds.last_mut() {
                Some(r) => r.events.push(e),
                None => self.setup.push(e),
            }
        }
    }

    /// Records an applied action in the current round.
    pub fn action(&mut self, log: ActionLog) {
        if let Some(r) = self.rounds.last_mut() {
            r.actions.push(log);
        }
    }
}

fn action_json(state: &TrolleyState, a: &ActionLog) -> Value {
    let (name, parameters) = match &a.action {
        TrolleyAction::Argue { text } => ("argue", json!({ "text": text })),
        TrolleyAction::Skip {} => ("skip", json!({})),
        TrolleyAction::Decide { decision } => ("decide", json!({ "decision": decision })),
    };
    json!({
        "phase": a.phase,
        "agent": state.agents()[a.seat].id,
        "action": name,
        "parameters": parameters,
        "reasoning": a.reason.describe(),
        "fallback": a.invalid.is_some(),
        "invalid": a.invalid.as_ref().map(|e| json!({ "kind": e.kind(), "message": e.to_string() })),
    })
}

/// The replay JSON of a finished episode; `llm_calls` is given when the job has `llm` seats.
pub fn render(
    state: &TrolleyState,
    scenario: &Scenario,
    policies: &[String],
    record: &EpisodeRecord,
    log: &ReplayLog,
    llm_calls: Option<&[&LlmCall]>,
) -> String {
    let ids = |set: super::seats::SeatSet| set.iter().map(|s| state.agents()[s].id.clone()).collect::<Vec<_>>();
    let rounds: Vec<Value> = state
        .rounds()
        .iter()
        .zip(&log.rounds)
        .map(|(r, l)| {
            json!({
                "number": r.number,
                "operator": state.agents()[usize::from(r.operator)].id,
                "majority": ids(r.majority),
                "minority": ids(r.minority),
                "decision": r.decision,
                "forced": r.forced,
                "actions": l.actions.iter().map(|a| action_json(state, a)).collect::<Vec<_>>(),
                "events": l.events.iter().map(|e| e.to_json(state)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut replay = json!({
        "rules_version": super::RULES_VERSION,
        "game": "trolley",
        "seed": state.seed().to_string(),
        "scenario": scenario,
        "policies": policies,
        "record": record,
        "agents": state.agents().iter().map(|a| json!({ "agent_id": a.id, "seat": a.seat })).collect::<Vec<_>>(),
        "events": log.setup.iter().map(|e| e.to_json(state)).collect::<Vec<_>>(),
        "rounds": rounds,
    });
    if let (Some(calls), Value::Object(m)) = (llm_calls, &mut replay) {
        m.insert("llm_calls".into(), serde_json::to_value(calls).expect("plain call records"));
    }
    replay.to_string()
}
