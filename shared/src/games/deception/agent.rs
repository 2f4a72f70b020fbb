//! Who is at the table: agent ids, roles, status and the per-agent state (§1, §3).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The most seats a scenario may have (`num_agents` ≤ 10); fixed-size buffers use it.
pub const MAX_AGENTS: usize = 10;

/// An agent id, `agent_<seat>`. Stored as the number so that building, comparing and ordering ids
/// costs nothing on the hot path; ids order by seat number (`agent_2` < `agent_10`), which is
/// the spec's "seat order".
///
/// A number that is not a seat of the game is representable (it is how an `unknown_agent` or
/// `unknown_target` is expressed); [`AgentId::UNKNOWN`] stands for a name that is not of the form
/// `agent_<n>` at all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AgentId(pub u32);

impl AgentId {
    /// A name that does not parse as `agent_<n>` (e.g. an LLM answering `"bob"`).
    pub const UNKNOWN: AgentId = AgentId(u32::MAX);

    /// The id of `seat`.
    pub const fn seat(seat: usize) -> AgentId {
        AgentId(seat as u32)
    }

    /// The seat index, if this id names a seat of a game with `n` seats.
    pub fn seat_in(self, n: usize) -> Option<usize> {
        let s = self.0 as usize;
        (s < n).then_some(s)
    }

    /// The seat number as written in the id (not checked against any game).
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Parses `agent_<n>` (decimal, no sign, no leading `+`); anything else is `None`.
    pub fn parse(s: &str) -> Option<AgentId> {
        let digits = s.strip_prefix("agent_")?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u32>().ok().filter(|n| *n != u32::MAX).map(AgentId)
    }

    /// Like [`AgentId::parse`], but a malformed name becomes [`AgentId::UNKNOWN`], so that rule
    /// validation, not the parser, reports it (in the order of §7).
    pub fn parse_lenient(s: &str) -> AgentId {
        AgentId::parse(s).unwrap_or(AgentId::UNKNOWN)
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == AgentId::UNKNOWN {
            f.write_str("agent_unknown")
        } else {
            write!(f, "agent_{}", self.0)
        }
    }
}

impl Serialize for AgentId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for AgentId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AgentId, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(AgentId::parse_lenient(&s))
    }
}

/// A hidden role.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Wants every imposter ejected.
    #[default]
    Crewmate,
    /// Wants to survive until imposters reach parity.
    Imposter,
}

impl Role {
    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Crewmate => "crewmate",
            Role::Imposter => "imposter",
        }
    }

    /// The trajectory-hash code (§11): crewmate 0, imposter 1.
    pub const fn code(self) -> u8 {
        match self {
            Role::Crewmate => 0,
            Role::Imposter => 1,
        }
    }
}

/// Whether an agent still plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Active: speaks and votes.
    #[default]
    Alive,
    /// Voted out; its role is public.
    Ejected,
}

/// The winning side of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Winner {
    /// Every imposter was ejected.
    Crewmates,
    /// Imposters reached parity, or the clock ran out with `timeout_winner = imposters`.
    Imposters,
    /// The clock ran out with `timeout_winner = none`.
    None,
}

impl Winner {
    /// The outcome label (`crewmates`, `imposters`, `none`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Winner::Crewmates => "crewmates",
            Winner::Imposters => "imposters",
            Winner::None => "none",
        }
    }
}

/// One seat's public and private facts (§3). `role` is private while the agent is alive:
/// observations show it only to its owner until the agent is ejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentState {
    /// `agent_<seat>`.
    pub id: AgentId,
    /// Seat index.
    pub seat: u32,
    /// The hidden role.
    pub role: Role,
    /// Alive or ejected.
    pub status: Status,
    /// The tick of the vote that ejected it.
    pub ejected_tick: Option<u32>,
}

impl AgentState {
    /// Whether the agent is active (alive).
    pub fn is_active(&self) -> bool {
        self.status == Status::Alive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_and_order_by_seat() {
        assert_eq!(AgentId::parse("agent_3"), Some(AgentId(3)));
        assert_eq!(AgentId::parse("agent_"), None);
        assert_eq!(AgentId::parse("agent_-1"), None);
        assert_eq!(AgentId::parse("bob"), None);
        assert_eq!(AgentId::parse_lenient("bob"), AgentId::UNKNOWN);
        assert!(AgentId(2) < AgentId(10));
        assert_eq!(AgentId(7).to_string(), "agent_7");
        assert_eq!(serde_json::to_string(&AgentId(4)).unwrap(), "\"agent_4\"");
        assert_eq!(AgentId(4).seat_in(4), None);
        assert_eq!(AgentId(3).seat_in(4), Some(3));
    }
}
