//! The environment's random draws (spec §9): a fixed count per night, in a fixed order.
//!
//! The engine takes every draw of a night up front, whatever the houses' states, so two teams
//! on the same seed see the same uniform value for every house every night (common random
//! numbers). The rules in `rules.rs` never touch a stream: they read a [`NightDraws`], which is
//! also how tests inject hand-picked values.

use crate::seeding::Stream;

use super::house::{House, Houses, ALL_SAFE, NUM_HOUSES};

/// Left, then right: the index of a side in [`NightDraws::spread`].
pub const LEFT: usize = 0;
/// See [`LEFT`].
pub const RIGHT: usize = 1;

/// Every environment draw of one night.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NightDraws {
    /// u_ext(h): compared with P_h in the extinguish step.
    pub extinguish: [f64; NUM_HOUSES],
    /// u_ign(h): compared with ρ in the spontaneous-ignition step.
    pub ignite: [f64; NUM_HOUSES],
    /// The spread draws of (f, left) and (f, right); drawn only in the contagion variant
    /// (otherwise left at 1.0, a value no probability test passes).
    pub spread: [[f64; 2]; NUM_HOUSES],
}

impl NightDraws {
    /// Draws that trigger nothing: no save, no spark, no spread.
    pub const QUIET: NightDraws =
        NightDraws { extinguish: [1.0; NUM_HOUSES], ignite: [1.0; NUM_HOUSES], spread: [[1.0; 2]; NUM_HOUSES] };

    /// Takes one night's draws from the environment stream: for h = 0..9, u_ext(h) then
    /// u_ign(h); then, in the contagion variant only, for f = 0..9 the spread draws of
    /// (f, left) then (f, right).
    pub fn draw(env: &mut Stream, contagion: bool) -> NightDraws {
        let mut d = NightDraws::QUIET;
        d.fill(env, contagion);
        d
    }

    /// [`NightDraws::draw`] into `self`, reusing it from night to night (the policy loop does,
    /// to save a copy per night). Spread draws are left as they were in the default order.
    #[inline]
    pub fn fill(&mut self, env: &mut Stream, contagion: bool) {
        for h in 0..NUM_HOUSES {
            self.extinguish[h] = env.unit();
            self.ignite[h] = env.unit();
        }
        if contagion {
            for f in 0..NUM_HOUSES {
                self.spread[f][LEFT] = env.unit();
                self.spread[f][RIGHT] = env.unit();
            }
        }
    }
}

/// The initial town (§3): for h = 0..9 in order, one draw u; Burning if u < ρ, else Safe.
pub fn initial_houses(env: &mut Stream, rho: f64) -> Houses {
    let mut houses = ALL_SAFE;
    for h in houses.iter_mut() {
        if env.unit() < rho {
            *h = House::Burning;
        }
    }
    houses
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn night_draws_follow_the_spec_order() {
        let mut env = Stream::env(9);
        let d = NightDraws::draw(&mut env, true);
        let mut check = Stream::env(9);
        let raw: Vec<f64> = (0..40).map(|_| check.unit()).collect();
        for h in 0..NUM_HOUSES {
            assert_eq!(d.extinguish[h], raw[2 * h]);
            assert_eq!(d.ignite[h], raw[2 * h + 1]);
            assert_eq!(d.spread[h][LEFT], raw[20 + 2 * h]);
            assert_eq!(d.spread[h][RIGHT], raw[20 + 2 * h + 1]);
        }
        // Both streams are now at the same position.
        assert_eq!(env.unit(), check.unit());
    }

    #[test]
    fn default_order_takes_twenty_draws_a_night() {
        let mut env = Stream::env(3);
        let d = NightDraws::draw(&mut env, false);
        assert_eq!(d.spread, [[1.0; 2]; NUM_HOUSES]);
        let mut check = Stream::env(3);
        for _ in 0..20 {
            check.unit();
        }
        assert_eq!(env.unit(), check.unit());
    }

    #[test]
    fn initial_fires_use_one_draw_per_house() {
        let mut env = Stream::env(5);
        assert_eq!(initial_houses(&mut env, 0.0), ALL_SAFE);
        let mut env = Stream::env(5);
        assert_eq!(initial_houses(&mut env, 1.0), [House::Burning; NUM_HOUSES]);
        let mut a = Stream::env(77);
        let houses = initial_houses(&mut a, 0.5);
        let mut b = Stream::env(77);
        for h in houses {
            assert_eq!(h == House::Burning, b.unit() < 0.5);
        }
        assert_eq!(a.unit(), b.unit());
    }
}
