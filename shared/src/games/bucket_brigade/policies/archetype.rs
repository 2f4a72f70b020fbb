//! The five archetypes (spec §8.3): named parameter vectors of the heuristic policy.

use super::params::Params;

/// A named heuristic parameter vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Archetype {
    /// Honest, hard-working, helps neighbours.
    Firefighter,
    /// Rarely works and prefers rest; fairly honest.
    FreeRider,
    /// Always works, honest, sticks to last night's choice.
    Hero,
    /// Risk-averse, drawn to houses where others signalled WORK.
    Coordinator,
    /// Mostly signals the opposite of its intent, explores.
    Liar,
}

impl Archetype {
    /// Every archetype, in the spec's order.
    pub const ALL: [Archetype; 5] =
        [Archetype::Firefighter, Archetype::FreeRider, Archetype::Hero, Archetype::Coordinator, Archetype::Liar];

    /// The name used in policy specs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Archetype::Firefighter => "firefighter",
            Archetype::FreeRider => "free_rider",
            Archetype::Hero => "hero",
            Archetype::Coordinator => "coordinator",
            Archetype::Liar => "liar",
        }
    }

    /// The archetype called `name`.
    pub fn from_name(name: &str) -> Option<Archetype> {
        Archetype::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// θ0..θ9 of the archetype (§8.3).
    #[rustfmt::skip]
    pub const fn params(self) -> Params {
        Params(match self {
            //                         θ0   θ1   θ2   θ3   θ4   θ5   θ6    θ7   θ8   θ9
            Archetype::Firefighter => [1.0, 0.9, 0.5, 0.8, 0.5, 0.7, 0.1,  0.0, 0.0, 0.8],
            Archetype::FreeRider =>   [0.7, 0.2, 0.0, 0.9, 0.0, 0.0, 0.1,  0.0, 0.9, 0.0],
            Archetype::Hero =>        [1.0, 1.0, 1.0, 0.5, 0.1, 0.5, 0.0,  0.9, 0.0, 1.0],
            Archetype::Coordinator => [0.9, 0.6, 0.7, 0.6, 0.8, 1.0, 0.05, 0.0, 0.2, 0.6],
            Archetype::Liar =>        [0.1, 0.7, 0.0, 0.9, 0.2, 0.8, 0.3,  0.0, 0.4, 0.2],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_vectors_are_valid() {
        for a in Archetype::ALL {
            assert_eq!(Archetype::from_name(a.as_str()), Some(a));
            assert!(a.params().0.iter().all(|v| (0.0..=1.0).contains(v)));
        }
        assert_eq!(Archetype::from_name("villain"), None);
        assert_eq!(Archetype::Coordinator.params().get("exploration_rate"), Some(0.05));
        assert_eq!(Archetype::Liar.params().get("honesty_bias"), Some(0.1));
        assert_eq!(Archetype::Hero.params().get("fatigue_memory"), Some(0.9));
    }
}
