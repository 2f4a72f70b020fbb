//! The game state (§3): phases, the public histories of discussion and votes, and the result.
//!
//! A snapshot is a clone; a JSON round trip (environment stream included) gives an equal state
//! that continues identically.

use serde::{Deserialize, Serialize};

use super::action::ActionKind;
use super::agent::{AgentId, AgentState, Role, Winner};
use super::env_rng::EnvRng;
use super::scenario::ScenarioConfig;
use super::seat_list::SeatList;

/// Where the current tick is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Round-robin discussion; `turn` indexes `turn_order`.
    Discussion {
        /// Round, from 1.
        round: u32,
        /// Index into `turn_order` of the current speaker.
        turn: u32,
    },
    /// The simultaneous vote of the tick.
    Voting,
    /// The game is decided.
    Over,
}

/// One discussion turn (§3); its "timestamp" is (tick, round, seq).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiscussionMessage {
    /// Index in the discussion history.
    pub seq: u32,
    /// The tick.
    pub tick: u32,
    /// The round, from 1.
    pub round: u32,
    /// Who spoke.
    pub speaker: AgentId,
    /// The discussion action with its parameters.
    pub content: ActionKind,
}

/// One agent's vote: a target, or none for an abstention.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ballot {
    /// The voter.
    pub voter: AgentId,
    /// Who it voted against; `None` = abstained.
    pub target: Option<AgentId>,
}

/// Votes received by one target (only targets with at least one vote are listed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoteCount {
    /// The target.
    pub target: AgentId,
    /// Votes it received.
    pub votes: u32,
}

/// Why a vote ejected nobody.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoEjectionCause {
    /// Nobody cast a vote.
    AllAbstained,
    /// Several leaders under `plurality` with `tie_policy = no_eject`.
    Tie,
    /// The leader lacked an absolute majority.
    NoMajority,
}

impl NoEjectionCause {
    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            NoEjectionCause::AllAbstained => "all_abstained",
            NoEjectionCause::Tie => "tie",
            NoEjectionCause::NoMajority => "no_majority",
        }
    }
}

/// What a vote decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VoteOutcome {
    /// `agent` was ejected; its role is now public.
    Ejected {
        /// The ejected agent.
        agent: AgentId,
        /// Its revealed role.
        role: Role,
    },
    /// Nobody was ejected.
    NoEjection {
        /// Why.
        cause: NoEjectionCause,
    },
}

impl VoteOutcome {
    /// The ejected agent, if any.
    pub fn ejected(&self) -> Option<AgentId> {
        match self {
            VoteOutcome::Ejected { agent, .. } => Some(*agent),
            VoteOutcome::NoEjection { .. } => None,
        }
    }
}

/// A completed vote (§3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoteRound {
    /// The tick.
    pub tick: u32,
    /// One ballot per active agent, in seat order.
    pub votes: SeatList<Ballot>,
    /// Votes per target with at least one, in seat order.
    pub counts: SeatList<VoteCount>,
    /// How many abstained.
    pub abstentions: u32,
    /// What it decided.
    pub outcome: VoteOutcome,
    /// Whether a tie was broken by a draw from the environment stream.
    pub tie_broken_randomly: bool,
}

/// Why the game ended (§5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// No active imposter remains.
    AllImpostersEjected,
    /// Active imposters are at least as many as active crewmates.
    ImposterParity,
    /// The vote of tick `max_ticks` decided nothing.
    Timeout,
}

impl EndReason {
    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::AllImpostersEjected => "all_imposters_ejected",
            EndReason::ImposterParity => "imposter_parity",
            EndReason::Timeout => "timeout",
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// Who won.
    pub winner: Winner,
    /// Why.
    pub reason: EndReason,
}

/// The whole game (§3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    /// The validated scenario.
    pub scenario: ScenarioConfig,
    /// The episode seed, as a decimal string in JSON (u64 does not survive JSON readers).
    #[serde(with = "seed_string")]
    pub seed: u64,
    /// The current tick, from 1.
    pub tick: u32,
    /// The current phase.
    pub phase: Phase,
    /// One entry per seat, in seat order.
    pub agents: Vec<AgentState>,
    /// This tick's speaking order (§5.1).
    pub turn_order: SeatList<AgentId>,
    /// Every discussion turn of the episode.
    pub discussion: Vec<DiscussionMessage>,
    /// Every completed vote.
    pub votes: Vec<VoteRound>,
    /// Set once the game is over.
    pub result: Option<GameResult>,
    /// Successful steps.
    pub steps: u64,
    /// Events emitted so far: the `seq` of the next event. (Not listed in §3, but event numbers
    /// must continue across a snapshot, so the count is state.)
    pub events: u64,
    /// The environment stream.
    pub env_rng: EnvRng,
}

impl GameState {
    /// The agent of `id`, if it names a seat.
    pub fn agent(&self, id: AgentId) -> Option<&AgentState> {
        id.seat_in(self.agents.len()).map(|s| &self.agents[s])
    }

    /// Active agents in seat order.
    pub fn active(&self) -> impl Iterator<Item = &AgentState> + '_ {
        self.agents.iter().filter(|a| a.is_active())
    }

    /// The ids of the active agents, in seat order (what a step's actors and targets come from).
    pub fn active_ids(&self) -> SeatList<AgentId> {
        debug_assert!(self.agents.len() <= super::agent::MAX_AGENTS);
        SeatList::of_flagged(self.agents.iter().map(|a| (a.id, a.is_active())))
    }

    /// Active agents of `role`.
    pub fn active_with(&self, role: Role) -> u32 {
        self.active().filter(|a| a.role == role).count() as u32
    }

    /// Active (imposters, crewmates), in one pass.
    pub fn active_counts(&self) -> (u32, u32) {
        self.active().fold((0, 0), |(i, c), a| match a.role {
            Role::Imposter => (i + 1, c),
            Role::Crewmate => (i, c + 1),
        })
    }

    /// The current speaker, during discussion.
    pub fn current_speaker(&self) -> Option<AgentId> {
        match self.phase {
            Phase::Discussion { turn, .. } => self.turn_order.get(turn as usize).copied(),
            _ => None,
        }
    }
}

mod seed_string {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(seed: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(seed)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
