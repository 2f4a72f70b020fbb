//! The per-step decision (§13.8), in order: (1) knowledge, (2) mood, (3) for active roles the
//! retreat entry, success check, goal timeout and review, (4) the mode handlers (at most 4 mode
//! changes, else `noop`), (5) the energy gate, (6) the stuck escape, (7) occupancy and debug.

use crate::games::cogsguard::obs::Observation;
use crate::games::cogsguard::types::{action, man, obs_align, Gear};
use crate::seeding::Stream;

use super::knowledge::FREE;
use super::mood::{self, Judge, AVOID_STEPS};
use super::nav::step_cell;
use super::state::{Dest, Goal, GoalKind, Mode, Role, Thing};
use super::Pinky;

/// What a mode handler decides: an action, or a switch to another mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum H {
    /// Emit this action.
    Act(u8),
    /// Switch mode and run its handler.
    To(Mode),
}

/// Most mode changes per step.
pub const MAX_MODE_CHANGES: usize = 4;
/// Energy a move needs.
const MOVE_ENERGY: u16 = 3;

impl Pinky {
    /// Chooses this step's action (§13.8). `debug` builds the debug string.
    pub fn act(&mut self, o: &Observation, rng: &mut Stream, debug: bool) -> u8 {
        if self.know.rows != o.map_rows || self.know.cols != o.map_cols || self.know.kind.is_empty() {
            let n = o.map_rows as usize * o.map_cols as usize;
            self.know.reset(o.map_rows, o.map_cols);
            self.nav.reset((o.map_rows as usize + 2) * (o.map_cols as usize + 2));
            self.avoid.clear();
            self.avoid.resize(n, 0);
        }
        // (1) knowledge, (2) mood.
        self.know.update(o);
        self.nav.observe(o.pos);
        self.mood = mood::mood(o, &self.know);
        let n = u32::from(o.num_agents.max(1));
        let mut chosen = None;
        let mut emit_role = self.role;
        if self.role == Role::Resting && o.step % n == self.id as u32 % n {
            self.role = Role::ChoosingRole;
        }
        if self.role == Role::ChoosingRole {
            // choosing_role lasts one decision: announce the role by vibe, then take it.
            emit_role = Role::ChoosingRole;
            let r = self.choose_role(o);
            chosen = Some(action::CHANGE_VIBE + r.vibe());
            self.mode = Mode::Idle;
            self.goal = None;
            self.role = r;
        } else if self.role.is_active() {
            // (3)
            self.pre_checks(o);
        }
        let mut a = match chosen {
            Some(a) => a,
            None => {
                let a = self.run_modes(o);
                emit_role = self.role;
                a
            }
        };
        // (5) energy gate.
        let is_move = action::delta(a).is_some();
        if is_move && o.energy < MOVE_ENERGY {
            a = action::NOOP;
            self.nav.undo(o.pos);
        }
        // (6) stuck escape: only travel steps (moves into cells believed free or unknown) count.
        if self.nav.escaping() {
            let e = self.nav.escape_step(&self.know, o.pos);
            a = if o.energy < MOVE_ENERGY { action::NOOP } else { e };
        } else if let Some(q) = step_cell(&self.know, o.pos, a) {
            let k = self.know.kind[self.know.idx(q)];
            if (k == FREE || k == super::knowledge::UNKNOWN) && self.nav.travel(o.pos, a, rng) {
                a = self.nav.escape_step(&self.know, o.pos);
            }
        }
        // (7)
        self.occupancy[emit_role.index()][self.mode.index()] += 1;
        if debug {
            self.write_debug(emit_role, a);
        }
        a
    }

    /// The judge of target eligibility for this step.
    pub(super) fn judge(&self, o: &Observation) -> Judge {
        Judge::new(o, self.mood, self.role)
    }

    /// Step (3): retreat entry, success check, goal timeout, review.
    fn pre_checks(&mut self, o: &Observation) {
        if self.mode != Mode::Retreat && mood::should_retreat(o, &self.know, self.mood, self.role) {
            self.mode = Mode::Retreat;
            self.goal = None;
            self.retreat_gear = o.gear != Gear::None as u8;
            self.nav.clear_cache();
        }
        if let Some(m) = self.success(o) {
            self.goal = None;
            self.mode = m;
        }
        if let Some(g) = self.goal {
            if o.step.saturating_sub(g.started_at_step) >= self.cfg.timeout {
                self.fail(o);
            }
        }
        self.review(o);
    }

    /// Step (4): mode handlers, at most [`MAX_MODE_CHANGES`] mode changes, else `noop`.
    fn run_modes(&mut self, o: &Observation) -> u8 {
        let mut changes = 0;
        loop {
            let h = if self.role.is_active() { self.handle(o) } else { self.rest(o) };
            match h {
                H::Act(a) => return a,
                H::To(m) => {
                    changes += 1;
                    if changes > MAX_MODE_CHANGES {
                        return action::NOOP;
                    }
                    self.mode = m;
                }
            }
        }
    }

    /// A goal fails (timeout or no path): an extractor, junction or frontier dest is avoided
    /// for 200 steps, the goal is cleared and the mode becomes idle.
    pub(super) fn fail(&mut self, o: &Observation) {
        if let Some(Goal { dest: Some(d), .. }) = self.goal {
            if d.avoidable() {
                let i = self.know.idx(d.pos);
                self.avoid[i] = o.step + AVOID_STEPS;
            }
        }
        self.goal = None;
        self.mode = Mode::Idle;
        self.nav.clear_cache();
    }

    /// Sets the goal, keeping its start step when kind and dest are unchanged.
    pub(super) fn set_goal(&mut self, o: &Observation, kind: GoalKind, dest: Option<Dest>) {
        match self.goal {
            Some(g) if g.kind == kind && g.dest == dest => {}
            _ => self.goal = Some(Goal { kind, dest, started_at_step: o.step }),
        }
    }

    /// The goal's dest position when the goal has this kind.
    pub(super) fn goal_dest(&self, kind: GoalKind) -> Option<Dest> {
        self.goal.filter(|g| g.kind == kind).and_then(|g| g.dest)
    }

    /// Success check (§13.8): the success transition of the current mode, if its condition holds.
    pub(super) fn success(&mut self, o: &Observation) -> Option<Mode> {
        let cargo: u16 = o.cargo.iter().sum();
        match self.mode {
            Mode::Idle => None,
            Mode::GetGear => (o.gear == self.role.gear() as u8).then_some(Mode::Idle),
            Mode::Harvest => (cargo >= o.cargo_cap).then_some(Mode::Deposit),
            Mode::Deposit => {
                (cargo == 0).then(|| if self.best_extractor(o).is_some() { Mode::Harvest } else { Mode::Idle })
            }
            Mode::AcquireHearts => (o.heart >= 1).then(|| {
                let (mode, thing) = if self.role == Role::Scrambler {
                    (Mode::RaidJunction, Thing::ClipsJunction)
                } else {
                    (Mode::AlignJunction, Thing::NeutralJunction)
                };
                if self.found(o, thing) {
                    mode
                } else {
                    self.explore_for = thing;
                    self.resume = mode;
                    Mode::Explore
                }
            }),
            Mode::AlignJunction | Mode::RaidJunction => {
                let aligner = self.mode == Mode::AlignJunction;
                let kind = if aligner { GoalKind::AlignJunction } else { GoalKind::ScrambleJunction };
                let d = self.goal_dest(kind)?;
                let seen = self.know.align[self.know.idx(d.pos)];
                let (done, other) =
                    if aligner { (obs_align::COGS, obs_align::CLIPS) } else { (obs_align::NEUTRAL, obs_align::COGS) };
                if seen == done {
                    Some(if o.heart == 0 { Mode::AcquireHearts } else { self.mode })
                } else if seen == other {
                    Some(Mode::Idle)
                } else {
                    None
                }
            }
            Mode::Explore => self.found(o, self.explore_for).then_some(self.resume),
            Mode::MoveTo => {
                let g = self.goal?;
                let arrived = g.dest.is_some_and(|d| d.pos == o.pos);
                let recharged = g.kind == GoalKind::Recharge && o.influence >= o.influence_cap;
                (arrived || recharged).then_some(self.resume)
            }
            Mode::Report => {
                let d = self.goal_dest(GoalKind::Report)?;
                (man(d.pos, o.pos) == 1).then_some(Mode::Idle)
            }
            Mode::Retreat => {
                if !(self.know.safe(o.pos) && mood::pct(o) >= 90) {
                    return None;
                }
                if !self.fixed && self.retreat_gear && o.gear == Gear::None as u8 {
                    self.role = Role::Resting;
                }
                Some(Mode::Idle)
            }
            Mode::FrontierExplore => None,
        }
    }

    /// Whether the thing an explore looks for is known.
    pub(super) fn found(&mut self, o: &Observation, thing: Thing) -> bool {
        match thing {
            Thing::Station(g) => self.know.stations[g as usize - 1].is_some(),
            Thing::Extractor => self.best_extractor(o).is_some(),
            Thing::NeutralJunction => self.align_target(o).is_some(),
            Thing::ClipsJunction => self.raid_target(o).is_some(),
            Thing::Chest => !self.know.chests.is_empty(),
            Thing::Depot => self.know.friendly().next().is_some(),
        }
    }
}
