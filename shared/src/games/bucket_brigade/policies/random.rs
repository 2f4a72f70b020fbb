//! The `random` policy (spec §8.1): uniform signals, houses and modes.

use crate::seeding::Stream;

use super::super::action::{Action, Mode};
use super::super::house::NUM_HOUSES;
use super::super::observation::Observation;
use super::super::scenario::Scenario;
use super::Policy;

/// Signal = index(2); action: house = index(10), then mode = index(2). Memoryless.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RandomPolicy;

impl Policy for RandomPolicy {
    fn reset(&mut self, _agent_id: usize, _scenario: &Scenario) {}

    #[inline]
    fn signal(&mut self, _obs: &Observation<'_>, rng: &mut Stream) -> Mode {
        Mode::from_index(rng.index(2))
    }

    #[inline]
    fn act(&mut self, _obs: &Observation<'_>, rng: &mut Stream) -> Action {
        // NUM_HOUSES = 10 fits a u8.
        let house = rng.index(NUM_HOUSES) as u8;
        let mode = Mode::from_index(rng.index(2));
        Action::new(house, mode)
    }
}
