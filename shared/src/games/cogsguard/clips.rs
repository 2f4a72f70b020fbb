//! The clips team (§10): no agents, four scheduled events that capture and neutralise junctions.
//!
//! Each firing lists the junctions row-major, shuffles the list with the environment stream
//! (only when it has more than one entry), and applies the effect to the first entry passing the
//! event's filter; if none passes, the fallback event's selection runs with its own shuffle.

use crate::seeding::Stream;

use super::events::{ClipsEvent, Event};
use super::state::World;
use super::types::{cheb, Align};

/// Start of `cogs_to_neutral`'s shrinking schedule.
pub const COGS_TO_NEUTRAL_START: u32 = 50;
/// Start of `neutral_to_clips`'s shrinking schedule.
pub const NEUTRAL_TO_CLIPS_START: u32 = 100;
/// The tick of `initial_clips`.
pub const INITIAL_CLIPS_AT: u32 = 10;
/// "Near clips" radius (Chebyshev).
pub const NEAR_CLIPS: u16 = 25;

/// A shrinking schedule (§10): first firing at `start`, then gaps from 100 down to 20.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shrinking {
    start: u32,
    end: u32,
    next: Option<u32>,
}

impl Shrinking {
    /// A schedule from `start` to `end` (= max_steps).
    pub fn new(start: u32, end: u32) -> Shrinking {
        Shrinking { start, end, next: Some(start) }
    }

    /// Whether it fires at `t`; if so, advances to the next firing.
    pub fn fire(&mut self, t: u32) -> bool {
        if self.next != Some(t) {
            return false;
        }
        let l = i64::from(self.end) - i64::from(self.start);
        self.next = if l > 0 {
            // gap = 100 − 80·(t−S)/L rounded half up, written in integers.
            let num = 2 * (100 * l - 80 * (i64::from(t) - i64::from(self.start))) + l;
            let gap = (num.div_euclid(2 * l)).max(1);
            Some(t + gap as u32)
        } else {
            None
        };
        true
    }
}

/// The clips schedule of an episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    cogs_to_neutral: Shrinking,
    neutral_to_clips: Shrinking,
}

impl Schedule {
    /// The schedule of an episode of `max_steps` ticks.
    pub fn new(max_steps: u32) -> Schedule {
        Schedule {
            cogs_to_neutral: Shrinking::new(COGS_TO_NEUTRAL_START, max_steps),
            neutral_to_clips: Shrinking::new(NEUTRAL_TO_CLIPS_START, max_steps),
        }
    }

    /// The events due at `t`, in firing order, advancing the shrinking schedules.
    pub fn due(&mut self, t: u32) -> [Option<ClipsEvent>; 4] {
        [
            self.cogs_to_neutral.fire(t).then_some(ClipsEvent::CogsToNeutral),
            (t == INITIAL_CLIPS_AT).then_some(ClipsEvent::InitialClips),
            self.neutral_to_clips.fire(t).then_some(ClipsEvent::NeutralToClips),
            (t >= 50 && (t - 50).is_multiple_of(100)).then_some(ClipsEvent::PresenceCheck),
        ]
    }
}

impl World {
    /// Whether junction `obj` is within Chebyshev 25 of some clips junction (itself included).
    pub fn near_clips(&self, obj: u16) -> bool {
        let p = self.objects[obj as usize].pos();
        self.junctions.iter().any(|&j| {
            let o = &self.objects[j as usize];
            o.align == Align::Clips && cheb(o.pos(), p) <= NEAR_CLIPS
        })
    }

    fn passes(&self, event: ClipsEvent, obj: u16) -> bool {
        let a = self.objects[obj as usize].align;
        match event {
            ClipsEvent::CogsToNeutral => a == Align::Cogs && self.near_clips(obj),
            ClipsEvent::InitialClips => true,
            ClipsEvent::NeutralToClips => a == Align::Neutral && self.near_clips(obj),
            ClipsEvent::PresenceCheck => self.near_clips(obj),
        }
    }

    /// Target selection of `event`: a fresh shuffled junction list, the first passing entry.
    fn select(&mut self, event: ClipsEvent, env: &mut Stream) -> Option<u16> {
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.junctions);
        if self.scratch.len() > 1 {
            env.shuffle(&mut self.scratch);
        }
        (0..self.scratch.len()).map(|i| self.scratch[i]).find(|&j| self.passes(event, j))
    }

    /// Fires one clips event (§10), with its fallback. No junctions → nothing, no draw.
    pub fn fire_clips(&mut self, event: ClipsEvent, env: &mut Stream) {
        if self.junctions.is_empty() {
            return;
        }
        let (applied, target) = match self.select(event, env) {
            Some(j) => (event, Some(j)),
            None => match event {
                ClipsEvent::NeutralToClips => (ClipsEvent::CogsToNeutral, self.select(ClipsEvent::CogsToNeutral, env)),
                ClipsEvent::PresenceCheck => (ClipsEvent::InitialClips, self.select(ClipsEvent::InitialClips, env)),
                _ => (event, None),
            },
        };
        let Some(j) = target else { return };
        let to = match applied {
            ClipsEvent::CogsToNeutral => Align::Neutral,
            ClipsEvent::InitialClips | ClipsEvent::NeutralToClips => Align::Clips,
            ClipsEvent::PresenceCheck => return, // effect: none
        };
        let from = self.objects[j as usize].align;
        if from != to {
            self.set_align(j, to);
            // Only real changes count: initial_clips may pick a junction already clips.
            match to {
                Align::Clips => self.counters.clips_captured += 1,
                _ => self.counters.clips_neutralized += 1,
            }
        }
        let pos = self.objects[j as usize].pos();
        self.log(Event::Clips { event, applied, pos, to });
    }

    /// Fires every clips event due at the current tick `t`, in order (§8 step 2).
    pub fn fire_due_clips(&mut self, env: &mut Stream) {
        if !self.clips {
            return;
        }
        for e in self.schedule.due(self.t).into_iter().flatten() {
            self.fire_clips(e, env);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(start: u32, end: u32, n: usize) -> Vec<u32> {
        let mut s = Shrinking::new(start, end);
        (1..=end).filter(|&t| s.fire(t)).take(n).collect()
    }

    #[test]
    fn schedule_vectors_match_the_spec() {
        assert_eq!(vector(50, 1000, 8), [50, 150, 242, 326, 403, 473, 537, 596]);
        assert_eq!(vector(100, 1000, 8), [100, 200, 291, 374, 450, 519, 582, 639]);
        assert_eq!(vector(50, 10000, 5), [50, 150, 249, 347, 445]);
        assert_eq!(vector(100, 10000, 5), [100, 200, 299, 397, 495]);
    }

    #[test]
    fn short_episodes_fire_at_most_once_at_start() {
        assert_eq!(vector(50, 50, 5), [50]);
        assert_eq!(vector(100, 60, 5), Vec::<u32>::new());
        // Near the end the gap shrinks to 20 and never below 1.
        let v = vector(50, 1000, 100);
        assert!(v.windows(2).all(|w| w[1] - w[0] >= 20));
        assert!(v.iter().all(|&t| t <= 1000));
    }

    #[test]
    fn due_lists_events_in_name_order() {
        let mut s = Schedule::new(1000);
        assert_eq!(s.due(10), [None, Some(ClipsEvent::InitialClips), None, None]);
        assert_eq!(s.due(50), [Some(ClipsEvent::CogsToNeutral), None, None, Some(ClipsEvent::PresenceCheck)]);
        assert_eq!(s.due(100), [None, None, Some(ClipsEvent::NeutralToClips), None]);
        assert_eq!(s.due(150), [Some(ClipsEvent::CogsToNeutral), None, None, Some(ClipsEvent::PresenceCheck)]);
    }
}
