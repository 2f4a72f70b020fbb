//! What a step reports (§3). Tier 1 events are all public: every agent may see the whole list.

use serde::{Deserialize, Serialize};

use super::agent::{AgentId, Role, Winner};
use super::seat_list::SeatList;
use super::state::{EndReason, VoteCount, VoteOutcome};
use super::text::Text;

/// Why a tick's discussion ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiscussionEndCause {
    /// Someone played `propose_vote`.
    VoteProposed,
    /// Every round of the tick was played.
    RoundsExhausted,
}

/// The kinds of events, with their parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventKind {
    /// A `discuss` turn.
    MessagePosted {
        /// The message.
        message: Text,
    },
    /// An `accuse` turn.
    AccusationMade {
        /// The accused.
        target: AgentId,
    },
    /// A `defend` turn.
    DefenseMade {
        /// The reasoning.
        reasoning: Text,
        /// The statement.
        defense_statement: Text,
    },
    /// A `propose_vote` turn.
    VoteProposed,
    /// A `pass` turn.
    TurnPassed,
    /// The discussion of the tick is over; voting starts.
    DiscussionEnded {
        /// Why.
        cause: DiscussionEndCause,
    },
    /// One agent's vote, published with the tally.
    VoteRecorded {
        /// The target, or `None` for an abstention.
        choice: Option<AgentId>,
    },
    /// The tally of the tick's vote.
    VotesTallied {
        /// Votes per target with at least one, in seat order.
        counts: SeatList<VoteCount>,
        /// Abstentions.
        abstentions: u32,
        /// The decision.
        outcome: VoteOutcome,
    },
    /// An agent left the game; its role is public from now on.
    AgentEjected {
        /// Who.
        agent: AgentId,
        /// Its role.
        role: Role,
    },
    /// The game is decided.
    GameOver {
        /// Who won.
        winner: Winner,
        /// Why.
        reason: EndReason,
    },
}

/// One event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameEvent {
    /// Counts events over the episode, from 0.
    pub seq: u64,
    /// The tick it happened in.
    pub tick: u32,
    /// The agent it belongs to, if any.
    pub actor: Option<AgentId>,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}
