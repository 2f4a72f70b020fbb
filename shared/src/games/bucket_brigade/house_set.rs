//! Sets of houses as ten bits, and a town's states as two such sets ([`Fires`]).
//!
//! The rules, rewards and the heuristic ask the same few questions every night: which houses
//! burn, which are Safe, which have a burning neighbour, how many of an agent's own houses are
//! Safe. On bits each is an instruction or two (a mask, a rotation, a popcount) where a walk
//! over ten enum bytes is a compare and a branch per house; the night loop asks them millions
//! of times a second. [`Houses`] stays the form agents observe and tests write.

use std::ops::{BitAnd, BitOr, BitXor, Not, Sub};

use super::house::{House, Houses, NUM_HOUSES};
use super::scenario::MAX_AGENTS;

/// A set of houses: bit h is house h.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HouseSet(u16);

/// Every house: the ten low bits.
const ALL_BITS: u16 = (1 << NUM_HOUSES) - 1;

impl HouseSet {
    /// No house.
    pub const EMPTY: HouseSet = HouseSet(0);
    /// All ten houses.
    pub const ALL: HouseSet = HouseSet(ALL_BITS);

    /// The houses of `houses` in state `state`.
    #[inline]
    pub fn of(houses: &Houses, state: House) -> HouseSet {
        // Eight houses at a time: the state codes as bytes of a word, where bit 0 of a byte is
        // set for Burning (1) and bit 1 for Ruined (2). The flag of each byte is moved to
        // bit 0 of the byte, then a multiplication gathers the eight flags into the top byte.
        const ONES: u64 = 0x0101_0101_0101_0101;
        const GATHER: u64 = 0x0102_0408_1020_4080;
        let codes = houses.map(House::code);
        let flags = |v: u64| match state {
            House::Burning => v & ONES,
            House::Ruined => v >> 1 & ONES,
            House::Safe => !(v | v >> 1) & ONES,
        };
        let gather = |v: u64| (flags(v).wrapping_mul(GATHER) >> 56) as u16;
        let low = u64::from_le_bytes([codes[0], codes[1], codes[2], codes[3], codes[4], codes[5], codes[6], codes[7]]);
        let high = u64::from(u16::from_le_bytes([codes[8], codes[9]]));
        HouseSet(gather(low) | (gather(high) & 0b11) << 8)
    }

    /// The houses h for which `pred(h)` holds.
    #[inline]
    pub fn matching(mut pred: impl FnMut(usize) -> bool) -> HouseSet {
        let mut bits = 0;
        for h in 0..NUM_HOUSES {
            bits |= u16::from(pred(h)) << h;
        }
        HouseSet(bits)
    }

    /// The set holding only house `h` (0..9).
    #[inline]
    pub const fn single(h: usize) -> HouseSet {
        HouseSet(1 << h)
    }

    /// Whether house `h` is in the set.
    #[inline]
    pub const fn contains(self, h: usize) -> bool {
        self.0 >> h & 1 == 1
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many houses the set holds.
    #[inline]
    pub const fn len(self) -> u32 {
        // A table: the baseline x86-64 target has no popcount instruction, and `count_ones`
        // without one is a dozen shifts and masks.
        POPCOUNT[self.0 as usize] as u32
    }

    /// The houses whose left neighbour, (h+9) mod 10, is in the set.
    #[inline]
    pub const fn right_of(self) -> HouseSet {
        HouseSet((self.0 << 1 | self.0 >> (NUM_HOUSES - 1)) & ALL_BITS)
    }

    /// The houses whose right neighbour, (h+1) mod 10, is in the set.
    #[inline]
    pub const fn left_of(self) -> HouseSet {
        HouseSet((self.0 >> 1 | self.0 << (NUM_HOUSES - 1)) & ALL_BITS)
    }

    /// The houses, ascending.
    #[inline]
    pub fn iter(self) -> impl Iterator<Item = usize> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let h = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(h)
        })
    }

    /// Owned(i) = {h : h mod N = i} for agent `agent` of `agents`.
    ///
    /// # Panics
    ///
    /// If `agents` is above 10 or `agent` not below `agents` (a validated scenario never is).
    #[inline]
    pub fn owned(agents: usize, agent: usize) -> HouseSet {
        assert!(agent < agents, "agent {agent} of {agents}");
        OWNED[agents][agent]
    }
}

/// POPCOUNT[b] = the number of ones in b, for every set of ten houses.
const POPCOUNT: [u8; 1 << NUM_HOUSES] = {
    let mut t = [0u8; 1 << NUM_HOUSES];
    let mut b = 0;
    while b < t.len() {
        t[b] = (b as u16).count_ones() as u8;
        b += 1;
    }
    t
};

/// OWNED[n][i] = {h : h mod n = i}, for n in 1..=10 (row 0 unused).
const OWNED: [[HouseSet; MAX_AGENTS]; MAX_AGENTS + 1] = {
    let mut t = [[HouseSet(0); MAX_AGENTS]; MAX_AGENTS + 1];
    let mut n = 1;
    while n <= MAX_AGENTS {
        let mut h = 0;
        while h < NUM_HOUSES {
            t[n][h % n].0 |= 1 << h;
            h += 1;
        }
        n += 1;
    }
    t
};

impl BitXor for HouseSet {
    type Output = HouseSet;
    #[inline]
    fn bitxor(self, rhs: HouseSet) -> HouseSet {
        HouseSet(self.0 ^ rhs.0)
    }
}

impl BitOr for HouseSet {
    type Output = HouseSet;
    #[inline]
    fn bitor(self, rhs: HouseSet) -> HouseSet {
        HouseSet(self.0 | rhs.0)
    }
}

impl BitAnd for HouseSet {
    type Output = HouseSet;
    #[inline]
    fn bitand(self, rhs: HouseSet) -> HouseSet {
        HouseSet(self.0 & rhs.0)
    }
}

impl Sub for HouseSet {
    type Output = HouseSet;
    #[inline]
    fn sub(self, rhs: HouseSet) -> HouseSet {
        HouseSet(self.0 & !rhs.0)
    }
}

impl Not for HouseSet {
    type Output = HouseSet;
    #[inline]
    fn not(self) -> HouseSet {
        HouseSet(!self.0 & ALL_BITS)
    }
}

/// The states of all ten houses as two disjoint sets; every other house is Safe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fires {
    /// Houses Burning.
    pub burning: HouseSet,
    /// Houses Ruined.
    pub ruined: HouseSet,
}

impl Fires {
    /// The sets of `houses`.
    #[inline]
    pub fn of(houses: &Houses) -> Fires {
        Fires { burning: HouseSet::of(houses, House::Burning), ruined: HouseSet::of(houses, House::Ruined) }
    }

    /// Houses Safe.
    #[inline]
    pub fn safe(self) -> HouseSet {
        !(self.burning | self.ruined)
    }

    /// The state of house `h`.
    #[inline]
    pub fn state(self, h: usize) -> House {
        if self.burning.contains(h) {
            House::Burning
        } else if self.ruined.contains(h) {
            House::Ruined
        } else {
            House::Safe
        }
    }

    /// The houses as states.
    #[inline]
    pub fn houses(self) -> Houses {
        std::array::from_fn(|h| self.state(h))
    }
}

#[cfg(test)]
mod tests {
    use super::super::house::{burning_neighbours, count, left, right, ALL_SAFE};
    use super::*;

    /// Every town of ten houses whose state codes are the base-3 digits of `k`, for a spread
    /// of k over all 3^10.
    fn towns() -> impl Iterator<Item = Houses> {
        (0..59_049u32).step_by(7).map(|mut k| {
            let mut out = ALL_SAFE;
            for h in out.iter_mut() {
                *h = [House::Safe, House::Burning, House::Ruined][(k % 3) as usize];
                k /= 3;
            }
            out
        })
    }

    #[test]
    fn sets_agree_with_the_houses() {
        for houses in towns() {
            let fires = Fires::of(&houses);
            for state in [House::Safe, House::Burning, House::Ruined] {
                let expect = HouseSet::matching(|h| houses[h] == state);
                assert_eq!(HouseSet::of(&houses, state), expect, "{houses:?} {state:?}");
            }
            assert_eq!(fires.houses(), houses);
            assert_eq!(fires.burning.len() as usize, count(&houses, House::Burning));
            assert_eq!(fires.safe().len() as usize, count(&houses, House::Safe));
            let burning_left = fires.burning.right_of();
            let burning_right = fires.burning.left_of();
            for h in 0..NUM_HOUSES {
                assert_eq!(fires.safe().contains(h), houses[h] == House::Safe);
                assert_eq!(burning_left.contains(h), houses[left(h)] == House::Burning, "{houses:?} {h}");
                assert_eq!(burning_right.contains(h), houses[right(h)] == House::Burning, "{houses:?} {h}");
                let nb = usize::from(burning_left.contains(h)) + usize::from(burning_right.contains(h));
                assert_eq!(nb, burning_neighbours(&houses, h));
            }
            let listed: Vec<usize> = fires.ruined.iter().collect();
            let expect: Vec<usize> = (0..NUM_HOUSES).filter(|&h| houses[h] == House::Ruined).collect();
            assert_eq!(listed, expect);
        }
    }

    #[test]
    fn owned_houses_are_h_mod_n() {
        for n in 1..=MAX_AGENTS {
            for i in 0..n {
                let expect = HouseSet::matching(|h| h % n == i);
                assert_eq!(HouseSet::owned(n, i), expect, "n = {n}, i = {i}");
            }
            let all = (0..n).fold(HouseSet::EMPTY, |acc, i| acc | HouseSet::owned(n, i));
            assert_eq!(all, HouseSet::ALL);
        }
    }
}
