//! The `heuristic` policy (spec §8.2): the reference's ten-parameter scripted agent, with the
//! coordination term counting other agents that signalled WORK where they stand.
//!
//! Draws from its own stream: 1 in `signal`; 3 in `act`, +2 when exploring, +1 when it has a
//! previous action. The arithmetic follows the spec's formulas left to right.

use crate::seeding::Stream;

use super::super::action::{Action, Mode};
use super::super::house::{burning_neighbours, count, distance, House, NUM_HOUSES};
use super::super::observation::Observation;
use super::super::scenario::Scenario;
use super::params::*;
use super::Policy;

/// The heuristic agent: its parameters and its memory of the episode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeuristicPolicy {
    params: Params,
    /// House `agent_id`, even when the agent owns several.
    home: usize,
    /// 0.1/(1 + d(h, home)) for every house: the first score term, fixed for an episode.
    proximity: [f64; NUM_HOUSES],
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
        HeuristicPolicy { params, home: 0, proximity: [0.0; NUM_HOUSES], prev: None, intent: 0.0, signal: Mode::Rest }
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
        let houses = obs.houses;
        let mut crowd = [0u32; NUM_HOUSES];
        if let Some(signals) = obs.signals {
            for (j, (&s, &loc)) in signals.iter().zip(obs.locations).enumerate() {
                if j != obs.agent_id && s == Mode::Work {
                    crowd[usize::from(loc)] += 1;
                }
            }
        }
        // The terms in the spec's order; a zero term is skipped, which leaves every sum
        // bit-identical (x + 0.0 = x for the positive running sum, x − 0.0 = x always) and
        // saves most of the additions: in a typical town most houses score only their
        // proximity.
        let (help, coord, risk) = (0.3 * t[NEIGHBOR_HELP_BIAS], 0.1 * t[COORDINATION_WEIGHT], 0.2 * t[RISK_AVERSION]);
        let mut w = [0.0; NUM_HOUSES];
        for (h, wh) in w.iter_mut().enumerate() {
            let nb = burning_neighbours(houses, h);
            let mut score = self.proximity[h];
            if h == self.home {
                score += t[OWN_HOUSE_PRIORITY];
            }
            if houses[h] == House::Burning {
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
            *wh = score.max(0.01);
        }
        w
    }
}

impl Policy for HeuristicPolicy {
    fn reset(&mut self, agent_id: usize, _scenario: &Scenario) {
        let proximity = std::array::from_fn(|h| 0.1 / (1.0 + distance(h, agent_id) as f64));
        *self = HeuristicPolicy { home: agent_id, proximity, ..HeuristicPolicy::new(self.params) };
    }

    /// intent = clamp((θ1 + θ4·b + [home Burning]·0.5·θ3)·(1 − θ8), 0, 1); the agent wants to
    /// WORK iff intent > 0.5 and says so with probability θ0, else says the opposite.
    #[inline]
    fn signal(&mut self, obs: &Observation<'_>, rng: &mut Stream) -> Mode {
        let t = &self.params.0;
        let b = count(obs.houses, House::Burning) as f64 / 10.0;
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
        let mut house = rng.weighted(&self.weights(obs)) as u8;

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
