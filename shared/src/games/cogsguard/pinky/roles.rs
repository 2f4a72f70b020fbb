//! Role idle rules and role modes (§13.8 table): miner (harvest, deposit), scout
//! (frontier_explore, report), aligner (align_junction), scrambler (raid_junction), and
//! acquire_hearts shared by aligner and scrambler.

use crate::games::cogsguard::obs::Observation;
use crate::games::cogsguard::rules::HEART_COST;
use crate::games::cogsguard::types::{action, cheb, man, obs_align, Gear, Kind};

use super::nav::Target;
use super::state::{Dest, DestKind, GoalKind, Mode, Role, Thing};
use super::step::H;
use super::Pinky;

/// Whether the pool can pay gear g.
pub fn can_pay(o: &Observation, g: Gear) -> bool {
    (0..4).all(|e| o.pool[e] >= g.cost()[e])
}

impl Pinky {
    /// The role's idle rule: the first that applies picks the mode.
    pub(super) fn idle_rule(&mut self, o: &Observation) -> H {
        let has_gear = o.gear == self.role.gear() as u8;
        let cargo: u16 = o.cargo.iter().sum();
        match self.role {
            Role::Miner => {
                if !has_gear && can_pay(o, Gear::Miner) {
                    return self.to(Mode::GetGear);
                }
                let ext = self.best_extractor(o).is_some();
                if cargo >= o.cargo_cap || (cargo > 0 && !ext) {
                    self.to(Mode::Deposit)
                } else if ext {
                    self.to(Mode::Harvest)
                } else {
                    self.explore_for(Thing::Extractor, Mode::Idle)
                }
            }
            Role::Scout => {
                if !has_gear && can_pay(o, Gear::Scout) {
                    return self.to(Mode::GetGear);
                }
                if self.frontier(o, GoalKind::ExploreFrontier).is_some()
                    || self.stale_junction(o, 200, GoalKind::ExploreFrontier).is_some()
                {
                    return self.to(Mode::FrontierExplore);
                }
                if !self.know.friendly().any(|f| man(f, o.pos) == 1) {
                    return self.to(Mode::Report);
                }
                if self.fixed {
                    H::Act(action::NOOP)
                } else {
                    self.role = Role::Resting;
                    self.to(Mode::Idle)
                }
            }
            Role::Aligner | Role::Scrambler => {
                let aligner = self.role == Role::Aligner;
                if !has_gear {
                    return self.to(Mode::GetGear);
                }
                if o.heart == 0 {
                    return self.to(Mode::AcquireHearts);
                }
                let (target, mode, thing) = if aligner {
                    (self.align_target(o), Mode::AlignJunction, Thing::NeutralJunction)
                } else {
                    (self.raid_target(o), Mode::RaidJunction, Thing::ClipsJunction)
                };
                if target.is_some() {
                    self.to(mode)
                } else {
                    self.explore_for(thing, Mode::Idle)
                }
            }
            Role::Resting | Role::ChoosingRole => H::Act(action::NOOP),
        }
    }

    /// The harvest dest: usable, eligible extractor minimising (man + 10 if not of the element
    /// lowest in the pool, row, col).
    pub(super) fn best_extractor(&self, o: &Observation) -> Option<(u16, u16)> {
        let judge = self.judge(o);
        let low = (0..4).min_by_key(|&e| (o.pool[e], e)).unwrap_or(0);
        self.know
            .extractors
            .iter()
            .copied()
            .filter(|&p| self.know.usable_extractor(p) && judge.eligible(&self.know, &self.avoid, p, 4))
            .min_by_key(|&p| {
                let e = Kind::from_u8(self.know.kind[self.know.idx(p)]).element().unwrap_or(0);
                (man(p, o.pos) + if e == low { 0 } else { 10 }, p.0, p.1)
            })
    }

    /// harvest: bump the chosen extractor until cargo is full; re-pick when it is gone.
    pub(super) fn harvest(&mut self, o: &Observation) -> H {
        let keep = self.goal.and_then(|g| match g.kind {
            GoalKind::Get(_) => g.dest.filter(|d| self.know.usable_extractor(d.pos)),
            _ => None,
        });
        let pos = match keep.map(|d| d.pos).or_else(|| self.best_extractor(o)) {
            Some(p) => p,
            None if o.cargo.iter().any(|&c| c > 0) => return self.to(Mode::Deposit),
            None => return self.explore_for(Thing::Extractor, Mode::Idle),
        };
        let kind = Kind::from_u8(self.know.kind[self.know.idx(pos)]);
        let e = kind.element().unwrap_or(0);
        self.set_goal(o, GoalKind::Get(e), Some(Dest { kind: DestKind::Object(kind), pos }));
        self.approach(o, pos, true)
    }

    /// deposit: bump the nearest (man, row, col) hub or believed-cogs junction.
    pub(super) fn deposit(&mut self, o: &Observation) -> H {
        let keep = self.goal_dest(GoalKind::DepositCargo).filter(|d| self.know.friendly().any(|f| f == d.pos));
        let best = keep.map(|d| d.pos).or_else(|| self.know.friendly().min_by_key(|&f| (man(f, o.pos), f.0, f.1)));
        let Some(pos) = best else {
            return self.explore_for(Thing::Depot, Mode::Deposit);
        };
        let kind = Kind::from_u8(self.know.kind[self.know.idx(pos)]);
        self.set_goal(o, GoalKind::DepositCargo, Some(Dest { kind: DestKind::Object(kind), pos }));
        self.approach(o, pos, true)
    }

    /// frontier_explore: nearest eligible frontier; else the stalest junction; else report.
    pub(super) fn frontier_explore(&mut self, o: &Observation) -> H {
        let kind = GoalKind::ExploreFrontier;
        if let Some(f) = self.frontier(o, kind) {
            self.set_goal(o, kind, Some(Dest { kind: DestKind::Frontier, pos: f }));
            return self.walk(o, f);
        }
        if let Some(j) = self.stale_junction(o, 200, kind) {
            self.set_goal(o, kind, Some(Dest { kind: DestKind::Object(Kind::Junction), pos: j }));
            return self.approach(o, j, false);
        }
        self.to(Mode::Report)
    }

    /// report: walk next to the nearest (man) friendly source.
    pub(super) fn report(&mut self, o: &Observation) -> H {
        let best = self.know.friendly().min_by_key(|&f| (man(f, o.pos), f.0, f.1));
        let Some(pos) = best else {
            return H::Act(action::NOOP);
        };
        if man(pos, o.pos) == 1 {
            return self.to(Mode::Idle);
        }
        let kind = Kind::from_u8(self.know.kind[self.know.idx(pos)]);
        self.set_goal(o, GoalKind::Report, Some(Dest { kind: DestKind::Object(kind), pos }));
        self.approach(o, pos, false)
    }

    /// acquire_hearts: bump the nearest chest when it can give or craft a heart, else wait.
    pub(super) fn acquire_hearts(&mut self, o: &Observation) -> H {
        let best = self.know.chests.iter().copied().min_by_key(|&c| (man(c, o.pos), c.0, c.1));
        let Some(pos) = best else {
            let m = self.mode;
            return self.explore_for(Thing::Chest, m);
        };
        self.set_goal(o, GoalKind::GetHearts, Some(Dest { kind: DestKind::Object(Kind::Chest), pos }));
        let can = o.pool_hearts >= 1 || o.pool.iter().all(|&x| x >= HEART_COST);
        self.approach(o, pos, can)
    }

    /// Align targets: believed-neutral junctions farther than 10 from every K and within 21 of
    /// some F, eligible; ordered by (cheb to nearest hub, man to agent, row, col).
    pub(super) fn align_target(&self, o: &Observation) -> Option<(u16, u16)> {
        let judge = self.judge(o);
        let k = &self.know;
        k.junctions_with(obs_align::NEUTRAL)
            .filter(|&p| {
                !k.clips_within(p, 10) && k.friendly().any(|f| cheb(f, p) <= 21) && judge.eligible(k, &self.avoid, p, 1)
            })
            .min_by_key(|&p| {
                let hub = k.hubs.iter().map(|&h| cheb(h, p)).min().unwrap_or(1000);
                (hub, man(p, o.pos), p.0, p.1)
            })
    }

    /// align_junction: recharge influence when it ran out outside safety, else bump the target.
    pub(super) fn align_junction(&mut self, o: &Observation) -> H {
        if o.influence == 0 && !self.know.safe(o.pos) {
            let Some(c) = self.nav.find(&self.know, o.pos, Target::Safe) else {
                self.fail(o);
                return H::To(Mode::Idle);
            };
            self.resume = Mode::AlignJunction;
            self.goal = None;
            self.set_goal(o, GoalKind::Recharge, Some(Dest { kind: DestKind::Safe, pos: c }));
            return H::To(Mode::MoveTo);
        }
        let keep = self
            .goal_dest(GoalKind::AlignJunction)
            .filter(|d| self.know.align[self.know.idx(d.pos)] == obs_align::NEUTRAL);
        let Some(pos) = keep.map(|d| d.pos).or_else(|| self.align_target(o)) else {
            return self.to(Mode::Idle);
        };
        self.set_goal(o, GoalKind::AlignJunction, Some(Dest { kind: DestKind::Object(Kind::Junction), pos }));
        self.approach(o, pos, true)
    }

    /// Raid targets: believed-clips junctions, eligible; ordered by (most believed-neutral
    /// junctions within 10 of it, man to agent, row, col).
    pub(super) fn raid_target(&self, o: &Observation) -> Option<(u16, u16)> {
        let judge = self.judge(o);
        let k = &self.know;
        k.junctions_with(obs_align::CLIPS).filter(|&p| judge.eligible(k, &self.avoid, p, 1)).min_by_key(|&p| {
            let neutral = k.junctions_with(obs_align::NEUTRAL).filter(|&q| cheb(q, p) <= 10).count();
            (std::cmp::Reverse(neutral), man(p, o.pos), p.0, p.1)
        })
    }

    /// raid_junction: bump the target clips junction.
    pub(super) fn raid_junction(&mut self, o: &Observation) -> H {
        let keep = self
            .goal_dest(GoalKind::ScrambleJunction)
            .filter(|d| self.know.align[self.know.idx(d.pos)] == obs_align::CLIPS);
        let Some(pos) = keep.map(|d| d.pos).or_else(|| self.raid_target(o)) else {
            return self.to(Mode::Idle);
        };
        self.set_goal(o, GoalKind::ScrambleJunction, Some(Dest { kind: DestKind::Object(Kind::Junction), pos }));
        self.approach(o, pos, true)
    }
}
