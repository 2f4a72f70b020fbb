//! [`TrolleyConfig`]: a game's settings, and the split rule of §2–§3.
//!
//! One config serves both drivers: the headless engine builds it from a scenario with
//! `min_agents = max_agents = num_agents`; the arena from its create-game body. Unset
//! `max_rounds` (and a `balanced` minority) are resolved at start from the final roster.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::error::TrolleyError;
use super::seats::MAX_AGENTS;
use super::vocab::Decision;

/// The fewest agents of any game (§2).
pub const MIN_AGENTS: usize = 3;

/// How many side agents are in the minority.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MinoritySize {
    /// m = ⌊(r−1)/2⌋ with r = N−1 side agents (1 at N = 3): the closest split with majority >
    /// minority.
    #[default]
    Balanced,
    /// A fixed m.
    Fixed(u8),
}

impl MinoritySize {
    /// m for a game of `n` agents (assumes [`MinoritySize::check`] passed for `n`).
    pub const fn resolve(self, n: usize) -> usize {
        match self {
            MinoritySize::Fixed(m) => m as usize,
            MinoritySize::Balanced if n <= 3 => 1,
            MinoritySize::Balanced => (n - 2) / 2,
        }
    }

    /// Whether this size is valid for `n` agents (§2): N = 3 allows only 1; N ≥ 4 needs
    /// 1 ≤ m and 2m < N−1. On failure, the reason.
    pub fn check(self, n: usize) -> Result<(), String> {
        let MinoritySize::Fixed(m) = self else {
            return Ok(());
        };
        let m = usize::from(m);
        if n == 3 {
            return if m == 1 { Ok(()) } else { Err("must be 1 with 3 agents (1 vs 1)".into()) };
        }
        if m >= 1 && 2 * m < n - 1 {
            Ok(())
        } else {
            Err(format!("must satisfy 1 ≤ m and 2m < N−1 = {} (majority larger than minority)", n - 1))
        }
    }
}

impl Serialize for MinoritySize {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            MinoritySize::Balanced => serializer.serialize_str("balanced"),
            MinoritySize::Fixed(m) => serializer.serialize_u8(*m),
        }
    }
}

impl<'de> Deserialize<'de> for MinoritySize {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<MinoritySize, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Fixed(u8),
            Name(String),
        }
        match Raw::deserialize(deserializer)? {
            Raw::Fixed(m) => Ok(MinoritySize::Fixed(m)),
            Raw::Name(s) if s == "balanced" => Ok(MinoritySize::Balanced),
            Raw::Name(s) => Err(serde::de::Error::custom(format!("minority_size {s:?}: must be balanced or a number"))),
        }
    }
}

/// A game's settings (the rules' part; the arena keeps deadlines and pauses beside them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrolleyConfig {
    /// Agents needed to start (≥ 3).
    pub min_agents: u8,
    /// Registration cap (≤ 16).
    pub max_agents: u8,
    /// The split.
    pub minority_size: MinoritySize,
    /// The safety cap on rounds; `None` = 4·N, resolved at start.
    pub max_rounds: Option<u32>,
    /// The decision of forced resolutions (deadline, admin `resolve_round`) and headless
    /// fallbacks.
    pub default_decision: Decision,
}

impl Default for TrolleyConfig {
    fn default() -> TrolleyConfig {
        TrolleyConfig {
            min_agents: MIN_AGENTS as u8,
            max_agents: MAX_AGENTS as u8,
            minority_size: MinoritySize::Balanced,
            max_rounds: None,
            default_decision: Decision::SaveMajority,
        }
    }
}

impl TrolleyConfig {
    /// A fixed-roster config for `n` agents (the headless engine).
    pub fn fixed(n: u8, minority_size: MinoritySize, max_rounds: Option<u32>, default_decision: Decision) -> Self {
        TrolleyConfig { min_agents: n, max_agents: n, minority_size, max_rounds, default_decision }
    }

    /// Checks every field (§12's create-game rules): `min_agents` ≥ 3, `max_agents` ≤ 16,
    /// `min_agents` ≤ `max_agents`, `minority_size` valid for N = `min_agents` (then for every
    /// larger N), `max_rounds` ≥ 1.
    pub fn validate(&self) -> Result<(), TrolleyError> {
        let bad = |field, reason: String| Err(TrolleyError::InvalidConfig { field, reason });
        let (min, max) = (usize::from(self.min_agents), usize::from(self.max_agents));
        if min < MIN_AGENTS {
            return bad("min_agents", format!("must be at least {MIN_AGENTS}, got {min}"));
        }
        if max > MAX_AGENTS {
            return bad("max_agents", format!("must be at most {MAX_AGENTS}, got {max}"));
        }
        if min > max {
            return bad("max_agents", format!("must be at least min_agents = {min}, got {max}"));
        }
        if let Err(reason) = self.minority_size.check(min) {
            return bad("minority_size", format!("{reason} (checked for min_agents = {min})"));
        }
        if self.max_rounds == Some(0) {
            return bad("max_rounds", "must be at least 1".into());
        }
        Ok(())
    }

    /// `max_rounds` for `n` agents: as given, else 4·N.
    pub fn max_rounds_for(&self, n: usize) -> u32 {
        self.max_rounds.unwrap_or(4 * n as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_split_matches_the_spec_table() {
        let split = |n: usize| {
            let m = MinoritySize::Balanced.resolve(n);
            (n - 1 - m, m)
        };
        assert_eq!(split(3), (1, 1));
        assert_eq!(split(4), (2, 1));
        assert_eq!(split(5), (3, 1));
        assert_eq!(split(6), (3, 2));
        assert_eq!(split(7), (4, 2));
        assert_eq!(split(10), (5, 4));
        for n in 4..=16 {
            let (maj, min) = split(n);
            assert!(maj > min && maj - min <= 2, "n={n}");
            assert!(MinoritySize::Fixed(min as u8).check(n).is_ok());
            assert!(MinoritySize::Fixed(min as u8 + 1).check(n).is_err());
        }
    }

    #[test]
    fn fixed_sizes_follow_the_validity_rule() {
        assert!(MinoritySize::Fixed(1).check(3).is_ok());
        assert!(MinoritySize::Fixed(2).check(3).is_err());
        assert!(MinoritySize::Fixed(0).check(5).is_err());
        assert!(MinoritySize::Fixed(1).check(4).is_ok());
        assert!(MinoritySize::Fixed(2).check(5).is_err());
        assert!(MinoritySize::Fixed(2).check(6).is_ok());
        assert!(MinoritySize::Fixed(1).check(7).is_ok());
    }

    #[test]
    fn config_validation_names_the_field() {
        let ok = TrolleyConfig::default();
        assert!(ok.validate().is_ok());
        let kind = |c: TrolleyConfig| match c.validate() {
            Err(TrolleyError::InvalidConfig { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(kind(TrolleyConfig { min_agents: 2, ..ok }), "min_agents");
        assert_eq!(kind(TrolleyConfig { max_agents: 17, ..ok }), "max_agents");
        assert_eq!(kind(TrolleyConfig { min_agents: 6, max_agents: 5, ..ok }), "max_agents");
        assert_eq!(kind(TrolleyConfig { minority_size: MinoritySize::Fixed(2), min_agents: 5, ..ok }), "minority_size");
        assert_eq!(kind(TrolleyConfig { max_rounds: Some(0), ..ok }), "max_rounds");
        let json = serde_json::to_string(&TrolleyConfig { minority_size: MinoritySize::Fixed(2), ..ok }).unwrap();
        assert!(json.contains("\"minority_size\":2"));
        assert_eq!(serde_json::from_str::<TrolleyConfig>(&json).unwrap().minority_size, MinoritySize::Fixed(2));
    }
}
