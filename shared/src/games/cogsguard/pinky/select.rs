//! Role selection (§13.9): the resting state, choosing a role by team need, and the periodic
//! review that sends a surplus flexible agent back to resting.

use crate::games::cogsguard::obs::Observation;
use crate::games::cogsguard::types::{action, obs_align, vibe};

use super::state::{Dest, DestKind, GoalKind, Mode, Role};
use super::step::H;
use super::Pinky;

/// The repeating fill sequence of role targets.
pub const FILL: [Role; 8] = [
    Role::Miner,
    Role::Aligner,
    Role::Scrambler,
    Role::Miner,
    Role::Scout,
    Role::Aligner,
    Role::Miner,
    Role::Scrambler,
];

/// Index of an active role in [`Role::ACTIVE`] (miner, scout, aligner, scrambler).
fn slot(r: Role) -> usize {
    match r {
        Role::Miner => 0,
        Role::Scout => 1,
        Role::Aligner => 2,
        _ => 3,
    }
}

/// Team need: targets t[r] and counts c[r] in [`Role::ACTIVE`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Need {
    /// Targets per role.
    pub target: [i32; 4],
    /// Teammates announcing each role by vibe (self excluded).
    pub count: [i32; 4],
}

impl Need {
    /// Deficit t[r] − c[r].
    pub fn deficit(&self, r: Role) -> i32 {
        self.target[slot(r)] - self.count[slot(r)]
    }

    /// The role with the largest deficit; ties in the order miner, scout, aligner, scrambler.
    pub fn pick(&self) -> Role {
        let mut best = Role::Miner;
        for r in Role::ACTIVE {
            if self.deficit(r) > self.deficit(best) {
                best = r;
            }
        }
        best
    }
}

/// Targets of the fill sequence for a team of n, before adjustments.
pub fn fill_targets(n: usize) -> [i32; 4] {
    let mut t = [0; 4];
    for i in 0..n {
        t[slot(FILL[i % FILL.len()])] += 1;
    }
    t
}

impl Pinky {
    /// Team need from the vibe roster, the pool and knowledge (§13.9).
    pub fn team_need(&mut self, o: &Observation) -> Need {
        let mut count = [0i32; 4];
        for r in Role::ACTIVE {
            let v = r.vibe();
            count[slot(r)] = i32::from(o.team_vibes[v as usize]) - i32::from(o.vibe == v);
        }
        let mut t = fill_targets(usize::from(o.num_agents));
        let (mi, sc, al, sr) = (0, 1, 2, 3);
        if self.know.junctions_with(obs_align::CLIPS).next().is_none() && t[sr] > 0 {
            t[sr] -= 1;
            t[al] += 1;
        }
        if o.pool.iter().min().copied().unwrap_or(0) < 10 && o.pool_hearts == 0 && t[sc] > 0 {
            t[sc] -= 1;
            t[mi] += 1;
        }
        if t[sc] > 0 && self.search_frontier(o).is_none() {
            t[sc] -= 1;
            t[al] += 1;
        }
        Need { target: t, count }
    }

    /// choosing_role: the role with the largest deficit.
    pub(super) fn choose_role(&mut self, o: &Observation) -> Role {
        self.team_need(o).pick()
    }

    /// Review (flexible, active, P > 0, s > 0, s % P = id % P): a surplus agent with empty hands
    /// goes back to resting when some other role lacks someone.
    pub(super) fn review(&mut self, o: &Observation) {
        let p = self.cfg.review;
        if self.fixed || !self.role.is_active() || p == 0 || o.step == 0 || o.step % p != self.id as u32 % p {
            return;
        }
        if self.mode == Mode::Retreat || o.heart != 0 || o.cargo.iter().any(|&c| c > 0) {
            return;
        }
        let need = self.team_need(o);
        let own = self.role;
        if need.deficit(own) <= 0 && Role::ACTIVE.iter().any(|&r| r != own && need.deficit(r) >= 1) {
            self.role = Role::Resting;
            self.mode = Mode::Idle;
            self.goal = None;
            self.nav.clear_cache();
        }
    }

    /// resting: default vibe, reach safety, then wait for the decision step.
    pub(super) fn rest(&mut self, o: &Observation) -> H {
        if o.vibe != vibe::DEFAULT {
            return H::Act(action::CHANGE_VIBE + vibe::DEFAULT);
        }
        if self.know.safe(o.pos) || self.know.friendly().next().is_none() {
            self.mode = Mode::Idle;
            self.goal = None;
            return H::Act(action::NOOP);
        }
        self.mode = Mode::MoveTo;
        match self.safe_dest(o, GoalKind::Rest) {
            Some(c) => {
                self.set_goal(o, GoalKind::Rest, Some(Dest { kind: DestKind::Safe, pos: c }));
                match self.walk(o, c) {
                    H::To(_) => H::Act(action::NOOP),
                    h => h,
                }
            }
            None => H::Act(action::NOOP),
        }
    }
}
