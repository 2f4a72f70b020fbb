//! Mood, risk and retreat (§13.7): how hurt and how exposed the agent is, what an excursion to a
//! target costs, which targets are eligible, and when to retreat.

use crate::games::cogsguard::obs::Observation;

use super::knowledge::Knowledge;
use super::state::{Mood, Role};

/// Steps a timed-out or unreachable target is avoided for.
pub const AVOID_STEPS: u32 = 200;

/// hp as a percentage of its cap (floor).
pub fn pct(o: &Observation) -> i64 {
    100 * i64::from(o.hp) / i64::from(o.hp_cap.max(1))
}

/// The mood of the agent (§13.7).
pub fn mood(o: &Observation, k: &Knowledge) -> Mood {
    let p = pct(o);
    if p < 20 {
        Mood::Desperate
    } else if p < 50 {
        Mood::Urgent
    } else if p > 80 && k.safe(o.pos) && !k.clips_within(o.pos, 12) {
        Mood::Calm
    } else {
        Mood::Cautious
    }
}

/// The per-step inputs of target eligibility.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judge {
    /// Excursion budget of the mood.
    pub budget: i64,
    /// Energy cap from the observation.
    pub energy_cap: i64,
    /// Decision step.
    pub step: u32,
}

impl Judge {
    /// Budget: calm hp − reserve; cautious (hp − reserve)/2 (floor); urgent 0; desperate −1.
    pub fn new(o: &Observation, mood: Mood, role: Role) -> Judge {
        let spare = i64::from(o.hp) - i64::from(role.reserve());
        let budget = match mood {
            Mood::Calm => spare,
            Mood::Cautious => spare.div_euclid(2),
            Mood::Urgent => 0,
            Mood::Desperate => -1,
        };
        Judge { budget, energy_cap: i64::from(o.energy_cap), step: o.step }
    }

    /// Excursion cost of target p with work w: 0 if out(p) = 0, else (trip + w)·drain(p) with
    /// trip = max(2d, 6d − energy_cap), d = out(p).
    pub fn cost(&self, k: &Knowledge, p: (u16, u16), w: i64) -> i64 {
        let d = k.out(p);
        if d == 0 {
            return 0;
        }
        let trip = (2 * d).max(6 * d - self.energy_cap);
        (trip + w) * k.drain(p)
    }

    /// Eligible ⇔ cost ≤ budget and not avoided.
    pub fn eligible(&self, k: &Knowledge, avoid: &[u32], p: (u16, u16), w: i64) -> bool {
        avoid[k.idx(p)] <= self.step && self.cost(k, p, w) <= self.budget
    }
}

/// Retreat entry (§13.7): desperate, or outside safety and (hp below the way home plus reserve,
/// or urgent without an aggressive risk class).
pub fn should_retreat(o: &Observation, k: &Knowledge, mood: Mood, role: Role) -> bool {
    if mood == Mood::Desperate {
        return true;
    }
    if k.safe(o.pos) {
        return false;
    }
    let d = k.out(o.pos);
    let need = d.max(3 * d - i64::from(o.energy)) * k.drain(o.pos) + i64::from(role.reserve());
    i64::from(o.hp) < need || (mood == Mood::Urgent && !role.aggressive())
}
