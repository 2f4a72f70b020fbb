//! Universal mode handlers (§13.8): idle, get_gear, retreat, explore, move_to, and the shared
//! helpers that walk to a goal's dest.

use crate::games::cogsguard::obs::Observation;
use crate::games::cogsguard::types::{action, Kind};

use super::nav::{NavStep, Target};
use super::state::{Dest, DestKind, GoalKind, Mode, Thing};
use super::step::H;
use super::Pinky;

/// Steps before a failed frontier search is tried again.
pub const FRONTIER_RETRY: u32 = 10;

impl Pinky {
    /// Runs the handler of the current mode (active roles).
    pub(super) fn handle(&mut self, o: &Observation) -> H {
        match self.mode {
            Mode::Idle => self.idle(o),
            Mode::GetGear => self.get_gear(o),
            Mode::Retreat => self.retreat(o),
            Mode::Explore => self.explore(o),
            Mode::MoveTo => self.move_to(o),
            Mode::Harvest => self.harvest(o),
            Mode::Deposit => self.deposit(o),
            Mode::FrontierExplore => self.frontier_explore(o),
            Mode::Report => self.report(o),
            Mode::AcquireHearts => self.acquire_hearts(o),
            Mode::AlignJunction => self.align_junction(o),
            Mode::RaidJunction => self.raid_junction(o),
        }
    }

    /// Switches mode, clearing the goal (goals belong to the mode that set them).
    pub(super) fn to(&mut self, m: Mode) -> H {
        self.goal = None;
        H::To(m)
    }

    /// Switches to `explore` for `thing`, returning to `resume` once it is known.
    pub(super) fn explore_for(&mut self, thing: Thing, resume: Mode) -> H {
        self.explore_for = thing;
        self.resume = resume;
        self.to(Mode::Explore)
    }

    /// Walks to the object at `dest` and, once 4-adjacent, bumps it if `bump` (else waits).
    pub(super) fn approach(&mut self, o: &Observation, dest: (u16, u16), bump: bool) -> H {
        match self.nav.toward(&self.know, o.pos, Target::Object(dest)) {
            NavStep::Bump(a) => H::Act(if bump { a } else { action::NOOP }),
            NavStep::Move(a) => H::Act(a),
            NavStep::Wait | NavStep::Arrived => H::Act(action::NOOP),
            NavStep::NoPath => {
                self.fail(o);
                H::To(Mode::Idle)
            }
        }
    }

    /// Walks to the cell `dest`; `noop` on arrival.
    pub(super) fn walk(&mut self, o: &Observation, dest: (u16, u16)) -> H {
        match self.nav.toward(&self.know, o.pos, Target::Cell(dest)) {
            NavStep::Move(a) => H::Act(a),
            NavStep::Bump(_) | NavStep::Wait | NavStep::Arrived => H::Act(action::NOOP),
            NavStep::NoPath => {
                self.fail(o);
                H::To(Mode::Idle)
            }
        }
    }

    /// The nearest safe cell by the §13.6 BFS (the current goal's, while it is still safe).
    pub(super) fn safe_dest(&mut self, o: &Observation, kind: GoalKind) -> Option<(u16, u16)> {
        match self.goal_dest(kind) {
            Some(d) if self.know.safe(d.pos) => Some(d.pos),
            _ => self.nav.find(&self.know, o.pos, Target::Safe),
        }
    }

    /// idle: announce the role by vibe first, then the role's idle rule picks the mode.
    fn idle(&mut self, o: &Observation) -> H {
        if o.vibe != self.role.vibe() {
            return H::Act(action::CHANGE_VIBE + self.role.vibe());
        }
        self.idle_rule(o)
    }

    /// get_gear: walk to the role's station and bump it when the pool can pay, else wait there.
    fn get_gear(&mut self, o: &Observation) -> H {
        let g = self.role.gear();
        let Some(st) = self.know.stations[g as usize - 1] else {
            return self.explore_for(Thing::Station(g), Mode::GetGear);
        };
        self.set_goal(o, GoalKind::GetGear, Some(Dest { kind: DestKind::Object(Kind::station(g)), pos: st }));
        let pay = (0..4).all(|e| o.pool[e] >= g.cost()[e]);
        self.approach(o, st, pay)
    }

    /// retreat: walk to the nearest safe cell (no bumps); wait there until healed.
    fn retreat(&mut self, o: &Observation) -> H {
        if self.know.safe(o.pos) || self.know.friendly().next().is_none() {
            self.set_goal(o, GoalKind::Retreat, None);
            return H::Act(action::NOOP);
        }
        match self.safe_dest(o, GoalKind::Retreat) {
            Some(c) => {
                self.set_goal(o, GoalKind::Retreat, Some(Dest { kind: DestKind::Safe, pos: c }));
                self.walk(o, c)
            }
            None => H::Act(action::NOOP),
        }
    }

    /// The nearest eligible frontier by the explore search, the current one while it holds.
    pub(super) fn frontier(&mut self, o: &Observation, kind: GoalKind) -> Option<(u16, u16)> {
        if let Some(d) = self.goal_dest(kind) {
            if d.kind == DestKind::Frontier
                && d.pos != o.pos
                && self.know.is_frontier(d.pos)
                && self.avoid[self.know.idx(d.pos)] <= o.step
            {
                return Some(d.pos);
            }
        }
        self.search_frontier(o)
    }

    /// The explore search proper. A search that finds no eligible frontier is not repeated
    /// for [`FRONTIER_RETRY`] steps (our choice: knowledge grows by one window per step, and a
    /// failed search visits every known free cell).
    pub(super) fn search_frontier(&mut self, o: &Observation) -> Option<(u16, u16)> {
        if o.step < self.frontier_retry_at {
            return None;
        }
        let judge = self.judge(o);
        let (know, avoid) = (&self.know, &self.avoid);
        let found = self.nav.nearest_frontier(know, o.pos, self.id % 4, |p| judge.eligible(know, avoid, p, 1));
        if found.is_none() {
            self.frontier_retry_at = o.step + FRONTIER_RETRY;
        }
        found
    }

    /// explore: nearest eligible frontier; the scrambler then visits stale junctions; with
    /// nothing left, hold at the nearest safe cell.
    fn explore(&mut self, o: &Observation) -> H {
        let thing = self.explore_for;
        if self.found(o, thing) {
            let r = self.resume;
            return self.to(r);
        }
        let kind = GoalKind::Find(thing);
        if let Some(f) = self.frontier(o, kind) {
            self.set_goal(o, kind, Some(Dest { kind: DestKind::Frontier, pos: f }));
            return self.walk(o, f);
        }
        if thing == Thing::ClipsJunction {
            if let Some(j) = self.stale_junction(o, 100, kind) {
                self.set_goal(o, kind, Some(Dest { kind: DestKind::Object(Kind::Junction), pos: j }));
                return self.approach(o, j, false);
            }
        }
        self.hold(o)
    }

    /// Holds at the nearest safe cell (`noop` once there).
    pub(super) fn hold(&mut self, o: &Observation) -> H {
        if self.know.safe(o.pos) {
            self.set_goal(o, GoalKind::Hold, None);
            return H::Act(action::NOOP);
        }
        match self.safe_dest(o, GoalKind::Hold) {
            Some(c) => {
                self.set_goal(o, GoalKind::Hold, Some(Dest { kind: DestKind::Safe, pos: c }));
                self.walk(o, c)
            }
            None => H::Act(action::NOOP),
        }
    }

    /// move_to: walk to the goal's cell; success (arrival) returns to `resume`.
    fn move_to(&mut self, o: &Observation) -> H {
        match self.goal.and_then(|g| g.dest) {
            Some(d) if d.pos != o.pos => self.walk(o, d.pos),
            _ => {
                let r = self.resume;
                self.to(r)
            }
        }
    }

    /// The junction with the oldest last-seen step ≤ s − age (the current goal's while stale).
    pub(super) fn stale_junction(&self, o: &Observation, age: u32, kind: GoalKind) -> Option<(u16, u16)> {
        let limit = i64::from(o.step) - i64::from(age);
        let stale = |p: (u16, u16)| i64::from(self.know.seen[self.know.idx(p)]) <= limit;
        if let Some(d) = self.goal_dest(kind) {
            if d.kind == DestKind::Object(Kind::Junction) && stale(d.pos) {
                return Some(d.pos);
            }
        }
        self.know
            .junctions
            .iter()
            .copied()
            .filter(|&p| stale(p))
            .min_by_key(|&p| (self.know.seen[self.know.idx(p)], p.0, p.1))
    }
}
