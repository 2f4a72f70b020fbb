//! The headless engine API (§7): `reset`, `step`, observations, snapshots.
//!
//! A thin layer over the rules: a step validates every action against the state before the
//! step, then applies them in seat order through the same rule functions the arena calls, and
//! starts the next round after a resolution. It adds no rule of its own.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::error::TrolleyError;
use super::events::{Event, EventSink};
use super::scenario::Scenario;
use super::seats::SeatSet;
use super::state::{RoundId, TrolleyState};
use super::text::ArgText;
use super::vocab::{Decision, GameStatus, Phase, SkipCause};

/// An agent's action (§5), as JSON `{"action": …, "parameters": {…}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", content = "parameters", rename_all = "snake_case")]
pub enum TrolleyAction {
    /// Argue for one's side in a debate phase.
    Argue {
        /// The text (trimmed; 1..=500 characters to be valid).
        text: ArgText,
    },
    /// Skip this debate phase.
    Skip {},
    /// The operator's decision.
    Decide {
        /// Which side is saved.
        decision: Decision,
    },
}

impl TrolleyAction {
    /// The `skip` action.
    pub const SKIP: TrolleyAction = TrolleyAction::Skip {};

    /// The action code of the trajectory hash (§13).
    pub fn hash_code(&self) -> u8 {
        match self {
            TrolleyAction::Argue { .. } => 0,
            TrolleyAction::Skip {} => 1,
            TrolleyAction::Decide { decision } => decision.hash_code(),
        }
    }
}

/// Why a step was refused (the state is unchanged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepError {
    /// The first invalid action in seat order (unknown agent ids first).
    Invalid {
        /// The agent id.
        agent: String,
        /// Why.
        error: TrolleyError,
    },
    /// Expected actors without an action.
    MissingActions {
        /// Their ids, in seat order.
        agents: Vec<String>,
    },
    /// The game is over.
    GameOver,
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Invalid { agent, error } => write!(f, "invalid action of {agent}: {error}"),
            StepError::MissingActions { agents } => {
                write!(f, "missing actions of {}", agents.join(", "))
            }
            StepError::GameOver => f.write_str("the game is over"),
        }
    }
}

impl std::error::Error for StepError {}

/// A new game of `scenario` with `agent_0..agent_{N−1}` registered and round 1 started.
pub fn reset(scenario: &Scenario, seed: u64, out: &mut impl EventSink) -> Result<TrolleyState, TrolleyError> {
    let mut state = TrolleyState::new_game(scenario.config(), seed, 0, out)?;
    for seat in 0..usize::from(scenario.num_agents) {
        let id = agent_id(seat);
        state.register(&id, &id, out)?;
    }
    state.start(out)?;
    Ok(state)
}

/// The headless id of `seat`.
pub fn agent_id(seat: usize) -> String {
    format!("agent_{seat}")
}

fn id_of(state: &TrolleyState, seat: usize) -> String {
    state.agents().get(seat).map_or_else(|| agent_id(seat), |a| a.id.clone())
}

/// Checks one action of `seat` against the state, without changing it.
pub fn check_action(state: &TrolleyState, seat: usize, action: &TrolleyAction) -> Result<(), TrolleyError> {
    let round = state.current_round().ok_or(TrolleyError::NotStarted)?.id;
    match action {
        TrolleyAction::Argue { text } => state.check_argument(round, seat, text),
        TrolleyAction::Skip {} => state.check_skip(round, seat),
        TrolleyAction::Decide { decision } => state.check_decision(round, seat, decision.as_str()).map(|_| ()),
    }
}

/// One step with actions indexed by seat (`None` = no action). All are checked first, then
/// applied in seat order; a resolution is followed by the next round, in the same step.
pub fn step_seats(
    state: &mut TrolleyState,
    actions: &[Option<TrolleyAction>],
    out: &mut impl EventSink,
) -> Result<(), StepError> {
    check_step(state, actions)?;
    apply_step(state, actions, out)
}

fn invalid(state: &TrolleyState, seat: usize, error: TrolleyError) -> StepError {
    StepError::Invalid { agent: id_of(state, seat), error }
}

/// The checks of [`step_seats`], without changing anything: game over, then each action in
/// seat order, then missing expected actors.
pub fn check_step(state: &TrolleyState, actions: &[Option<TrolleyAction>]) -> Result<(), StepError> {
    if state.is_terminal() {
        return Err(StepError::GameOver);
    }
    if state.current_round().is_none() {
        return Err(invalid(state, 0, TrolleyError::NotStarted));
    }
    let mut provided = SeatSet::EMPTY;
    for (seat, action) in actions.iter().enumerate() {
        if let Some(action) = action {
            if seat >= state.agents().len() {
                return Err(invalid(state, seat, TrolleyError::AgentNotFound));
            }
            check_action(state, seat, action).map_err(|e| invalid(state, seat, e))?;
            provided.insert(seat);
        }
    }
    let missing = state.expected_actors().minus(provided);
    if !missing.is_empty() {
        return Err(StepError::MissingActions { agents: missing.iter().map(|s| id_of(state, s)).collect() });
    }
    Ok(())
}

/// The application half of [`step_seats`], for callers that checked every action already:
/// applies them in seat order through the rules, which still refuse anything invalid, then
/// starts the next round after a resolution.
pub fn apply_step(
    state: &mut TrolleyState,
    actions: &[Option<TrolleyAction>],
    out: &mut impl EventSink,
) -> Result<(), StepError> {
    let Some(round) = state.current_round() else {
        return Err(invalid(state, 0, TrolleyError::NotStarted));
    };
    if round.phase == Phase::Resolved {
        // Only reachable from an arena snapshot taken during its pause between rounds.
        state.start_next_round(out).map_err(|e| invalid(state, 0, e))?;
        return Ok(());
    }
    let round = round.id;
    for (seat, action) in actions.iter().enumerate() {
        let Some(action) = action else { continue };
        // Checked actions cannot fail here: acting agents are distinct, so no action changes
        // another's validity.
        apply_action(state, round, seat, action, out).map_err(|e| invalid(state, seat, e))?;
    }
    finish_step(state, out).map_err(|e| invalid(state, 0, e))
}

/// Applies one action of `seat` in round `round` through its rule (which checks it fully and
/// changes nothing if it refuses it).
pub fn apply_action(
    state: &mut TrolleyState,
    round: RoundId,
    seat: usize,
    action: &TrolleyAction,
    out: &mut impl EventSink,
) -> Result<(), TrolleyError> {
    match action {
        TrolleyAction::Argue { text } => state.submit_argument(round, seat, text, out).map(|_| ()),
        TrolleyAction::Skip {} => state.skip(round, seat, SkipCause::Agent, out).map(|_| ()),
        TrolleyAction::Decide { decision } => state.decide(round, seat, *decision, out).map(|_| ()),
    }
}

/// Ends a step whose actions were applied: a resolved round of a game still in progress is
/// followed by the next round at once (headless play has no pause between rounds).
pub fn finish_step(state: &mut TrolleyState, out: &mut impl EventSink) -> Result<(), TrolleyError> {
    let resolved = state.current_round().is_some_and(|r| r.phase == Phase::Resolved);
    if state.status() == GameStatus::InProgress && resolved {
        state.start_next_round(out)?;
    }
    Ok(())
}

/// One step with actions keyed by agent id (§7); returns the step's events.
pub fn step(state: &mut TrolleyState, actions: &BTreeMap<String, TrolleyAction>) -> Result<Vec<Event>, StepError> {
    if state.is_terminal() {
        return Err(StepError::GameOver);
    }
    let mut by_seat: Vec<Option<TrolleyAction>> = vec![None; state.agents().len()];
    for (id, action) in actions {
        let seat = state.seat_of(id).map_err(|error| StepError::Invalid { agent: id.clone(), error })?;
        by_seat[seat] = Some(action.clone());
    }
    let mut events = Vec::new();
    step_seats(state, &by_seat, &mut events)?;
    Ok(events)
}

/// A copy of the state; its JSON round trip continues identically.
pub fn snapshot(state: &TrolleyState) -> TrolleyState {
    state.clone()
}
