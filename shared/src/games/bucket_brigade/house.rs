//! Houses and the ring they stand on (spec §1).
//!
//! Ten houses, indices 0..9, on a ring: house h neighbours (h+9) mod 10 and (h+1) mod 10. A
//! house is Safe, Burning or Ruined, and Ruined is permanent.

/// Number of houses in the town (always ten).
pub const NUM_HOUSES: usize = 10;

/// The state of one house. The discriminants are the spec's codes (0/1/2): they are what the
/// trajectory hash and the replay write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum House {
    /// Not burning.
    Safe = 0,
    /// On fire this night.
    Burning = 1,
    /// Burnt down; permanent.
    Ruined = 2,
}

impl House {
    /// The spec's code of the state (Safe 0, Burning 1, Ruined 2).
    #[inline]
    pub const fn code(self) -> u8 {
        self as u8
    }
}

/// The states of all ten houses, by index.
pub type Houses = [House; NUM_HOUSES];

/// A town with every house Safe.
pub const ALL_SAFE: Houses = [House::Safe; NUM_HOUSES];

/// The left neighbour of `h`: (h+9) mod 10.
#[inline]
pub const fn left(h: usize) -> usize {
    (h + NUM_HOUSES - 1) % NUM_HOUSES
}

/// The right neighbour of `h`: (h+1) mod 10.
#[inline]
pub const fn right(h: usize) -> usize {
    (h + 1) % NUM_HOUSES
}

/// Ring distance d(a, b) = min(|a−b|, 10−|a−b|).
#[inline]
pub const fn distance(a: usize, b: usize) -> usize {
    let d = a.abs_diff(b);
    if d <= NUM_HOUSES - d {
        d
    } else {
        NUM_HOUSES - d
    }
}

/// How many of `h`'s two neighbours are Burning in `houses` (0, 1 or 2). (The engine asks
/// [`HouseSet`](super::house_set::HouseSet)s; this is the definition tests check them by.)
#[cfg(test)]
pub fn burning_neighbours(houses: &Houses, h: usize) -> usize {
    usize::from(houses[left(h)] == House::Burning) + usize::from(houses[right(h)] == House::Burning)
}

/// How many houses of `houses` are in `state`.
#[inline]
pub fn count(houses: &Houses, state: House) -> usize {
    houses.iter().filter(|&&s| s == state).count()
}

/// The spec codes of all ten states (for the replay).
pub fn codes(houses: &Houses) -> [u8; NUM_HOUSES] {
    houses.map(House::code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_neighbours_wrap() {
        assert_eq!((left(0), right(0)), (9, 1));
        assert_eq!((left(9), right(9)), (8, 0));
        assert_eq!((left(4), right(4)), (3, 5));
    }

    #[test]
    fn ring_distance_is_the_short_way_round() {
        assert_eq!(distance(0, 0), 0);
        assert_eq!(distance(0, 9), 1);
        assert_eq!(distance(9, 0), 1);
        assert_eq!(distance(2, 7), 5);
        assert_eq!(distance(1, 8), 3);
        for a in 0..NUM_HOUSES {
            for b in 0..NUM_HOUSES {
                assert_eq!(distance(a, b), distance(b, a));
                assert!(distance(a, b) <= 5);
            }
        }
    }

    #[test]
    fn burning_neighbours_counts_both_sides() {
        let mut houses = ALL_SAFE;
        houses[9] = House::Burning;
        houses[1] = House::Burning;
        houses[2] = House::Ruined;
        assert_eq!(burning_neighbours(&houses, 0), 2);
        assert_eq!(burning_neighbours(&houses, 8), 1);
        assert_eq!(burning_neighbours(&houses, 3), 0);
        assert_eq!(count(&houses, House::Burning), 2);
        assert_eq!(codes(&houses), [0, 1, 2, 0, 0, 0, 0, 0, 0, 1]);
    }
}
