//! What the paired comparisons keep per seed, compact because a records file may hold millions
//! of seeds: a policy set's values by seed ([`SeedValues`], about 8 bytes a seed) and a set of
//! seeds ([`SeedSet`], one bit a seed), both in words of 64 consecutive seeds since a sweep's
//! seeds come in ranges.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// What pairing keeps of an episode: team reward, and whether the outcome is the game's win.
pub(super) type Value = (f64, bool);

/// Seeds hashed by one multiplication (Fibonacci hashing): they are integers that mostly come
/// in runs, not chosen by an adversary, and SipHash cost more than the rest of the pairing.
#[derive(Default)]
struct SeedHasher(u64);

impl Hasher for SeedHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A map keyed by seeds (or seed words).
type SeedMap<V> = HashMap<u64, V, BuildHasherDefault<SeedHasher>>;

/// 64 consecutive seeds' values: which are present, which were wins, and the rewards.
struct Chunk {
    present: u64,
    wins: u64,
    rewards: [f64; 64],
}

/// A policy set's values by seed in one (game, scenario), the first episode of each seed: in
/// chunks of 64 consecutive seeds, about 8 bytes a seed when the seeds come in ranges, as a
/// sweep's do.
#[derive(Default)]
pub(super) struct SeedValues {
    chunks: SeedMap<Chunk>,
}

impl SeedValues {
    /// Keeps `value` for `seed` unless the seed has one.
    pub(super) fn insert_first(&mut self, seed: u64, (reward, win): Value) {
        let chunk = self.chunks.entry(seed >> 6).or_insert_with(|| Chunk { present: 0, wins: 0, rewards: [0.0; 64] });
        let bit = 1u64 << (seed & 63);
        if chunk.present & bit == 0 {
            chunk.present |= bit;
            chunk.wins |= if win { bit } else { 0 };
            chunk.rewards[(seed & 63) as usize] = reward;
        }
    }

    pub(super) fn get(&self, seed: u64) -> Option<Value> {
        let chunk = self.chunks.get(&(seed >> 6))?;
        let bit = 1u64 << (seed & 63);
        (chunk.present & bit != 0).then(|| (chunk.rewards[(seed & 63) as usize], chunk.wins & bit != 0))
    }
}

impl std::fmt::Debug for SeedValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let seeds: u32 = self.chunks.values().map(|c| c.present.count_ones()).sum();
        write!(f, "SeedValues({seeds} seeds)")
    }
}

/// One bit per seed, in words of 64 consecutive seeds: a cell's seeds come in runs, so the word
/// in use is kept aside and the map touched once per 64 seeds.
#[derive(Debug, Default)]
pub(super) struct SeedSet {
    words: SeedMap<u64>,
    /// The word in use (its index and bits), not in `words` while it is in use.
    current: Option<(u64, u64)>,
    pub(super) len: u64,
}

impl SeedSet {
    /// Adds `seed`; false if it was there.
    pub(super) fn insert(&mut self, seed: u64) -> bool {
        let (index, bit) = (seed >> 6, 1u64 << (seed & 63));
        let bits = match &mut self.current {
            Some((i, bits)) if *i == index => bits,
            current => {
                if let Some((i, bits)) = current.take() {
                    self.words.insert(i, bits);
                }
                let bits = self.words.remove(&index).unwrap_or(0);
                &mut current.insert((index, bits)).1
            }
        };
        if *bits & bit != 0 {
            return false;
        }
        *bits |= bit;
        self.len += 1;
        true
    }
}
