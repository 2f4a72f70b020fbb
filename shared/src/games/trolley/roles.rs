//! Role assignment (§3): the only user of the environment stream.
//!
//! Each round draws two shuffles, then stable-sorts by coverage keys, so agents who still need a
//! role are preferred and ties are broken by the seed. With a fixed roster the schedule covers
//! every agent in every role after exactly N rounds, each agent operator once; it depends only
//! on (seed, N, m).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::draws;
use super::seats::{SeatSet, MAX_AGENTS};
use crate::seeding::{Stream, ENV_STREAM};

/// An agent's coverage flags, set when a round is resolved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Has been the operator.
    pub operator: bool,
    /// Has been in the majority.
    pub majority: bool,
    /// Has been in the minority.
    pub minority: bool,
}

impl Coverage {
    /// All three roles done.
    pub const fn complete(self) -> bool {
        self.operator && self.majority && self.minority
    }
}

/// One round's roles: sides stored in seat order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roles {
    /// The operator's seat.
    pub operator: usize,
    /// The majority ("the side listed first": at N = 3 the agent not drawn for the minority).
    pub majority: SeatSet,
    /// The minority.
    pub minority: SeatSet,
}

/// The environment stream (§9), serialisable: it is stored as (seed, draws so far) and
/// deserialising replays the draws, so a JSON snapshot continues exactly where it stopped.
#[derive(Clone, Debug)]
pub struct EnvRng {
    seed: u64,
    draws: u64,
    stream: Stream,
}

impl EnvRng {
    /// The environment stream of `seed`, at its start.
    pub fn new(seed: u64) -> EnvRng {
        EnvRng { seed, draws: 0, stream: Stream::env(seed) }
    }

    /// Makes this [`EnvRng::new`]`(seed)` in place, without building the generator elsewhere
    /// and copying it in (a restarted game does this once per episode).
    pub fn reset(&mut self, seed: u64) {
        self.seed = seed;
        self.draws = 0;
        self.stream.reset(seed, ENV_STREAM);
    }

    /// How many 64-bit words have been drawn.
    pub fn draws(&self) -> u64 {
        self.draws
    }

    /// The shuffle of docs/determinism.md; it draws len−1 words.
    #[inline]
    fn shuffle(&mut self, v: &mut [u8]) {
        draws::shuffle(&mut self.stream, v);
        self.draws += v.len().saturating_sub(1) as u64;
    }
}

impl PartialEq for EnvRng {
    fn eq(&self, other: &EnvRng) -> bool {
        (self.seed, self.draws) == (other.seed, other.draws)
    }
}

impl Eq for EnvRng {}

impl Serialize for EnvRng {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.seed, self.draws).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for EnvRng {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<EnvRng, D::Error> {
        let (seed, draws) = <(u64, u64)>::deserialize(deserializer)?;
        // Role assignment draws fewer than 2N words a round; a larger count is not a snapshot
        // of any real game, and replaying it would take unbounded time.
        if draws > 1 << 24 {
            return Err(serde::de::Error::custom("env_rng draw count out of range"));
        }
        let mut rng = EnvRng::new(seed);
        for _ in 0..draws {
            rng.stream.next_u64();
        }
        rng.draws = draws;
        Ok(rng)
    }
}

/// A sort key of three flags compared left to right, false before true, as one small number:
/// the same order as the tuple of the flags, without building and comparing tuples.
const fn key(first: bool, second: bool, third: bool) -> u8 {
    (first as u8) << 2 | (second as u8) << 1 | third as u8
}

/// Every seat in order: a round's lists start from it.
const SEATS: [u8; MAX_AGENTS] = {
    let mut seats = [0u8; MAX_AGENTS];
    let mut i = 0;
    while i < MAX_AGENTS {
        seats[i] = i as u8;
        i += 1;
    }
    seats
};

/// Assigns one round's roles (§3) from the agents' coverage, m and the environment stream.
///
/// 1. a = all seats; shuffle; stable-sort by (has_been_operator, ¬has_been_minority,
///    ¬has_been_majority); the operator is a\[0\].
/// 2. b = the other seats; shuffle; stable-sort by (has_been_minority, has_been_operator,
///    ¬has_been_majority); the minority is b\[0..m\], the majority the rest.
///
/// Nothing needs the sorted lists themselves, only a\[0\] and the set b\[0..m\]: a stable
/// sort orders by (key, position), so those are the least (key, position) pairs, which this
/// reads off a bit mask without sorting (a test compares it with the sorts).
///
/// `coverage.len()` is N (3..=16) and m < N−1.
pub fn assign_roles(coverage: &[Coverage], m: usize, rng: &mut EnvRng) -> Roles {
    let n = coverage.len();
    debug_assert!((3..=MAX_AGENTS).contains(&n) && m >= 1 && m < n - 1);
    let (mut operator_key, mut minority_key) = ([0u8; MAX_AGENTS], [0u8; MAX_AGENTS]);
    for (s, c) in coverage.iter().enumerate().take(MAX_AGENTS) {
        operator_key[s] = key(c.operator, !c.minority, !c.majority);
        minority_key[s] = key(c.minority, c.operator, !c.majority);
    }

    let mut buf = SEATS;
    let a = &mut buf[..n];
    rng.shuffle(a);
    let operator = usize::from(first_of_least_key(a, &operator_key));

    // The other seats in order: slot i holds seat i, or i + 1 from the operator's on, computed
    // for all 16 slots without a branch (filtering out the operator mispredicted once a round).
    let mut buf = SEATS;
    for (i, s) in buf.iter_mut().enumerate() {
        *s += u8::from(i >= operator);
    }
    let b = &mut buf[..n - 1];
    rng.shuffle(b);
    let minority = first_by_key(b, &minority_key, m);
    let majority = SeatSet::first(n).minus(minority).minus([operator].into_iter().collect());
    Roles { operator, majority, minority }
}

/// The order of a stable sort by key as numbers: `key · 16 + position` (keys < 8, positions
/// < 16), all distinct, as the set bits of one mask. Its lowest bits are the sort's first
/// elements, found without a data-dependent branch (the coverage keys are random enough that
/// compare-and-branch code mispredicted often).
fn sort_order(v: &[u8], key: &[u8; MAX_AGENTS]) -> u128 {
    let mut order = 0u128;
    for (pos, &s) in v.iter().enumerate().take(MAX_AGENTS) {
        order |= 1 << ((u32::from(key[usize::from(s)] & 7) << 4) | pos as u32);
    }
    order
}

/// The first seat of `v` (≥ 1 seat) with the least key: a stable sort's first element.
fn first_of_least_key(v: &[u8], key: &[u8; MAX_AGENTS]) -> u8 {
    v[(sort_order(v, key).trailing_zeros() & 15) as usize]
}

/// The set of the first `m` seats of `v` (≤ 16 seats) stable-sorted by key.
fn first_by_key(v: &[u8], key: &[u8; MAX_AGENTS], m: usize) -> SeatSet {
    let mut order = sort_order(v, key);
    let mut set = SeatSet::EMPTY;
    for _ in 0..m.min(v.len()) {
        set.insert(usize::from(v[(order.trailing_zeros() & 15) as usize]));
        order &= order - 1;
    }
    set
}

/// Applies one resolved round's roles to the coverage flags (what resolution does, §4).
pub fn cover(coverage: &mut [Coverage], roles: &Roles) {
    coverage[roles.operator].operator = true;
    for s in roles.majority.iter() {
        coverage[s].majority = true;
    }
    for s in roles.minority.iter() {
        coverage[s].minority = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stable insertion sort the selection replaces.
    fn stable_sort_by_key(v: &mut [u8], key: &[u8; MAX_AGENTS]) {
        for i in 1..v.len() {
            let mut j = i;
            while j > 0 && key[usize::from(v[j - 1])] > key[usize::from(v[j])] {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
    }

    #[test]
    fn selection_is_what_the_stable_sort_gives() {
        let mut rng = Stream::agent(5, 5);
        for case in 0..20_000 {
            let len = 1 + rng.index(MAX_AGENTS);
            let mut key = [0u8; MAX_AGENTS];
            for k in &mut key {
                *k = rng.index(8) as u8;
            }
            let mut v: Vec<u8> = (0..MAX_AGENTS as u8).collect();
            rng.shuffle(&mut v);
            v.truncate(len);
            let mut sorted = v.clone();
            stable_sort_by_key(&mut sorted, &key);
            assert_eq!(first_of_least_key(&v, &key), sorted[0], "case {case}");
            for m in 0..=len {
                let want: SeatSet = sorted[..m].iter().map(|&s| usize::from(s)).collect();
                assert_eq!(first_by_key(&v, &key, m), want, "case {case}, m = {m}");
            }
        }
    }
}
