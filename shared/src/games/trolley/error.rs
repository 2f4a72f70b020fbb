//! [`TrolleyError`]: every way a request can be refused (§6), one variant per kind.
//!
//! The rules module returns these and leaves the state unchanged; the arena maps each to its
//! `{"error": {"kind", "message"}}` body with [`TrolleyError::kind`] and `Display`, and to its
//! HTTP status itself (the engine knows no HTTP). The arena-only kinds (`game_not_found`,
//! `malformed_body`, `unauthorized`, `too_many_games`) live here too, so the arena speaks one
//! error type.

use std::fmt;

use super::vocab::{ActionKind, GameStatus, Phase, Role};

/// Which text a `text_length` error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextField {
    /// An argument: 1..=500 characters after trimming.
    Argument,
    /// A display name: 1..=40 characters after trimming.
    DisplayName,
}

/// A refused request (§6). Checks run in the §6 order, so the first failing check names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrolleyError {
    /// An unknown game id (arena).
    GameNotFound,
    /// A round id that does not resolve in this game.
    RoundNotFound,
    /// An agent id or seat that does not resolve in this game.
    AgentNotFound,
    /// Not JSON, a required field missing or a wrong JSON type (arena; the detail is for people).
    MalformedBody(String),
    /// A missing or wrong agent or admin token (arena).
    Unauthorized,
    /// A round action or advance before the game started.
    NotStarted,
    /// A round action or advance after `game_completed` or `game_truncated`.
    GameOver,
    /// The action is not allowed in the round's phase (or the round is resolved).
    WrongPhase {
        /// What was attempted.
        action: ActionKind,
        /// The round's phase.
        phase: Phase,
    },
    /// The operator argued or skipped, or a side agent decided.
    WrongRole {
        /// What was attempted.
        action: ActionKind,
        /// The agent's role this round.
        role: Role,
    },
    /// The agent already argued or skipped in this phase.
    DuplicateArgument {
        /// The phase.
        phase: Phase,
    },
    /// A decision other than `save_majority` / `save_minority` (the value as sent).
    InvalidDecision(String),
    /// A text of the wrong length after trimming.
    TextLength {
        /// Which text.
        field: TextField,
        /// Its length in Unicode scalar values.
        chars: usize,
    },
    /// Register or start after the game started.
    AlreadyStarted,
    /// Start with too few agents.
    NotEnoughAgents {
        /// Registered agents.
        have: usize,
        /// Agents needed.
        need: usize,
    },
    /// Register when `max_agents` are registered.
    GameFull {
        /// The cap.
        max: usize,
    },
    /// Register with a display name already taken (trimmed, case-insensitive).
    NameTaken,
    /// Bad create-game values.
    InvalidConfig {
        /// The field.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// An unknown advance action (the value as sent).
    InvalidAction(String),
    /// The arena holds `--max-games` games and none has ended (arena).
    TooManyGames,
}

impl TrolleyError {
    /// Every kind, in the §6 table's order (the order of `invalid_by_kind`).
    pub const KINDS: [&'static str; 19] = [
        "game_not_found",
        "round_not_found",
        "agent_not_found",
        "malformed_body",
        "unauthorized",
        "not_started",
        "game_over",
        "wrong_phase",
        "wrong_role",
        "duplicate_argument",
        "invalid_decision",
        "text_length",
        "already_started",
        "not_enough_agents",
        "game_full",
        "name_taken",
        "invalid_config",
        "invalid_action",
        "too_many_games",
    ];

    /// The index of [`TrolleyError::kind`] in [`TrolleyError::KINDS`].
    pub fn kind_index(&self) -> usize {
        TrolleyError::KINDS.iter().position(|k| *k == self.kind()).unwrap_or(0)
    }

    /// The §6 kind: the `error.kind` of the arena's body.
    pub const fn kind(&self) -> &'static str {
        match self {
            TrolleyError::GameNotFound => "game_not_found",
            TrolleyError::RoundNotFound => "round_not_found",
            TrolleyError::AgentNotFound => "agent_not_found",
            TrolleyError::MalformedBody(_) => "malformed_body",
            TrolleyError::Unauthorized => "unauthorized",
            TrolleyError::NotStarted => "not_started",
            TrolleyError::GameOver => "game_over",
            TrolleyError::WrongPhase { .. } => "wrong_phase",
            TrolleyError::WrongRole { .. } => "wrong_role",
            TrolleyError::DuplicateArgument { .. } => "duplicate_argument",
            TrolleyError::InvalidDecision(_) => "invalid_decision",
            TrolleyError::TextLength { .. } => "text_length",
            TrolleyError::AlreadyStarted => "already_started",
            TrolleyError::NotEnoughAgents { .. } => "not_enough_agents",
            TrolleyError::GameFull { .. } => "game_full",
            TrolleyError::NameTaken => "name_taken",
            TrolleyError::InvalidConfig { .. } => "invalid_config",
            TrolleyError::InvalidAction(_) => "invalid_action",
            TrolleyError::TooManyGames => "too_many_games",
        }
    }

    /// The error of a round action or advance in a game that is not in progress.
    pub(crate) fn for_status(status: GameStatus) -> Option<TrolleyError> {
        if status.is_lobby() {
            Some(TrolleyError::NotStarted)
        } else if status.is_over() {
            Some(TrolleyError::GameOver)
        } else {
            None
        }
    }
}

impl fmt::Display for TrolleyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrolleyError::GameNotFound => f.write_str("no game with this id"),
            TrolleyError::RoundNotFound => f.write_str("no round with this id in this game"),
            TrolleyError::AgentNotFound => f.write_str("no agent with this id in this game"),
            TrolleyError::MalformedBody(detail) => write!(f, "malformed request body: {detail}"),
            TrolleyError::Unauthorized => f.write_str("missing or wrong token"),
            TrolleyError::NotStarted => f.write_str("the game has not started yet"),
            TrolleyError::GameOver => f.write_str("the game is over"),
            TrolleyError::WrongPhase { action, phase: Phase::Resolved } => {
                write!(f, "cannot {}: the round is already resolved", action.as_str())
            }
            TrolleyError::WrongPhase { action, phase } => {
                let allowed = match action {
                    ActionKind::Argue | ActionKind::Skip => "only in phase_1, phase_2 or phase_3",
                    ActionKind::Decide | ActionKind::ResolveRound => "only in awaiting_decision",
                    ActionKind::NextPhase => "not while awaiting the operator's decision",
                };
                write!(f, "cannot {} in {}: allowed {allowed}", action.as_str(), phase.as_str())
            }
            TrolleyError::WrongRole { action: ActionKind::Decide, role } => {
                write!(f, "only the operator may decide; this agent is in the {} this round", role.as_str())
            }
            TrolleyError::WrongRole { action, role } => {
                write!(f, "the {} may not {}: only majority and minority agents debate", role.as_str(), action.as_str())
            }
            TrolleyError::DuplicateArgument { phase } => {
                write!(f, "this agent already argued or skipped in {}", phase.as_str())
            }
            TrolleyError::InvalidDecision(value) => {
                write!(f, "invalid decision {value:?}: must be save_majority or save_minority")
            }
            TrolleyError::TextLength { field: TextField::Argument, chars } => {
                write!(f, "argument text must hold 1..=500 characters after trimming, got {chars}")
            }
            TrolleyError::TextLength { field: TextField::DisplayName, chars } => {
                write!(f, "display name must hold 1..=40 characters after trimming, got {chars}")
            }
            TrolleyError::AlreadyStarted => f.write_str("the game has already started"),
            TrolleyError::NotEnoughAgents { have, need } => {
                write!(f, "not enough agents to start: {have} registered, {need} needed")
            }
            TrolleyError::GameFull { max } => write!(f, "the game is full ({max} agents)"),
            TrolleyError::NameTaken => f.write_str("this display name is already taken in this game"),
            TrolleyError::InvalidConfig { field, reason } => write!(f, "invalid {field}: {reason}"),
            TrolleyError::InvalidAction(value) => {
                write!(f, "unknown advance action {value:?}: must be next_phase or resolve_round")
            }
            TrolleyError::TooManyGames => f.write_str("too many games: the arena is full and no game has ended"),
        }
    }
}

impl std::error::Error for TrolleyError {}
