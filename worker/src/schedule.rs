//! Which sweep a worker pulls its next jobs from: priorities and fair share between the sweeps
//! of one fleet (docs/topology.md, "Sharing the fleet").
//!
//! Each sweep's jobs have a consumer of their own, so a worker chooses where each free slot
//! goes. The rule, applied by every worker to the slots it holds:
//! - a class (`high`, `normal`, `low`) is served only when no sweep of a higher class has jobs
//!   waiting;
//! - within the class, each free slot goes to the sweep holding the fewest of this worker's
//!   slots per unit of share (`held / share`), ties to the sweep served longest ago: round
//!   robin, weighted.
//!
//! Every worker balancing its own slots balances the fleet's: the fleet's slots are the sum of
//! the workers'. A sweep whose pull comes back short has no job waiting: it is skipped until the
//! next refresh, so its unused slots go to the next sweep of the class, then to the next class.
//! This module is the bookkeeping and the choice; `intake` does the pulls.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use async_nats::jetstream::consumer::PullConsumer;
use simfleet::names::Priority;
use tokio::sync::OwnedSemaphorePermit;

/// One sweep the worker knows has jobs in the queue.
pub(crate) struct Lane {
    /// Its consumer, once bound (`None` after a failed pull: bound again before the next).
    pub(crate) consumer: Option<PullConsumer>,
    pub(crate) priority: Priority,
    pub(crate) share: u32,
    /// Jobs of this sweep the worker holds (delivered, not yet answered).
    held: Arc<AtomicUsize>,
    /// Its last pull came back short: no job waits, as far as this worker knows.
    pub(crate) empty: bool,
    /// The round it last got a slot (ties go to the smallest).
    served: u64,
}

/// Held while a job of the sweep is in the worker; counts it in its lane.
pub(crate) struct Hold(Arc<AtomicUsize>);

impl Drop for Hold {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A job's intake slot and its count in its sweep's lane, held from delivery until the job is
/// answered and released together, the count first: the pull loop, woken by the freed permit,
/// then never sees a slot free that is still counted against its sweep.
pub(crate) struct IntakeSlot {
    // Fields drop in declaration order.
    _hold: Option<Hold>,
    _permit: OwnedSemaphorePermit,
}

impl IntakeSlot {
    pub(crate) fn new(hold: Option<Hold>, permit: OwnedSemaphorePermit) -> IntakeSlot {
        IntakeSlot { _hold: hold, _permit: permit }
    }
}

/// The lanes, by sweep id.
#[derive(Default)]
pub(crate) struct Schedule {
    lanes: HashMap<String, Lane>,
    round: u64,
}

impl Schedule {
    /// Makes the lanes those of `sweeps` (each with its class and share): new sweeps get a lane,
    /// every lane may be pulled from again, and lanes of sweeps gone from the queue are dropped
    /// once the worker holds none of their jobs.
    pub(crate) fn refresh(&mut self, sweeps: Vec<(String, Priority, u32)>) {
        let present: std::collections::HashSet<&str> = sweeps.iter().map(|(s, _, _)| s.as_str()).collect();
        self.lanes.retain(|id, lane| present.contains(id.as_str()) || lane.held.load(Ordering::Relaxed) > 0);
        for (id, priority, share) in sweeps {
            let lane = self.lanes.entry(id).or_insert_with(|| Lane {
                consumer: None,
                priority,
                share,
                held: Arc::new(AtomicUsize::new(0)),
                empty: false,
                served: 0,
            });
            lane.priority = priority;
            lane.share = share.max(1);
            lane.empty = false;
        }
    }

    pub(crate) fn lane_mut(&mut self, sweep: &str) -> Option<&mut Lane> {
        self.lanes.get_mut(sweep)
    }

    /// How many of `free` slots to pull from which sweeps: every slot to the highest class
    /// with a lane not known empty, spread by `held / share`. Empty when every lane is empty.
    pub(crate) fn plan(&mut self, free: usize) -> Vec<(String, usize)> {
        let Some(top) = self.lanes.values().filter(|l| !l.empty).map(|l| l.priority).max() else {
            return Vec::new();
        };
        self.round += 1;
        let mut candidates: Vec<(&String, &mut Lane, usize)> =
            self.lanes.iter_mut().filter(|(_, l)| !l.empty && l.priority == top).map(|(s, l)| (s, l, 0)).collect();
        // A stable order for ties that are also equal in `served`.
        candidates.sort_by(|a, b| a.0.cmp(b.0));
        for _ in 0..free {
            let mut best = 0;
            for i in 1..candidates.len() {
                if before(&candidates[i], &candidates[best]) {
                    best = i;
                }
            }
            candidates[best].2 += 1;
            candidates[best].1.served = self.round;
        }
        candidates.into_iter().filter(|(_, _, n)| *n > 0).map(|(s, _, n)| (s.clone(), n)).collect()
    }

    /// The lane to wait on when no lane has a job waiting: the highest class, then the lowest
    /// `held / share`.
    pub(crate) fn idle_choice(&self) -> Option<String> {
        let mut lanes: Vec<(&String, &Lane)> = self.lanes.iter().collect();
        lanes.sort_by(|a, b| a.0.cmp(b.0));
        lanes
            .into_iter()
            .reduce(|a, b| {
                let key = |l: &Lane| {
                    (std::cmp::Reverse(l.priority), l.held.load(Ordering::Relaxed) as u64 * 1_000_000 / l.share as u64)
                };
                if key(b.1) < key(a.1) {
                    b
                } else {
                    a
                }
            })
            .map(|(s, _)| s.clone())
    }

    /// Counts a job of `sweep` as held until the returned [`Hold`] drops.
    pub(crate) fn hold(&self, sweep: &str) -> Option<Hold> {
        let lane = self.lanes.get(sweep)?;
        lane.held.fetch_add(1, Ordering::Relaxed);
        Some(Hold(Arc::clone(&lane.held)))
    }

    /// Forgets every consumer (after a failed pull, they are bound again).
    pub(crate) fn unbind_all(&mut self) {
        for lane in self.lanes.values_mut() {
            lane.consumer = None;
        }
    }
}

/// Whether candidate `a` gets the next slot before `b`: fewer held-and-planned slots per unit of
/// share (compared exactly, by cross-multiplying), then served longer ago.
fn before(a: &(&String, &mut Lane, usize), b: &(&String, &mut Lane, usize)) -> bool {
    let load = |c: &(&String, &mut Lane, usize)| (c.1.held.load(Ordering::Relaxed) + c.2) as u64;
    let (la, lb) = (load(a) * b.1.share as u64, load(b) * a.1.share as u64);
    la < lb || (la == lb && a.1.served < b.1.served)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(sweeps: &[(&str, Priority, u32)]) -> Schedule {
        let mut s = Schedule::default();
        s.refresh(sweeps.iter().map(|(id, p, w)| (id.to_string(), *p, *w)).collect());
        s
    }

    fn planned(plan: &[(String, usize)], sweep: &str) -> usize {
        plan.iter().find(|(s, _)| s == sweep).map_or(0, |(_, n)| *n)
    }

    #[test]
    fn a_higher_class_takes_every_slot() {
        let mut s = schedule(&[("low", Priority::Low, 1), ("high", Priority::High, 1), ("mid", Priority::Normal, 5)]);
        assert_eq!(s.plan(6), vec![("high".to_string(), 6)]);
        s.lane_mut("high").unwrap().empty = true;
        assert_eq!(s.plan(6), vec![("mid".to_string(), 6)]);
        s.lane_mut("mid").unwrap().empty = true;
        assert_eq!(s.plan(2), vec![("low".to_string(), 2)]);
        s.lane_mut("low").unwrap().empty = true;
        assert!(s.plan(2).is_empty());
    }

    #[test]
    fn slots_follow_shares_counting_what_is_held() {
        let mut s = schedule(&[("a", Priority::Normal, 2), ("b", Priority::Normal, 1)]);
        let plan = s.plan(6);
        assert_eq!((planned(&plan, "a"), planned(&plan, "b")), (4, 2));
        // `a` already holds 4 of this worker's slots: the next 2 go to `b` first.
        let _held: Vec<Hold> = (0..4).map(|_| s.hold("a").unwrap()).collect();
        let plan = s.plan(2);
        assert_eq!((planned(&plan, "a"), planned(&plan, "b")), (0, 2));
    }

    #[test]
    fn single_slots_rotate_between_equal_sweeps() {
        let mut s = schedule(&[("a", Priority::Normal, 1), ("b", Priority::Normal, 1), ("c", Priority::Normal, 1)]);
        let firsts: Vec<String> = (0..6).map(|_| s.plan(1).remove(0).0).collect();
        assert_eq!(firsts, ["a", "b", "c", "a", "b", "c"]);
    }

    #[test]
    fn lanes_of_sweeps_gone_from_the_queue_stay_while_held() {
        let mut s = schedule(&[("a", Priority::Normal, 1), ("b", Priority::High, 1)]);
        let hold = s.hold("a").unwrap();
        s.refresh(vec![]);
        assert!(s.hold("b").is_none(), "b held nothing: dropped");
        assert!(s.lane_mut("a").is_some(), "a is held: kept");
        drop(hold);
        s.refresh(vec![]);
        assert!(s.lanes.is_empty());
    }

    #[test]
    fn the_idle_wait_is_on_the_highest_class() {
        let s = schedule(&[("a", Priority::Normal, 1), ("b", Priority::High, 1)]);
        assert_eq!(s.idle_choice().as_deref(), Some("b"));
    }
}
