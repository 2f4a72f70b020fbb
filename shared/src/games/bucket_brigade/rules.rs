//! The physics of one night (spec §4, steps 4 to 7): extinguish, burn-out, spread, ignition.
//!
//! Pure functions of the start-of-night houses, the agents' actions and the night's
//! [`NightDraws`]: no stream, no policy, no state. `Town::step` (state.rs) wraps them with
//! validation, rewards and bookkeeping; tests call them with hand-picked draws.

use super::action::{Action, Mode};
use super::draws::{NightDraws, LEFT, RIGHT};
use super::house::{left, right, House, Houses, NUM_HOUSES};
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

/// Runs steps 4 to 7 of a night.
///
/// # Panics
///
/// If an action's house is outside 0..9. `Town::step` refuses such actions before calling this.
pub fn resolve(sc: &Scenario, start: &Houses, actions: &[Action], draws: &NightDraws) -> NightPhases {
    let after_extinguish = extinguish(start, actions, sc.prob_solo_agent_extinguishes_fire, draws);
    let after_burnout = if sc.spread_before_burnout {
        spread_then_burn_out(&after_extinguish, sc.prob_fire_spreads_to_neighbor, draws)
    } else {
        // Step 6 (spread) would follow here, but step 5 has just ruined every burning house,
        // so nothing is left to spread from: β is inert and no spread draw is read (§4).
        burn_out(&after_extinguish)
    };
    let end = ignite(&after_burnout, sc.prob_house_catches_fire, draws);
    NightPhases { after_extinguish, after_burnout, end }
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

/// Step 4: every house Burning at the start of the night is saved (becomes Safe) if its
/// extinguish draw is below P_h, where k_h counts the agents WORKing at it. Resting agents and
/// workers at other houses have no effect.
#[inline]
pub fn extinguish(start: &Houses, actions: &[Action], p: f64, draws: &NightDraws) -> Houses {
    let mut workers = [0u32; NUM_HOUSES];
    for a in actions {
        if a.mode == Mode::Work {
            workers[usize::from(a.house)] += 1;
        }
    }
    let mut out = *start;
    for h in 0..NUM_HOUSES {
        if start[h] == House::Burning && draws.extinguish[h] < save_probability(p, workers[h]) {
            out[h] = House::Safe;
        }
    }
    out
}

/// Step 5 (default order): every house still Burning becomes Ruined.
#[inline]
pub fn burn_out(houses: &Houses) -> Houses {
    houses.map(|s| if s == House::Burning { House::Ruined } else { s })
}

/// Steps 5′ and 6′ (contagion variant). Each house f still Burning tests its left then its
/// right neighbour: a neighbour Safe after step 4 is marked if the (f, side) spread draw is
/// below β (a Safe house between two fires is tested twice). Then every fire burns out and
/// every marked house starts Burning, so spread fires live on to be fought next night.
#[inline]
pub fn spread_then_burn_out(houses: &Houses, beta: f64, draws: &NightDraws) -> Houses {
    let mut marked = [false; NUM_HOUSES];
    for f in 0..NUM_HOUSES {
        if houses[f] != House::Burning {
            continue;
        }
        for (side, n) in [(LEFT, left(f)), (RIGHT, right(f))] {
            if houses[n] == House::Safe && draws.spread[f][side] < beta {
                marked[n] = true;
            }
        }
    }
    let mut out = burn_out(houses);
    for (h, m) in marked.iter().enumerate() {
        if *m {
            out[h] = House::Burning;
        }
    }
    out
}

/// Step 7: each house Safe at this point sparks (becomes Burning) if its ignition draw is
/// below ρ. This happens every night, also after `min_nights`.
#[inline]
pub fn ignite(houses: &Houses, rho: f64, draws: &NightDraws) -> Houses {
    let mut out = *houses;
    for h in 0..NUM_HOUSES {
        if houses[h] == House::Safe && draws.ignite[h] < rho {
            out[h] = House::Burning;
        }
    }
    out
}
