//! [`SeatSet`]: a set of seats as a 16-bit mask.
//!
//! N ≤ 16, so a round's sides, the agents that acted in a phase, survivors and losers all fit in
//! one `u16`: no allocation per round, and iteration is always in seat order (the spec lists
//! every agent list in seat order).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The most agents a game can hold (§2).
pub const MAX_AGENTS: usize = 16;

/// A set of seats `0..16`, iterated in seat order; serialised as a list of seats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SeatSet(u16);

impl SeatSet {
    /// The empty set.
    pub const EMPTY: SeatSet = SeatSet(0);

    /// Seats `0..n`.
    pub const fn first(n: usize) -> SeatSet {
        if n >= MAX_AGENTS {
            SeatSet(u16::MAX)
        } else {
            SeatSet((1u16 << n) - 1)
        }
    }

    /// The raw mask (bit i = seat i).
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// Whether `seat` is in the set.
    pub const fn contains(self, seat: usize) -> bool {
        seat < MAX_AGENTS && self.0 & (1 << seat) != 0
    }

    /// Adds `seat` (must be < 16).
    pub fn insert(&mut self, seat: usize) {
        debug_assert!(seat < MAX_AGENTS);
        self.0 |= 1 << seat;
    }

    /// The number of seats.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The union.
    pub const fn union(self, other: SeatSet) -> SeatSet {
        SeatSet(self.0 | other.0)
    }

    /// The seats in both.
    pub const fn intersection(self, other: SeatSet) -> SeatSet {
        SeatSet(self.0 & other.0)
    }

    /// The seats of `self` not in `other`.
    pub const fn minus(self, other: SeatSet) -> SeatSet {
        SeatSet(self.0 & !other.0)
    }

    /// Whether every seat of `self` is in `other`.
    pub const fn is_subset(self, other: SeatSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// The seats in ascending order.
    pub fn iter(self) -> impl Iterator<Item = usize> + Clone {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                None
            } else {
                let seat = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(seat)
            }
        })
    }
}

impl FromIterator<usize> for SeatSet {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> SeatSet {
        let mut s = SeatSet::EMPTY;
        for seat in iter {
            s.insert(seat);
        }
        s
    }
}

impl Serialize for SeatSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter().map(|s| s as u8))
    }
}

impl<'de> Deserialize<'de> for SeatSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SeatSet, D::Error> {
        let seats = Vec::<u8>::deserialize(deserializer)?;
        if let Some(bad) = seats.iter().find(|s| usize::from(**s) >= MAX_AGENTS) {
            return Err(serde::de::Error::custom(format!("seat {bad} is out of range 0..16")));
        }
        Ok(seats.into_iter().map(usize::from).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_in_seat_order_and_round_trips() {
        let s: SeatSet = [9, 0, 15, 3].into_iter().collect();
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 3, 9, 15]);
        assert_eq!(s.len(), 4);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, "[0,3,9,15]");
        assert_eq!(serde_json::from_str::<SeatSet>(&json).unwrap(), s);
        assert!(serde_json::from_str::<SeatSet>("[16]").is_err());
        assert_eq!(SeatSet::first(16).len(), 16);
        assert_eq!(SeatSet::first(3).minus(s).iter().collect::<Vec<_>>(), vec![1, 2]);
    }
}
