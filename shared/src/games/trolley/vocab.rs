//! The game's small vocabulary types (§1): roles, sides, phases, decisions, statuses, causes.
//!
//! Every type serialises as the spec's snake_case name, which is also what `as_str` returns, so
//! replays, stats and the arena's JSON all spell them the same way.

use serde::{Deserialize, Serialize};

/// A round role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Decides which side is saved; never argues; scores 0 for the round.
    Operator,
    /// The larger side on the track (the first listed side at N = 3).
    Majority,
    /// The smaller side on the track.
    Minority,
}

impl Role {
    /// The spec's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Operator => "operator",
            Role::Majority => "majority",
            Role::Minority => "minority",
        }
    }

    /// The side of a side role; `None` for the operator.
    pub const fn side(self) -> Option<Side> {
        match self {
            Role::Operator => None,
            Role::Majority => Some(Side::Majority),
            Role::Minority => Some(Side::Minority),
        }
    }
}

/// One of the two groups on the track.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The majority.
    Majority,
    /// The minority.
    Minority,
}

impl Side {
    /// The spec's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Side::Majority => "majority",
            Side::Minority => "minority",
        }
    }

    /// The decision that saves this side.
    pub const fn saved_by(self) -> Decision {
        match self {
            Side::Majority => Decision::SaveMajority,
            Side::Minority => Decision::SaveMinority,
        }
    }
}

/// A round phase, strictly in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Debate phase 1.
    #[serde(rename = "phase_1")]
    Phase1,
    /// Debate phase 2.
    #[serde(rename = "phase_2")]
    Phase2,
    /// Debate phase 3.
    #[serde(rename = "phase_3")]
    Phase3,
    /// Only the operator may act: `decide`.
    AwaitingDecision,
    /// The decision is applied; the round is over.
    Resolved,
}

impl Phase {
    /// The three debate phases in order.
    pub const DEBATE: [Phase; 3] = [Phase::Phase1, Phase::Phase2, Phase::Phase3];

    /// The spec's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Phase1 => "phase_1",
            Phase::Phase2 => "phase_2",
            Phase::Phase3 => "phase_3",
            Phase::AwaitingDecision => "awaiting_decision",
            Phase::Resolved => "resolved",
        }
    }

    /// 0, 1, 2 for the debate phases; `None` otherwise.
    pub const fn debate_index(self) -> Option<usize> {
        match self {
            Phase::Phase1 => Some(0),
            Phase::Phase2 => Some(1),
            Phase::Phase3 => Some(2),
            _ => None,
        }
    }

    /// The phase after this one (`Resolved` stays `Resolved`).
    pub const fn next(self) -> Phase {
        match self {
            Phase::Phase1 => Phase::Phase2,
            Phase::Phase2 => Phase::Phase3,
            Phase::Phase3 => Phase::AwaitingDecision,
            Phase::AwaitingDecision | Phase::Resolved => Phase::Resolved,
        }
    }

    /// The phase code of the trajectory hash (§13): 1..3 for debate phases, 4 for the decision.
    pub const fn hash_code(self) -> u8 {
        match self {
            Phase::Phase1 => 1,
            Phase::Phase2 => 2,
            Phase::Phase3 => 3,
            Phase::AwaitingDecision | Phase::Resolved => 4,
        }
    }
}

/// The operator's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The majority survives.
    SaveMajority,
    /// The minority survives.
    SaveMinority,
}

impl Decision {
    /// Both decisions, in the spec's order.
    pub const ALL: [Decision; 2] = [Decision::SaveMajority, Decision::SaveMinority];

    /// The spec's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Decision::SaveMajority => "save_majority",
            Decision::SaveMinority => "save_minority",
        }
    }

    /// Parses the spec's name exactly (no trimming, no case folding: the arena's clients must
    /// send the literal value, and anything else is `invalid_decision`).
    pub fn parse(s: &str) -> Option<Decision> {
        Decision::ALL.into_iter().find(|d| d.as_str() == s)
    }

    /// The side this decision saves.
    pub const fn saved(self) -> Side {
        match self {
            Decision::SaveMajority => Side::Majority,
            Decision::SaveMinority => Side::Minority,
        }
    }

    /// The action code of the trajectory hash (§13).
    pub const fn hash_code(self) -> u8 {
        match self {
            Decision::SaveMajority => 2,
            Decision::SaveMinority => 3,
        }
    }
}

/// The game status (§1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// Fewer than `min_agents` registered.
    WaitingForAgents,
    /// At least `min_agents` registered; registration stays open until start.
    ReadyToStart,
    /// Rounds are being played.
    InProgress,
    /// Coverage is complete.
    GameCompleted,
    /// Round `max_rounds` resolved with coverage incomplete.
    GameTruncated,
}

impl GameStatus {
    /// Every status, for filters.
    pub const ALL: [GameStatus; 5] = [
        GameStatus::WaitingForAgents,
        GameStatus::ReadyToStart,
        GameStatus::InProgress,
        GameStatus::GameCompleted,
        GameStatus::GameTruncated,
    ];

    /// The spec's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameStatus::WaitingForAgents => "waiting_for_agents",
            GameStatus::ReadyToStart => "ready_to_start",
            GameStatus::InProgress => "in_progress",
            GameStatus::GameCompleted => "game_completed",
            GameStatus::GameTruncated => "game_truncated",
        }
    }

    /// Parses the spec's name (the arena's `?status=` filter).
    pub fn parse(s: &str) -> Option<GameStatus> {
        GameStatus::ALL.into_iter().find(|g| g.as_str() == s)
    }

    /// Whether the game has ended (completed or truncated).
    pub const fn is_over(self) -> bool {
        matches!(self, GameStatus::GameCompleted | GameStatus::GameTruncated)
    }

    /// Whether the game has not started yet.
    pub const fn is_lobby(self) -> bool {
        matches!(self, GameStatus::WaitingForAgents | GameStatus::ReadyToStart)
    }
}

/// Why a side agent's phase was recorded as skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipCause {
    /// The agent skipped (or, headless, its invalid action fell back to a skip).
    Agent,
    /// The phase deadline passed.
    Deadline,
    /// An admin moved the phase on.
    Admin,
}

impl SkipCause {
    /// The spec's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            SkipCause::Agent => "agent",
            SkipCause::Deadline => "deadline",
            SkipCause::Admin => "admin",
        }
    }
}

/// Why a debate phase advanced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdvanceCause {
    /// Every side agent argued or skipped.
    AllActed,
    /// The phase deadline passed.
    Deadline,
    /// An admin `next_phase`.
    Admin,
}

impl AdvanceCause {
    /// The spec's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            AdvanceCause::AllActed => "all_acted",
            AdvanceCause::Deadline => "deadline",
            AdvanceCause::Admin => "admin",
        }
    }
}

/// The kind of a round action, named in error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// `argue { text }`.
    Argue,
    /// `skip`.
    Skip,
    /// `decide { decision }`.
    Decide,
    /// Admin `next_phase`.
    NextPhase,
    /// Admin `resolve_round`.
    ResolveRound,
}

impl ActionKind {
    /// The spec's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            ActionKind::Argue => "argue",
            ActionKind::Skip => "skip",
            ActionKind::Decide => "decide",
            ActionKind::NextPhase => "next_phase",
            ActionKind::ResolveRound => "resolve_round",
        }
    }
}
