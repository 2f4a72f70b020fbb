//! One agent's body and inventory (§6): where it stands, what it carries, and the caps its gear
//! sets.

use super::types::Gear;

/// One agent's body and inventory (§6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Agent {
    /// Row.
    pub row: u16,
    /// Column.
    pub col: u16,
    /// Energy (cap 20, scout 100).
    pub energy: u16,
    /// Hit points (cap 100, scout 400, scrambler 200).
    pub hp: u16,
    /// Influence (cap 0, aligner 20).
    pub influence: u16,
    /// Hearts (cap 10 while hp ≥ 1).
    pub heart: u16,
    /// Carried elements C, O, G, S (sum capped at 4, miner 40).
    pub cargo: [u16; 4],
    /// Gear slot.
    pub gear: Gear,
    /// Vibe 0..6.
    pub vibe: u8,
    /// Action executed in the last tick (0 at reset).
    pub last_action: u8,
    /// Its success (true at reset).
    pub last_ok: bool,
}

impl Agent {
    /// A fresh agent at (row, col): energy 20, hp 50, all else 0 (§6).
    pub fn spawn(row: u16, col: u16) -> Agent {
        Agent {
            row,
            col,
            energy: 20,
            hp: 50,
            influence: 0,
            heart: 0,
            cargo: [0; 4],
            gear: Gear::None,
            vibe: 0,
            last_action: 0,
            last_ok: true,
        }
    }

    /// (row, col).
    #[inline]
    pub fn pos(&self) -> (u16, u16) {
        (self.row, self.col)
    }

    /// hp cap: scout 400, scrambler 200, else 100 (not additive).
    #[inline]
    pub fn hp_cap(&self) -> u16 {
        match self.gear {
            Gear::Scout => 400,
            Gear::Scrambler => 200,
            _ => 100,
        }
    }

    /// Energy cap: scout 100, else 20.
    #[inline]
    pub fn energy_cap(&self) -> u16 {
        if self.gear == Gear::Scout {
            100
        } else {
            20
        }
    }

    /// Cargo cap (sum of the four elements): miner 40, else 4.
    #[inline]
    pub fn cargo_cap(&self) -> u16 {
        if self.gear == Gear::Miner {
            40
        } else {
            4
        }
    }

    /// Influence cap: aligner 20, else 0.
    #[inline]
    pub fn influence_cap(&self) -> u16 {
        if self.gear == Gear::Aligner {
            20
        } else {
            0
        }
    }

    /// Heart cap: 10 while hp ≥ 1, else 0.
    #[inline]
    pub fn heart_cap(&self) -> u16 {
        if self.hp >= 1 {
            10
        } else {
            0
        }
    }

    /// Sum of carried elements.
    #[inline]
    pub fn cargo_sum(&self) -> u16 {
        self.cargo.iter().sum()
    }
}
