//! [`Observation`]: one agent's owned, serialisable view of the game (§7).
//!
//! Everything is public in this game, so an observation differs between agents only in the
//! agent's own identity, role and legal actions. Scripted policies read the state directly
//! (no allocation); observations are for the `llm` policy's prompts and for external callers.

use serde::Serialize;

use super::state::TrolleyState;
use super::vocab::{ActionKind, Decision, Phase, Role, Side};

/// An argument as an agent sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeenArgument {
    /// Its phase.
    pub phase: Phase,
    /// The author's id.
    pub agent: String,
    /// The author's side.
    pub side: Side,
    /// The text.
    pub text: String,
}

/// A skip as an agent sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeenSkip {
    /// Its phase.
    pub phase: Phase,
    /// The agent's id.
    pub agent: String,
}

/// An agent's score and coverage.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeenAgent {
    /// The id.
    pub agent_id: String,
    /// The score.
    pub score: u32,
    /// Coverage flag.
    pub has_been_operator: bool,
    /// Coverage flag.
    pub has_been_majority: bool,
    /// Coverage flag.
    pub has_been_minority: bool,
}

/// A resolved earlier round.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PastRound {
    /// Its number.
    pub number: u32,
    /// Operator id.
    pub operator: String,
    /// Majority ids.
    pub majority: Vec<String>,
    /// Minority ids.
    pub minority: Vec<String>,
    /// The decision.
    pub decision: Option<Decision>,
    /// Whether it was forced.
    pub forced: bool,
}

/// Agent i's observation (§7).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Observation {
    /// The agent's id.
    pub agent_id: String,
    /// The agent's seat.
    pub seat: u8,
    /// The current round's number (0 before start).
    pub round_number: u32,
    /// The round cap.
    pub max_rounds: u32,
    /// The current phase.
    pub phase: Option<Phase>,
    /// The agent's role this round.
    pub role: Option<Role>,
    /// The operator's id.
    pub operator: Option<String>,
    /// Majority ids.
    pub majority: Vec<String>,
    /// Minority ids.
    pub minority: Vec<String>,
    /// This round's arguments so far.
    pub arguments: Vec<SeenArgument>,
    /// This round's skips so far.
    pub skips: Vec<SeenSkip>,
    /// Whether the agent already argued or skipped in this phase.
    pub acted_this_phase: bool,
    /// Every agent's score and coverage, in seat order.
    pub agents: Vec<SeenAgent>,
    /// Resolved earlier rounds.
    pub previous_rounds: Vec<PastRound>,
    /// What the agent may do now.
    pub legal: Vec<ActionKind>,
}

/// The observation of `seat` (which must be a registered seat).
pub fn observation(state: &TrolleyState, seat: usize) -> Observation {
    let id = |s: usize| state.agents()[s].id.clone();
    let ids = |set: super::seats::SeatSet| set.iter().map(id).collect::<Vec<_>>();
    let current = state.rounds().len().checked_sub(1);
    let round = state.current_round();
    let past_end = match round {
        Some(r) if r.phase != Phase::Resolved => state.rounds().len() - 1,
        _ => state.rounds().len(),
    };
    Observation {
        agent_id: id(seat),
        seat: seat as u8,
        round_number: round.map_or(0, |r| r.number),
        max_rounds: state.max_rounds(),
        phase: round.map(|r| r.phase),
        role: round.map(|r| r.role_of(seat)),
        operator: round.map(|r| id(usize::from(r.operator))),
        majority: round.map_or_else(Vec::new, |r| ids(r.majority)),
        minority: round.map_or_else(Vec::new, |r| ids(r.minority)),
        arguments: current.map_or_else(Vec::new, |i| {
            state
                .round_arguments(i)
                .iter()
                .map(|a| SeenArgument {
                    phase: a.phase,
                    agent: id(usize::from(a.agent)),
                    side: a.side,
                    text: a.text.as_str().to_string(),
                })
                .collect()
        }),
        skips: current.map_or_else(Vec::new, |i| {
            state.round_skips(i).iter().map(|s| SeenSkip { phase: s.phase, agent: id(usize::from(s.agent)) }).collect()
        }),
        acted_this_phase: round.is_some_and(|r| r.phase.debate_index().is_some_and(|p| r.acted[p].contains(seat))),
        agents: state
            .agents()
            .iter()
            .map(|a| SeenAgent {
                agent_id: a.id.clone(),
                score: a.score,
                has_been_operator: a.has_been_operator,
                has_been_majority: a.has_been_majority,
                has_been_minority: a.has_been_minority,
            })
            .collect(),
        previous_rounds: state.rounds()[..past_end]
            .iter()
            .map(|r| PastRound {
                number: r.number,
                operator: id(usize::from(r.operator)),
                majority: ids(r.majority),
                minority: ids(r.minority),
                decision: r.decision,
                forced: r.forced,
            })
            .collect(),
        legal: state.open_actions(seat).map(|o| o.allowed.to_vec()).unwrap_or_default(),
    }
}

/// Every agent's observation, in seat order.
pub fn observations(state: &TrolleyState) -> Vec<Observation> {
    (0..state.agents().len()).map(|s| observation(state, s)).collect()
}
