//! [`TrolleyState`] and its parts (§5), with the read-only queries every driver uses.
//!
//! Mutations live in `rules.rs`; this file only describes what a game is. Arguments and skips
//! of all rounds are kept in two flat lists (each round remembers where its own begin), so a
//! headless episode reuses the same buffers from seed to seed instead of allocating per round.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::arguments::ArgumentList;
use super::config::TrolleyConfig;
use super::error::TrolleyError;
use super::roles::{Coverage, EnvRng};
use super::seats::SeatSet;
use super::text::ArgText;
use super::vocab::{Decision, GameStatus, Phase, Role, Side, SkipCause};

/// A round's id: the game's `round_id_base` plus the round number. The arena picks a random
/// base per game, so a round id of another game does not resolve here (`round_not_found`);
/// headless games use base 0. Displayed and parsed as 16 lowercase hex digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RoundId(pub u64);

impl fmt::Display for RoundId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl FromStr for RoundId {
    type Err = TrolleyError;
    /// Anything but 16 hex digits is a round that does not resolve.
    fn from_str(s: &str) -> Result<RoundId, TrolleyError> {
        if s.len() != 16 {
            return Err(TrolleyError::RoundNotFound);
        }
        u64::from_str_radix(s, 16).map(RoundId).map_err(|_| TrolleyError::RoundNotFound)
    }
}

/// A registered agent: identity, score, coverage and role counters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    /// `agent_<seat>` headless; the arena's opaque id.
    pub id: String,
    /// The trimmed display name.
    pub display_name: String,
    /// Registration order.
    pub seat: u8,
    /// Rounds in which the agent's side was saved.
    pub score: u32,
    /// Coverage flag (set when a round resolves).
    pub has_been_operator: bool,
    /// Coverage flag.
    pub has_been_majority: bool,
    /// Coverage flag.
    pub has_been_minority: bool,
    /// Resolved rounds as operator.
    pub rounds_as_operator: u32,
    /// Resolved rounds in the majority.
    pub rounds_as_majority: u32,
    /// Resolved rounds in the minority.
    pub rounds_as_minority: u32,
}

impl Agent {
    /// The coverage flags.
    pub const fn coverage(&self) -> Coverage {
        Coverage {
            operator: self.has_been_operator,
            majority: self.has_been_majority,
            minority: self.has_been_minority,
        }
    }
}

/// One round: roles, phase, who acted, and the resolution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// Its id.
    pub id: RoundId,
    /// 1-based.
    pub number: u32,
    /// The operator's seat.
    pub operator: u8,
    /// Majority seats.
    pub majority: SeatSet,
    /// Minority seats.
    pub minority: SeatSet,
    /// The current phase.
    pub phase: Phase,
    /// Per debate phase: the side agents that argued or skipped.
    pub acted: [SeatSet; 3],
    /// Per debate phase: the side agents that argued.
    pub argued: [SeatSet; 3],
    /// Index of this round's first entry in [`TrolleyState::arguments`].
    pub first_argument: u32,
    /// Index of this round's first entry in [`TrolleyState::skips`].
    pub first_skip: u32,
    /// The applied decision, once resolved.
    pub decision: Option<Decision>,
    /// Whether the decision was forced (deadline or admin), not the operator's.
    pub forced: bool,
    /// The saved side, once resolved.
    pub survivors: SeatSet,
    /// The other side, once resolved.
    pub lost: SeatSet,
}

impl Round {
    /// Both sides.
    pub const fn sides(&self) -> SeatSet {
        self.majority.union(self.minority)
    }

    /// The role of `seat` this round.
    pub fn role_of(&self, seat: usize) -> Role {
        if seat == usize::from(self.operator) {
            Role::Operator
        } else if self.minority.contains(seat) {
            Role::Minority
        } else {
            Role::Majority
        }
    }

    /// The seats of `side`.
    pub const fn side(&self, side: Side) -> SeatSet {
        match side {
            Side::Majority => self.majority,
            Side::Minority => self.minority,
        }
    }

    /// Side agents that have not acted in the current debate phase (empty outside them).
    pub fn missing(&self) -> SeatSet {
        match self.phase.debate_index() {
            Some(p) => self.sides().minus(self.acted[p]),
            None => SeatSet::EMPTY,
        }
    }
}

/// One argument.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Argument {
    /// 1-based index among the game's arguments (the arena's `argument_id`).
    pub id: u32,
    /// 1-based order within its round.
    pub seq: u32,
    /// Its round's number.
    pub round: u32,
    /// Its debate phase.
    pub phase: Phase,
    /// The author's seat.
    pub agent: u8,
    /// The author's side.
    pub side: Side,
    /// The trimmed text.
    pub text: ArgText,
}

/// One skipped phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skip {
    /// Its round's number.
    pub round: u32,
    /// Its debate phase.
    pub phase: Phase,
    /// The agent's seat.
    pub agent: u8,
    /// Why.
    pub cause: SkipCause,
}

/// The whole game (§5). Change it only through the rules in `rules.rs`; `version` counts their
/// successful calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrolleyState {
    pub(crate) config: TrolleyConfig,
    pub(crate) seed: u64,
    pub(crate) status: GameStatus,
    pub(crate) agents: Vec<Agent>,
    pub(crate) rounds: Vec<Round>,
    pub(crate) arguments: ArgumentList,
    pub(crate) skips: Vec<Skip>,
    pub(crate) env_rng: EnvRng,
    pub(crate) version: u64,
    pub(crate) round_id_base: u64,
    /// m, resolved at start (0 before).
    pub(crate) minority_size: u8,
    /// `max_rounds`, resolved at start (0 before).
    pub(crate) max_rounds: u32,
}

impl TrolleyState {
    /// The config.
    pub fn config(&self) -> &TrolleyConfig {
        &self.config
    }

    /// The seed (of the environment stream).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The status.
    pub fn status(&self) -> GameStatus {
        self.status
    }

    /// Whether the game has ended (`game_completed` or `game_truncated`).
    pub fn is_terminal(&self) -> bool {
        self.status.is_over()
    }

    /// Registered agents in seat order.
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    /// All rounds so far, oldest first.
    pub fn rounds(&self) -> &[Round] {
        &self.rounds
    }

    /// The latest round, if started.
    pub fn current_round(&self) -> Option<&Round> {
        self.rounds.last()
    }

    /// Incremented by every successful mutation.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// m (0 before start).
    pub fn minority_size(&self) -> usize {
        usize::from(self.minority_size)
    }

    /// `max_rounds` (0 before start).
    pub fn max_rounds(&self) -> u32 {
        self.max_rounds
    }

    /// Draws taken from the environment stream.
    pub fn env_draws(&self) -> u64 {
        self.env_rng.draws()
    }

    /// The id of round `number`.
    pub fn round_id(&self, number: u32) -> RoundId {
        RoundId(self.round_id_base.wrapping_add(u64::from(number)))
    }

    /// The index in [`TrolleyState::rounds`] of a round id of this game.
    pub fn round_index(&self, id: RoundId) -> Result<usize, TrolleyError> {
        let number = id.0.wrapping_sub(self.round_id_base);
        match usize::try_from(number) {
            Ok(n) if n >= 1 && n <= self.rounds.len() => Ok(n - 1),
            _ => Err(TrolleyError::RoundNotFound),
        }
    }

    /// The seat of an agent id (`agent_not_found` if unknown).
    pub fn seat_of(&self, agent_id: &str) -> Result<usize, TrolleyError> {
        self.agents.iter().position(|a| a.id == agent_id).ok_or(TrolleyError::AgentNotFound)
    }

    /// Every argument of the game, in submission order.
    pub fn arguments(&self) -> &[Argument] {
        &self.arguments
    }

    /// Every skip of the game, in order.
    pub fn skips(&self) -> &[Skip] {
        &self.skips
    }

    /// The arguments of the round at `index`.
    pub fn round_arguments(&self, index: usize) -> &[Argument] {
        let start = self.rounds[index].first_argument as usize;
        let end = self.rounds.get(index + 1).map_or(self.arguments.len(), |r| r.first_argument as usize);
        &self.arguments[start..end]
    }

    /// The skips of the round at `index`.
    pub fn round_skips(&self, index: usize) -> &[Skip] {
        let start = self.rounds[index].first_skip as usize;
        let end = self.rounds.get(index + 1).map_or(self.skips.len(), |r| r.first_skip as usize);
        &self.skips[start..end]
    }

    /// Coverage is complete when every agent has been operator, majority and minority.
    pub fn coverage_complete(&self) -> bool {
        !self.agents.is_empty() && self.agents.iter().all(|a| a.coverage().complete())
    }

    /// The agents that may act now (§7): every side agent in a debate phase, the operator while
    /// awaiting the decision, none otherwise.
    pub fn expected_actors(&self) -> SeatSet {
        match (self.status, self.current_round()) {
            (GameStatus::InProgress, Some(r)) => match r.phase {
                Phase::Phase1 | Phase::Phase2 | Phase::Phase3 => r.sides(),
                Phase::AwaitingDecision => SeatSet::EMPTY.union([usize::from(r.operator)].into_iter().collect()),
                Phase::Resolved => SeatSet::EMPTY,
            },
            _ => SeatSet::EMPTY,
        }
    }
}
