//! [`Event`]s: what each rule call produced (§4, §12's event types), and where they go.
//!
//! Rules push events into an [`EventSink`] given by the caller, only after validation passed.
//! Events hold seats and indexes (`Copy` data), so [`NoEvents`] makes the headless hot path
//! free of allocation; the arena and replays pass a `Vec<Event>` and render each event with
//! [`Event::payload`] against the state, which maps seats to agent ids.

use serde_json::{json, Map, Value};

use super::seats::SeatSet;
use super::state::TrolleyState;
use super::vocab::{AdvanceCause, Decision, Phase, Side, SkipCause};

/// One event. Rounds are referred to by number, arguments by index in
/// [`TrolleyState::arguments`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// `game_created`.
    GameCreated,
    /// `agent_registered`.
    AgentRegistered {
        /// The new agent's seat.
        seat: u8,
    },
    /// `game_started`.
    GameStarted {
        /// N.
        agents: u8,
    },
    /// `round_started { round, operator, majority, minority }`.
    RoundStarted {
        /// Round number.
        round: u32,
        /// Operator seat.
        operator: u8,
        /// Majority seats.
        majority: SeatSet,
        /// Minority seats.
        minority: SeatSet,
    },
    /// `argument_submitted`.
    ArgumentSubmitted {
        /// Index in [`TrolleyState::arguments`].
        argument: u32,
    },
    /// `argument_skipped { cause }`.
    ArgumentSkipped {
        /// Round number.
        round: u32,
        /// Debate phase.
        phase: Phase,
        /// The seat.
        agent: u8,
        /// Why.
        cause: SkipCause,
    },
    /// `phase_advanced { from, to, cause }`.
    PhaseAdvanced {
        /// Round number.
        round: u32,
        /// Old phase.
        from: Phase,
        /// New phase.
        to: Phase,
        /// Why.
        cause: AdvanceCause,
    },
    /// `decision_submitted`.
    DecisionSubmitted {
        /// Round number.
        round: u32,
        /// The operator.
        agent: u8,
        /// The decision.
        decision: Decision,
    },
    /// `round_resolved { decision, survivors, lost, forced }`.
    RoundResolved {
        /// Round number.
        round: u32,
        /// The applied decision.
        decision: Decision,
        /// Saved seats.
        survivors: SeatSet,
        /// Lost seats.
        lost: SeatSet,
        /// Deadline or admin.
        forced: bool,
    },
    /// `game_completed`.
    GameCompleted {
        /// Rounds played.
        rounds: u32,
    },
    /// `game_truncated`.
    GameTruncated {
        /// Rounds played.
        rounds: u32,
    },
}

impl Event {
    /// The event type (§12).
    pub const fn kind(&self) -> &'static str {
        match self {
            Event::GameCreated => "game_created",
            Event::AgentRegistered { .. } => "agent_registered",
            Event::GameStarted { .. } => "game_started",
            Event::RoundStarted { .. } => "round_started",
            Event::ArgumentSubmitted { .. } => "argument_submitted",
            Event::ArgumentSkipped { .. } => "argument_skipped",
            Event::PhaseAdvanced { .. } => "phase_advanced",
            Event::DecisionSubmitted { .. } => "decision_submitted",
            Event::RoundResolved { .. } => "round_resolved",
            Event::GameCompleted { .. } => "game_completed",
            Event::GameTruncated { .. } => "game_truncated",
        }
    }

    /// The payload object, seats rendered as agent ids of `state` (which must be the state that
    /// produced the event, or a later one).
    pub fn payload(&self, state: &TrolleyState) -> Map<String, Value> {
        let id = |seat: u8| state.agents().get(usize::from(seat)).map_or("?", |a| a.id.as_str()).to_string();
        let ids = |set: SeatSet| set.iter().map(|s| id(s as u8)).collect::<Vec<_>>();
        let value = match *self {
            Event::GameCreated => json!({ "seed": state.seed().to_string() }),
            Event::AgentRegistered { seat } => {
                let a = &state.agents()[usize::from(seat)];
                json!({ "agent_id": a.id, "display_name": a.display_name, "seat": seat })
            }
            Event::GameStarted { agents } => json!({ "agents": agents }),
            Event::RoundStarted { round, operator, majority, minority } => json!({
                "round": round, "operator": id(operator), "majority": ids(majority), "minority": ids(minority),
            }),
            Event::ArgumentSubmitted { argument } => {
                let a = &state.arguments()[argument as usize];
                json!({
                    "round": a.round, "phase": a.phase, "agent": id(a.agent), "side": a.side,
                    "argument_id": a.id, "seq": a.seq, "text": a.text,
                })
            }
            Event::ArgumentSkipped { round, phase, agent, cause } => {
                json!({ "round": round, "phase": phase, "agent": id(agent), "cause": cause })
            }
            Event::PhaseAdvanced { round, from, to, cause } => {
                json!({ "round": round, "from": from, "to": to, "cause": cause })
            }
            Event::DecisionSubmitted { round, agent, decision } => {
                json!({ "round": round, "agent": id(agent), "decision": decision })
            }
            Event::RoundResolved { round, decision, survivors, lost, forced } => json!({
                "round": round, "decision": decision, "survivors": ids(survivors), "lost": ids(lost), "forced": forced,
            }),
            Event::GameCompleted { rounds } | Event::GameTruncated { rounds } => {
                json!({ "rounds": rounds })
            }
        };
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    /// `{"type": kind, …payload}`: the replay's form.
    pub fn to_json(&self, state: &TrolleyState) -> Value {
        let mut map = Map::new();
        map.insert("type".into(), self.kind().into());
        map.extend(self.payload(state));
        Value::Object(map)
    }

    /// The side of an argument event (for the arena's feed items).
    pub fn argument_side(&self, state: &TrolleyState) -> Option<Side> {
        match *self {
            Event::ArgumentSubmitted { argument } => state.arguments().get(argument as usize).map(|a| a.side),
            _ => None,
        }
    }
}

/// Where rule calls put their events.
pub trait EventSink {
    /// Records one event; `make` is only called if the sink keeps events.
    fn emit(&mut self, make: impl FnOnce() -> Event);
}

impl EventSink for Vec<Event> {
    fn emit(&mut self, make: impl FnOnce() -> Event) {
        self.push(make());
    }
}

/// A sink that drops every event without building it (the headless hot path).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEvents;

impl EventSink for NoEvents {
    #[inline]
    fn emit(&mut self, _make: impl FnOnce() -> Event) {}
}
