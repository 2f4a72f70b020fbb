//! The `heuristic` policy (spec §8.2): the reference's ten-parameter scripted agent, with the
//! coordination term counting other agents that signalled WORK where they stand.
//!
//! Draws from its own stream: 1 in `signal`; 3 in `act`, +2 when exploring, +1 when it has a
//! previous action. The arithmetic follows the spec's formulas left to right.

use crate::seeding::Stream;

use super::super::action::{Action, Mode};
use super::super::house::{distance, House, NUM_HOUSES};
use super::super::house_set::HouseSet;
use super::super::observation::Observation;
use super::super::scenario::Scenario;
use super::params::*;
use super::Policy;

/// 0.1/(1 + d) for the ring distances d = 0..5: the first score term. Evaluated at compile
/// time, with the same IEEE division as at run time.
const PROXIMITY: [f64; 6] = {
    let mut t = [0.0; 6];
    let mut d = 0;
    while d < 6 {
        t[d] = 0.1 / (1.0 + d as f64);
        d += 1;
    }
    t
};

/// The heuristic agent: its parameters and its memory of the episode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeuristicPolicy {
    params: Params,
    /// House `agent_id`, even when the agent owns several.
    home: usize,
    /// The score of each house before its night terms: 0.1/(1 + d(h, home)) + θ3·[h = home].
    /// Fixed for an episode.
    base: [f64; NUM_HOUSES],
    /// max(base, 0.01): the weight of a house no night term touches (not Burning, no Burning
    /// neighbour, no announced worker).
    base_weight: [f64; NUM_HOUSES],
    /// Own (house, mode) of the previous night; cleared by `reset`.
    prev: Option<(u8, Mode)>,
    /// This night's intent, from the signal phase.
    intent: f64,
    /// This night's signal.
    signal: Mode,
}

impl HeuristicPolicy {
    /// A heuristic agent with parameters `params`.
    pub const fn new(params: Params) -> HeuristicPolicy {
        HeuristicPolicy {
            params,
            home: 0,
            base: [0.0; NUM_HOUSES],
            base_weight: [0.0; NUM_HOUSES],
            prev: None,
            intent: 0.0,
            signal: Mode::Rest,
        }
    }

    /// Its parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// This night's intent to work (set by `signal`).
    pub fn intent(&self) -> f64 {
        self.intent
    }

    /// Step 1 of `act`: the weight of each house, w(h) = max(score(h), 0.01), with
    ///
    /// ```text
    /// score(h) = 0.1/(1 + d(h, home)) + θ3·[h = home] + 0.5·[h Burning]
    ///            + 0.3·θ2·[nb(h) ≥ 1] + 0.1·θ5·C(h) − 0.2·θ4·nb(h)
    /// ```
    ///
    /// where nb(h) counts h's burning neighbours and C(h) the other agents that signalled WORK
    /// this night and stand at h.
    #[inline]
    pub fn weights(&self, obs: &Observation<'_>) -> [f64; NUM_HOUSES] {
        let t = &self.params.0;
        let mut crowd = [0u32; NUM_HOUSES];
        let mut crowded = HouseSet::EMPTY;
        if let Some(signals) = obs.signals {
            for (j, (&s, &loc)) in signals.iter().zip(obs.locations).enumerate() {
                if j != obs.agent_id && s == Mode::Work {
                    crowd[usize::from(loc)] += 1;
                    crowded = crowded | HouseSet::single(usize::from(loc));
                }
            }
        }
        let burning = HouseSet::of(obs.houses, House::Burning);
        // Houses with a burning neighbour on the left, on the right.
        let (from_left, from_right) = (burning.right_of(), burning.left_of());
        // The terms in the spec's order, each added only where it applies; a house no term
        // touches keeps its episode-long weight. Skipping a zero term leaves every sum
        // bit-identical (x + 0.0 = x for the positive running sum, x − 0.0 = x always).
        let (help, coord, risk) = (0.3 * t[NEIGHBOR_HELP_BIAS], 0.1 * t[COORDINATION_WEIGHT], 0.2 * t[RISK_AVERSION]);
        let mut w = self.base_weight;
        for h in (burning | from_left | from_right | crowded).iter() {
            let nb = usize::from(from_left.contains(h)) + usize::from(from_right.contains(h));
            let mut score = self.base[h];
            if burning.contains(h) {
                score += 0.5;
            }
            if nb >= 1 {
                score += help;
            }
            if crowd[h] > 0 {
                score += coord * f64::from(crowd[h]);
            }
            if nb >= 1 {
                score -= risk * nb as f64;
            }
            w[h] = score.max(0.01);
        }
        w
    }
}

impl Policy for HeuristicPolicy {
    fn reset(&mut self, agent_id: usize, _scenario: &Scenario) {
        let own = self.params.0[OWN_HOUSE_PRIORITY];
        let base: [f64; NUM_HOUSES] = std::array::from_fn(|h| {
            let proximity = PROXIMITY[distance(h, agent_id)];
            if h == agent_id {
                proximity + own
            } else {
                proximity
            }
        });
        let base_weight = base.map(|b| b.max(0.01));
        *self = HeuristicPolicy { home: agent_id, base, base_weight, ..HeuristicPolicy::new(self.params) };
    }

    /// intent = clamp((θ1 + θ4·b + [home Burning]·0.5·θ3)·(1 − θ8), 0, 1); the agent wants to
    /// WORK iff intent > 0.5 and says so with probability θ0, else says the opposite.
    #[inline]
    fn signal(&mut self, obs: &Observation<'_>, rng: &mut Stream) -> Mode {
        let t = &self.params.0;
        let b = f64::from(HouseSet::of(obs.houses, House::Burning).len()) / 10.0;
        let home_burning = if obs.houses[self.home] == House::Burning { 0.5 * t[OWN_HOUSE_PRIORITY] } else { 0.0 };
        let raw = (t[WORK_TENDENCY] + t[RISK_AVERSION] * b + home_burning) * (1.0 - t[REST_REWARD_BIAS]);
        self.intent = raw.clamp(0.0, 1.0);
        let want = if self.intent > 0.5 { Mode::Work } else { Mode::Rest };
        self.signal = if rng.unit() < t[HONESTY_BIAS] { want } else { want.opposite() };
        self.signal
    }

    #[inline]
    fn act(&mut self, obs: &Observation<'_>, rng: &mut Stream) -> Action {
        let t = &self.params.0;

        // 1. Sample a house by score.
        // The weights are at least 0.01, so the branch-free form of `weighted` applies.
        let mut house = rng.weighted_nonnegative(&self.weights(obs)) as u8;

        // 2. Keep a WORK signal with probability θ0; work after a REST signal w.p. intent·θ9.
        let u = rng.unit();
        let works = match self.signal {
            Mode::Work => u < t[HONESTY_BIAS],
            Mode::Rest => u < self.intent * t[ALTRUISM_FACTOR],
        };
        let mut mode = if works { Mode::Work } else { Mode::Rest };

        // 3. Exploration: a uniform action (the signal already sent is unchanged).
        if rng.unit() < t[EXPLORATION_RATE] {
            house = rng.index(NUM_HOUSES) as u8;
            mode = Mode::from_index(rng.index(2));
        }

        // 4. Fatigue / inertia: repeat last night's action.
        if let Some(prev) = self.prev {
            if rng.unit() < t[FATIGUE_MEMORY] {
                (house, mode) = prev;
            }
        }

        // 5.
        self.prev = Some((house, mode));
        Action::new(house, mode)
    }
}
