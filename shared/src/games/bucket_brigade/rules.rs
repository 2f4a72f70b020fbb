//! The physics of one night (spec §4, steps 4 to 7): extinguish, burn-out, spread, ignition.
//!
//! Pure functions of the start-of-night houses, the agents' actions and the night's
//! [`NightDraws`]: no stream, no policy, no state. They compute on sets of houses ([`Fires`]);
//! the `Houses` forms are for the replay and for tests. `Town::step` (state.rs) wraps them with
//! validation, rewards and bookkeeping; tests call them with hand-picked draws.

use super::action::{Action, Mode};
use super::draws::{NightDraws, LEFT, RIGHT};
use super::house::{left, right, Houses, NUM_HOUSES};
use super::house_set::{Fires, HouseSet};
use super::scenario::Scenario;

/// The houses after each phase of a night, for the invariants of §12 (9) and the replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NightPhases {
    /// After step 4 (extinguish): only B→S changes.
    pub after_extinguish: Houses,
    /// After burn-out and spread: steps 5–6 in the default order (only B→R), steps 5′–6′ in
    /// the contagion variant (B→R, and S→B for marked houses).
    pub after_burnout: Houses,
    /// After step 7 (spontaneous ignition): S_t^end.
    pub end: Houses,
}

/// The town after each phase of a night, as sets: what [`NightPhases`] holds, in the form the
/// night loop computes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseFires {
    /// After step 4.
    pub after_extinguish: Fires,
    /// After burn-out and spread.
    pub after_burnout: Fires,
    /// S_t^end.
    pub end: Fires,
}

impl PhaseFires {
    /// The phases as house states.
    pub fn houses(&self) -> NightPhases {
        NightPhases {
            after_extinguish: self.after_extinguish.houses(),
            after_burnout: self.after_burnout.houses(),
            end: self.end.houses(),
        }
    }
}

/// Runs steps 4 to 7 of a night.
///
/// # Panics
///
/// If an action's house is outside 0..9. `Town::step` refuses such actions before calling this.
pub fn resolve(sc: &Scenario, start: &Houses, actions: &[Action], draws: &NightDraws) -> NightPhases {
    resolve_fires(sc, Fires::of(start), actions, draws).houses()
}

/// [`resolve`] on sets: what `Town::step` runs.
///
/// # Panics
///
/// If an action's house is outside 0..9.
#[inline]
pub fn resolve_fires(sc: &Scenario, start: Fires, actions: &[Action], draws: &NightDraws) -> PhaseFires {
    let after_extinguish = extinguished(start, &workers(actions), sc.prob_solo_agent_extinguishes_fire, draws);
    let after_burnout = if sc.spread_before_burnout {
        spread_then_burnt_out(after_extinguish, sc.prob_fire_spreads_to_neighbor, draws)
    } else {
        // Step 6 (spread) would follow here, but step 5 has just ruined every burning house,
        // so nothing is left to spread from: β is inert and no spread draw is read (§4).
        burnt_out(after_extinguish)
    };
    let end = ignited(after_burnout, sc.prob_house_catches_fire, draws);
    PhaseFires { after_extinguish, after_burnout, end }
}

/// P_h = 1 − (1 − p)^k, computed as the spec pins it (§9): q = 1.0 multiplied by (1 − p)
/// k times, never `powi`, whose precision varies by platform.
#[inline]
pub fn save_probability(p: f64, workers: u32) -> f64 {
    let mut q = 1.0;
    for _ in 0..workers {
        q *= 1.0 - p;
    }
    1.0 - q
}

/// k_h: how many agents WORK at each house.
#[inline]
fn workers(actions: &[Action]) -> [u32; NUM_HOUSES] {
    let mut workers = [0u32; NUM_HOUSES];
    for a in actions {
        // Added without a branch: random agents' modes are coin flips, which a branch on the
        // mode mispredicts half the time.
        workers[usize::from(a.house)] += u32::from(a.mode == Mode::Work);
    }
    workers
}

/// [`extinguished`] on house states (tests).
#[cfg(test)]
pub fn extinguish(start: &Houses, actions: &[Action], p: f64, draws: &NightDraws) -> Houses {
    extinguished(Fires::of(start), &workers(actions), p, draws).houses()
}

/// Step 4: every house Burning at the start of the night is saved (becomes Safe) if its
/// extinguish draw is below P_h, where k_h (`workers[h]`) counts the agents WORKing at it.
/// Resting agents and workers at other houses have no effect.
#[inline]
fn extinguished(start: Fires, workers: &[u32; NUM_HOUSES], p: f64, draws: &NightDraws) -> Fires {
    let mut saved = HouseSet::EMPTY;
    for h in start.burning.iter() {
        if draws.extinguish[h] < save_probability(p, workers[h]) {
            saved = saved | HouseSet::single(h);
        }
    }
    Fires { burning: start.burning - saved, ..start }
}

/// [`burnt_out`] on house states (tests).
#[cfg(test)]
pub fn burn_out(houses: &Houses) -> Houses {
    burnt_out(Fires::of(houses)).houses()
}

/// Step 5 (default order): every house still Burning becomes Ruined.
#[inline]
fn burnt_out(fires: Fires) -> Fires {
    Fires { burning: HouseSet::EMPTY, ruined: fires.ruined | fires.burning }
}

/// [`spread_then_burnt_out`] on house states (tests).
#[cfg(test)]
pub fn spread_then_burn_out(houses: &Houses, beta: f64, draws: &NightDraws) -> Houses {
    spread_then_burnt_out(Fires::of(houses), beta, draws).houses()
}

/// Steps 5′ and 6′ (contagion variant). Each house f still Burning tests its left then its
/// right neighbour: a neighbour Safe after step 4 is marked if the (f, side) spread draw is
/// below β (a Safe house between two fires is tested twice). Then every fire burns out and
/// every marked house starts Burning, so spread fires live on to be fought next night.
#[inline]
fn spread_then_burnt_out(fires: Fires, beta: f64, draws: &NightDraws) -> Fires {
    let safe = fires.safe();
    let mut marked = HouseSet::EMPTY;
    for f in fires.burning.iter() {
        for (side, n) in [(LEFT, left(f)), (RIGHT, right(f))] {
            if safe.contains(n) && draws.spread[f][side] < beta {
                marked = marked | HouseSet::single(n);
            }
        }
    }
    Fires { burning: marked, ruined: fires.ruined | fires.burning }
}

/// [`ignited`] on house states (tests).
#[cfg(test)]
pub fn ignite(houses: &Houses, rho: f64, draws: &NightDraws) -> Houses {
    ignited(Fires::of(houses), rho, draws).houses()
}

/// Step 7: each house Safe at this point sparks (becomes Burning) if its ignition draw is
/// below ρ. This happens every night, also after `min_nights`.
#[inline]
fn ignited(fires: Fires, rho: f64, draws: &NightDraws) -> Fires {
    // Every house is compared (no branch per house); only the Safe ones can spark.
    let sparks = HouseSet::matching(|h| draws.ignite[h] < rho);
    Fires { burning: fires.burning | (sparks & fires.safe()), ..fires }
}
