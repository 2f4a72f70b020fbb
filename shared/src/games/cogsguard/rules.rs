//! Actions and bumps (§5–§7): moving, the object handlers, and the caps every change obeys.
//!
//! A move into an object's cell is a bump: handlers are tried in order and the first whose
//! conditions all hold fires. A successful move or bump costs 3 energy after its effect; a
//! failed one costs nothing.

use super::events::Event;
use super::state::{Agent, Counters, World, NONE};
use super::types::{action, Align, Gear, Kind, POOL_CAP};

/// Energy a successful move or bump costs.
pub const MOVE_COST: u16 = 3;
/// Units an extractor starts with.
pub const EXTRACTOR_UNITS: u16 = 100;
/// Most units of each element one deposit moves.
pub const DEPOSIT_MAX: u16 = 100;
/// Elements of each kind one heart costs.
pub const HEART_COST: u32 = 10;

/// An action id outside 0..=11 (§7): rejected before the tick changes any state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalAction {
    /// The seat.
    pub agent: usize,
    /// The rejected id.
    pub action: u8,
}

impl std::fmt::Display for IllegalAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "agent {} chose action {}, not in 0..=11", self.agent, self.action)
    }
}

impl std::error::Error for IllegalAction {}

/// Clamps every value to its cap (§6). Excess cargo goes silicon first, then germanium, oxygen,
/// carbon. At hp 0 the gear slot and heart cap are 0, so gear and hearts are destroyed.
pub fn enforce_caps(a: &mut Agent, counters: &mut Counters) {
    if a.hp == 0 {
        a.gear = Gear::None;
        a.heart = 0;
    }
    a.hp = a.hp.min(a.hp_cap());
    a.energy = a.energy.min(a.energy_cap());
    a.influence = a.influence.min(a.influence_cap());
    a.heart = a.heart.min(a.heart_cap());
    let cap = a.cargo_cap();
    let mut excess = a.cargo_sum().saturating_sub(cap);
    for e in (0..4).rev() {
        let cut = excess.min(a.cargo[e]);
        a.cargo[e] -= cut;
        counters.cargo_destroyed[e] += u64::from(cut);
        excess -= cut;
    }
}

impl World {
    /// Changes agent `i`'s hp by `delta` (clamped), handling the transition to 0 (§6).
    /// Inlined: it runs several times per agent and tick (regen, auras), the transition rarely.
    #[inline]
    pub fn add_hp(&mut self, i: usize, delta: i32) {
        let a = &mut self.agents[i];
        let before = a.hp;
        a.hp = (i32::from(a.hp) + delta).clamp(0, i32::from(a.hp_cap())) as u16;
        if (before == 0) != (a.hp == 0) {
            self.hp_crossed_zero(i, before);
        }
    }

    /// Agent `i`'s hp went from `before` to 0 or from 0 to above.
    #[cold]
    #[inline(never)]
    fn hp_crossed_zero(&mut self, i: usize, before: u16) {
        let a = &mut self.agents[i];
        if before > 0 {
            let had_gear = a.gear != Gear::None;
            self.counters.hp_zero += 1;
            enforce_caps(&mut self.agents[i], &mut self.counters);
            self.log(Event::HpZero { agent: i as u16 });
            if had_gear {
                self.log(Event::Gear { agent: i as u16, to: Gear::None });
            }
        } else {
            // Caps return; destroyed items do not.
            enforce_caps(&mut self.agents[i], &mut self.counters);
        }
    }

    /// Applies one validated action of agent `i`; returns its success (§7).
    pub fn apply_action(&mut self, i: usize, act: u8) -> bool {
        match action::delta(act) {
            None => {
                if act >= action::CHANGE_VIBE {
                    self.agents[i].vibe = act - action::CHANGE_VIBE;
                }
                true
            }
            Some((dr, dc)) => self.try_move(i, dr, dc),
        }
    }

    fn try_move(&mut self, i: usize, dr: i32, dc: i32) -> bool {
        let a = self.agents[i];
        if a.energy < MOVE_COST {
            return false;
        }
        let (r, c) = (i32::from(a.row) + dr, i32::from(a.col) + dc);
        if !self.in_grid(r, c) {
            return false;
        }
        let (r, c) = (r as u16, c as u16);
        let cell = self.idx(r, c);
        if self.wall[cell] || self.agent_cell[cell] != NONE {
            return false;
        }
        let obj = self.obj_at[cell];
        if obj == NONE {
            let from = self.idx(a.row, a.col);
            self.agent_cell[from] = NONE;
            self.agent_cell[cell] = i as u16;
            let a = &mut self.agents[i];
            (a.row, a.col) = (r, c);
        } else if !self.bump(i, obj) {
            return false;
        }
        let a = &mut self.agents[i];
        a.energy = a.energy.saturating_sub(MOVE_COST);
        true
    }

    /// Deposits min(held, 100, pool room) of each element (hub and cogs junctions).
    fn deposit(&mut self, i: usize) {
        let (a, pool) = (&mut self.agents[i], &mut self.pool);
        for e in 0..4 {
            let room = POOL_CAP - pool.elements[e];
            let n = u32::from(a.cargo[e].min(DEPOSIT_MAX)).min(room);
            a.cargo[e] -= n as u16;
            pool.elements[e] += n;
            self.counters.deposited[e] += u64::from(n);
        }
    }

    /// Runs the handlers of object `obj` for agent `i` (§5); false when none fires.
    pub fn bump(&mut self, i: usize, obj: u16) -> bool {
        let o = self.objects[obj as usize];
        match o.kind {
            Kind::Hub => {
                self.deposit(i);
                true
            }
            Kind::Junction => self.bump_junction(i, obj, o.align),
            Kind::Chest => {
                let a = &mut self.agents[i];
                if self.pool.hearts >= 1 {
                    let n = u32::from(a.heart_cap() > a.heart);
                    self.pool.hearts -= n;
                    a.heart += n as u16;
                    self.counters.hearts_taken += u64::from(n);
                    true
                } else if self.pool.elements.iter().all(|&x| x >= HEART_COST) {
                    for x in &mut self.pool.elements {
                        *x -= HEART_COST;
                    }
                    a.heart = (a.heart + 1).min(a.heart_cap());
                    self.counters.hearts_crafted += 1;
                    self.log(Event::HeartCrafted { agent: i as u16 });
                    true
                } else {
                    false
                }
            }
            Kind::AlignerStation | Kind::ScramblerStation | Kind::MinerStation | Kind::ScoutStation => {
                let g = o.kind.station_gear().unwrap_or(Gear::None);
                self.bump_station(i, g)
            }
            Kind::CarbonExtractor | Kind::OxygenExtractor | Kind::GermaniumExtractor | Kind::SiliconExtractor => {
                self.bump_extractor(i, obj);
                true
            }
            Kind::OutOfBounds | Kind::Empty | Kind::Wall => false,
        }
    }

    fn bump_junction(&mut self, i: usize, obj: u16, align: Align) -> bool {
        let a = self.agents[i];
        let pos = self.objects[obj as usize].pos();
        match align {
            Align::Cogs => {
                self.deposit(i);
                true
            }
            Align::Neutral if a.gear == Gear::Aligner && a.influence >= 1 && a.heart >= 1 => {
                self.agents[i].heart -= 1;
                self.set_align(obj, Align::Cogs);
                self.counters.aligned += 1;
                self.log(Event::Align { agent: i as u16, pos });
                true
            }
            Align::Clips if a.gear == Gear::Scrambler && a.heart >= 1 => {
                self.agents[i].heart -= 1;
                self.set_align(obj, Align::Neutral);
                self.counters.scrambled += 1;
                self.log(Event::Scramble { agent: i as u16, pos });
                true
            }
            _ => false,
        }
    }

    fn bump_station(&mut self, i: usize, g: Gear) -> bool {
        if self.agents[i].gear == g {
            return true; // keep
        }
        let cost = g.cost();
        if (0..4).any(|e| self.pool.elements[e] < cost[e]) {
            return false;
        }
        for (e, &c) in cost.iter().enumerate() {
            self.pool.elements[e] -= c;
            self.counters.gear_spent[e] += u64::from(c);
        }
        let a = &mut self.agents[i];
        a.gear = Gear::None;
        enforce_caps(a, &mut self.counters);
        a.gear = g;
        enforce_caps(a, &mut self.counters);
        if a.gear == g {
            self.counters.gear_acquired[g as usize - 1] += 1;
            self.log(Event::Gear { agent: i as u16, to: g });
        }
        true
    }

    fn bump_extractor(&mut self, i: usize, obj: u16) {
        let cols = self.cols as usize;
        let o = &mut self.objects[obj as usize];
        let a = &mut self.agents[i];
        let e = o.kind.element().unwrap_or(0);
        let want = if a.gear == Gear::Miner { 10 } else { 1 };
        let room = a.cargo_cap().saturating_sub(a.cargo_sum());
        let n = want.min(o.units).min(room);
        o.units -= n;
        a.cargo[e] += n;
        let cell = o.row as usize * cols + o.col as usize;
        if o.units == 0 {
            o.present = false;
            self.obj_at[cell] = NONE;
        }
        self.refresh_view(cell);
    }
}
