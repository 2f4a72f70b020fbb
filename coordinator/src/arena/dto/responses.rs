//! The arena's small success bodies (§12's endpoint table), one struct per endpoint, built from
//! what the rule calls return.

use serde::Serialize;

use simfleet::games::trolley::rules::{Acted, Resolution};
use simfleet::games::trolley::seats::SeatSet;
use simfleet::games::trolley::state::{RoundId, TrolleyState};
use simfleet::games::trolley::vocab::{Decision, GameStatus, Phase};

fn ids(state: &TrolleyState, set: SeatSet) -> Vec<String> {
    set.iter().map(|s| state.agents()[s].id.clone()).collect()
}

/// `POST …/agents/register` → 201.
#[derive(Clone, Debug, Serialize)]
pub struct Registered {
    /// Game id.
    pub game_id: String,
    /// The new agent's id.
    pub agent_id: String,
    /// Its seat.
    pub seat: usize,
    /// Its bearer token (issued by the arena).
    pub token: String,
}

/// `POST …/start` → 200.
#[derive(Clone, Debug, Serialize)]
pub struct Started {
    /// Game id.
    pub game_id: String,
    /// `in_progress`.
    pub status: GameStatus,
    /// Round 1's id.
    pub round_id: String,
    /// 1.
    pub round_number: u32,
}

impl Started {
    /// From `start`'s result.
    pub fn new(game_id: &str, state: &TrolleyState, round: RoundId) -> Started {
        Started { game_id: game_id.into(), status: state.status(), round_id: round.to_string(), round_number: 1 }
    }
}

/// `POST …/arguments` → 201.
#[derive(Clone, Debug, Serialize)]
pub struct ArgumentAccepted {
    /// The argument's id.
    pub argument_id: u32,
    /// Round id.
    pub round_id: String,
    /// The phase argued in.
    pub phase: Phase,
    /// The phase afterwards.
    pub phase_after: Phase,
}

impl From<Acted> for ArgumentAccepted {
    fn from(a: Acted) -> ArgumentAccepted {
        ArgumentAccepted {
            argument_id: a.argument_id.unwrap_or(0),
            round_id: a.round.to_string(),
            phase: a.phase,
            phase_after: a.phase_after,
        }
    }
}

/// `POST …/skip` → 200.
#[derive(Clone, Debug, Serialize)]
pub struct SkipAccepted {
    /// Round id.
    pub round_id: String,
    /// The phase skipped.
    pub phase: Phase,
    /// The phase afterwards.
    pub phase_after: Phase,
}

impl From<Acted> for SkipAccepted {
    fn from(a: Acted) -> SkipAccepted {
        SkipAccepted { round_id: a.round.to_string(), phase: a.phase, phase_after: a.phase_after }
    }
}

/// `POST …/decision` → 200.
#[derive(Clone, Debug, Serialize)]
pub struct DecisionAccepted {
    /// Round id.
    pub round_id: String,
    /// The decision.
    pub decision: Decision,
    /// Saved ids.
    pub survivors: Vec<String>,
    /// Lost ids.
    pub lost: Vec<String>,
    /// The game status afterwards.
    pub game_status: GameStatus,
}

impl DecisionAccepted {
    /// From `submit_decision`'s result.
    pub fn new(state: &TrolleyState, r: &Resolution) -> DecisionAccepted {
        DecisionAccepted {
            round_id: r.round.to_string(),
            decision: r.decision,
            survivors: ids(state, r.survivors),
            lost: ids(state, r.lost),
            game_status: r.status,
        }
    }
}

/// `POST …/advance` → 200: the game after the advance.
#[derive(Clone, Debug, Serialize)]
pub struct Advanced {
    /// Game id.
    pub game_id: String,
    /// Status.
    pub status: GameStatus,
    /// Current round id.
    pub round_id: Option<String>,
    /// Current round number.
    pub round_number: u32,
    /// Current phase.
    pub phase: Option<Phase>,
}

impl Advanced {
    /// The current game.
    pub fn new(game_id: &str, state: &TrolleyState) -> Advanced {
        let r = state.current_round();
        Advanced {
            game_id: game_id.into(),
            status: state.status(),
            round_id: r.map(|r| r.id.to_string()),
            round_number: r.map_or(0, |r| r.number),
            phase: r.map(|r| r.phase),
        }
    }
}
