//! The arena's JSON shapes (§12), built from the state by the rules module.
//!
//! Fields that hold wall-clock times (`phase_deadline_at`, `next_round_at`, `deadline_at`,
//! `resolved_at`, `created_at`) are left `None` here: the arena keeps its clocks beside the
//! state and fills them in before answering. Agents are named by id, rounds by
//! [`RoundId`](simfleet::games::trolley::RoundId)'s 16-hex-digit form.

use serde::Serialize;

use simfleet::games::trolley::error::TrolleyError;
use simfleet::games::trolley::seats::SeatSet;
use simfleet::games::trolley::state::TrolleyState;
use simfleet::games::trolley::vocab::{ActionKind, Decision, GameStatus, Phase, Role, Side, SkipCause};

/// `{"error": {"kind", "message"}}`.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// The inner error object.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorDetail {
    /// The §6 kind.
    pub kind: &'static str,
    /// The clear message.
    pub message: String,
}

impl From<&TrolleyError> for ErrorBody {
    fn from(e: &TrolleyError) -> ErrorBody {
        ErrorBody { error: ErrorDetail { kind: e.kind(), message: e.to_string() } }
    }
}

/// An agent's id and name.
#[derive(Clone, Debug, Serialize)]
pub struct Person {
    /// Id.
    pub agent_id: String,
    /// Display name.
    pub display_name: String,
}

/// A side agent in the State view.
#[derive(Clone, Debug, Serialize)]
pub struct SideMember {
    /// Id.
    pub agent_id: String,
    /// Display name.
    pub display_name: String,
    /// Argued or skipped in the current debate phase.
    pub acted_this_phase: bool,
    /// Argued in the current debate phase.
    pub argued_this_phase: bool,
}

/// `{survivors, lost}` of a resolved round.
#[derive(Clone, Debug, Serialize)]
pub struct RoundOutcome {
    /// Saved ids.
    pub survivors: Vec<String>,
    /// Lost ids.
    pub lost: Vec<String>,
}

/// A score line of the State view.
#[derive(Clone, Debug, Serialize)]
pub struct ScoreLine {
    /// Id.
    pub agent_id: String,
    /// Display name.
    pub display_name: String,
    /// Score.
    pub score: u32,
}

/// A coverage line of the State view.
#[derive(Clone, Debug, Serialize)]
pub struct CoverageLine {
    /// Id.
    pub agent_id: String,
    /// Flag.
    pub has_been_operator: bool,
    /// Flag.
    pub has_been_majority: bool,
    /// Flag.
    pub has_been_minority: bool,
    /// All three.
    pub complete: bool,
}

/// `GET /api/games/{game_id}/state`.
#[derive(Clone, Debug, Serialize)]
pub struct StateView {
    /// The arena's game id.
    pub game_id: String,
    /// Game status.
    pub status: GameStatus,
    /// [`TrolleyState::version`].
    pub version: u64,
    /// Current round number (0 before start).
    pub round_number: u32,
    /// Current round id.
    pub round_id: Option<String>,
    /// Current phase.
    pub phase: Option<Phase>,
    /// Arena clock: when the debate phase expires.
    pub phase_deadline_at: Option<String>,
    /// The operator.
    pub operator: Option<Person>,
    /// Majority agents.
    pub majority: Vec<SideMember>,
    /// Minority agents.
    pub minority: Vec<SideMember>,
    /// The decision, once resolved.
    pub decision: Option<Decision>,
    /// Whether it was forced.
    pub forced: bool,
    /// Survivors and lost, once resolved.
    pub round_outcome: Option<RoundOutcome>,
    /// Scores in seat order.
    pub scores: Vec<ScoreLine>,
    /// Coverage in seat order.
    pub coverage: Vec<CoverageLine>,
    /// Arena clock: when the next round starts.
    pub next_round_at: Option<String>,
}

fn id(state: &TrolleyState, seat: usize) -> String {
    state.agents()[seat].id.clone()
}

fn ids(state: &TrolleyState, set: SeatSet) -> Vec<String> {
    set.iter().map(|s| id(state, s)).collect()
}

/// The State view (clock fields `None`).
pub fn state_view(state: &TrolleyState, game_id: &str) -> StateView {
    let round = state.current_round();
    let members = |set: SeatSet| -> Vec<SideMember> {
        let r = round.expect("a side only exists in a round");
        let p = r.phase.debate_index();
        set.iter()
            .map(|s| SideMember {
                agent_id: id(state, s),
                display_name: state.agents()[s].display_name.clone(),
                acted_this_phase: p.is_some_and(|p| r.acted[p].contains(s)),
                argued_this_phase: p.is_some_and(|p| r.argued[p].contains(s)),
            })
            .collect()
    };
    StateView {
        game_id: game_id.to_string(),
        status: state.status(),
        version: state.version(),
        round_number: round.map_or(0, |r| r.number),
        round_id: round.map(|r| r.id.to_string()),
        phase: round.map(|r| r.phase),
        phase_deadline_at: None,
        operator: round.map(|r| {
            let a = &state.agents()[usize::from(r.operator)];
            Person { agent_id: a.id.clone(), display_name: a.display_name.clone() }
        }),
        majority: round.map_or_else(Vec::new, |r| members(r.majority)),
        minority: round.map_or_else(Vec::new, |r| members(r.minority)),
        decision: round.and_then(|r| r.decision),
        forced: round.is_some_and(|r| r.forced),
        round_outcome: round
            .filter(|r| r.decision.is_some())
            .map(|r| RoundOutcome { survivors: ids(state, r.survivors), lost: ids(state, r.lost) }),
        scores: state
            .agents()
            .iter()
            .map(|a| ScoreLine { agent_id: a.id.clone(), display_name: a.display_name.clone(), score: a.score })
            .collect(),
        coverage: state
            .agents()
            .iter()
            .map(|a| CoverageLine {
                agent_id: a.id.clone(),
                has_been_operator: a.has_been_operator,
                has_been_majority: a.has_been_majority,
                has_been_minority: a.has_been_minority,
                complete: a.coverage().complete(),
            })
            .collect(),
        next_round_at: None,
    }
}

/// An argument in a RoundRecord.
#[derive(Clone, Debug, Serialize)]
pub struct ArgumentLine {
    /// Phase.
    pub phase: Phase,
    /// Author id.
    pub agent_id: String,
    /// Author side.
    pub side: Side,
    /// Text.
    pub text: String,
}

/// A skip in a RoundRecord.
#[derive(Clone, Debug, Serialize)]
pub struct SkipLine {
    /// Phase.
    pub phase: Phase,
    /// Agent id.
    pub agent_id: String,
    /// Cause.
    pub cause: SkipCause,
}

/// A resolved round (`/history`).
#[derive(Clone, Debug, Serialize)]
pub struct RoundRecord {
    /// Round id.
    pub round_id: String,
    /// Number.
    pub round_number: u32,
    /// Operator id.
    pub operator_agent_id: String,
    /// Majority ids.
    pub majority: Vec<String>,
    /// Minority ids.
    pub minority: Vec<String>,
    /// Decision.
    pub decision: Option<Decision>,
    /// Forced.
    pub forced: bool,
    /// Survivors.
    pub survivors: Vec<String>,
    /// Lost.
    pub lost: Vec<String>,
    /// Arguments in order.
    pub arguments: Vec<ArgumentLine>,
    /// Skips in order.
    pub skips: Vec<SkipLine>,
    /// Arena clock.
    pub resolved_at: Option<String>,
}

/// Every resolved round, oldest first (`resolved_at` `None`).
pub fn history(state: &TrolleyState) -> Vec<RoundRecord> {
    (0..state.rounds().len())
        .filter(|&i| state.rounds()[i].phase == Phase::Resolved)
        .map(|i| {
            let r = &state.rounds()[i];
            RoundRecord {
                round_id: r.id.to_string(),
                round_number: r.number,
                operator_agent_id: id(state, usize::from(r.operator)),
                majority: ids(state, r.majority),
                minority: ids(state, r.minority),
                decision: r.decision,
                forced: r.forced,
                survivors: ids(state, r.survivors),
                lost: ids(state, r.lost),
                arguments: state
                    .round_arguments(i)
                    .iter()
                    .map(|a| ArgumentLine {
                        phase: a.phase,
                        agent_id: id(state, usize::from(a.agent)),
                        side: a.side,
                        text: a.text.as_str().to_string(),
                    })
                    .collect(),
                skips: state
                    .round_skips(i)
                    .iter()
                    .map(|s| SkipLine { phase: s.phase, agent_id: id(state, usize::from(s.agent)), cause: s.cause })
                    .collect(),
                resolved_at: None,
            }
        })
        .collect()
}

/// A scoreboard entry.
#[derive(Clone, Debug, Serialize)]
pub struct ScoreEntry {
    /// Id.
    pub agent_id: String,
    /// Display name.
    pub display_name: String,
    /// Seat.
    pub seat: u8,
    /// Score.
    pub score: u32,
    /// Counter.
    pub rounds_as_operator: u32,
    /// Counter.
    pub rounds_as_majority: u32,
    /// Counter.
    pub rounds_as_minority: u32,
    /// All three roles done.
    pub coverage_complete: bool,
}

/// The scoreboard: by score descending, then seat.
pub fn scoreboard(state: &TrolleyState) -> Vec<ScoreEntry> {
    let mut entries: Vec<ScoreEntry> = state
        .agents()
        .iter()
        .map(|a| ScoreEntry {
            agent_id: a.id.clone(),
            display_name: a.display_name.clone(),
            seat: a.seat,
            score: a.score,
            rounds_as_operator: a.rounds_as_operator,
            rounds_as_majority: a.rounds_as_majority,
            rounds_as_minority: a.rounds_as_minority,
            coverage_complete: a.coverage().complete(),
        })
        .collect();
    entries.sort_by(|a, b| b.score.cmp(&a.score).then(a.seat.cmp(&b.seat)));
    entries
}

/// `GET …/open-actions?agent_id=`.
#[derive(Clone, Debug, Serialize)]
pub struct OpenActionsView {
    /// The agent.
    pub agent_id: String,
    /// Game status.
    pub game_status: GameStatus,
    /// Current round id.
    pub round_id: Option<String>,
    /// Current round number (0 before start).
    pub round_number: u32,
    /// Current phase.
    pub phase: Option<Phase>,
    /// The agent's role.
    pub role: Option<Role>,
    /// `allowed_actions` non-empty.
    pub can_act: bool,
    /// `["argue", "skip"]`, `["decide"]` or `[]`.
    pub allowed_actions: Vec<ActionKind>,
    /// Arena clock: the deadline of the allowed actions.
    pub deadline_at: Option<String>,
}

/// The OpenActions view of `seat` (`deadline_at` `None`).
pub fn open_actions_view(state: &TrolleyState, seat: usize) -> Result<OpenActionsView, TrolleyError> {
    let o = state.open_actions(seat)?;
    Ok(OpenActionsView {
        agent_id: id(state, seat),
        game_status: state.status(),
        round_id: o.round.map(|r| r.to_string()),
        round_number: o.round_number,
        phase: o.phase,
        role: o.role,
        can_act: !o.allowed.is_empty(),
        allowed_actions: o.allowed.to_vec(),
        deadline_at: None,
    })
}
