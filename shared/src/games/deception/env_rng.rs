//! The environment stream as part of the game state (§9), serialisable.
//!
//! The state must survive a JSON round trip and continue identically, RNG included. The ChaCha
//! generator has no serde form, but every primitive of docs/determinism.md consumes exactly one
//! 64-bit word, so the stream is fully described by (seed, words drawn): it serialises as that
//! pair and is rebuilt by skipping the words. The environment draws only the role shuffle and
//! tie-breaks, so skipping is cheap.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::seeding::{Stream, ENV_STREAM};

/// The environment stream (stream 0 of the episode seed) and how far it has been read.
#[derive(Clone, Debug)]
pub struct EnvRng {
    seed: u64,
    words: u64,
    stream: Stream,
}

impl EnvRng {
    /// The environment stream of `seed`, at its start.
    pub fn new(seed: u64) -> EnvRng {
        EnvRng { seed, words: 0, stream: Stream::env(seed) }
    }

    /// Makes this [`EnvRng::new`]`(seed)` in place (the generator is a few hundred bytes: built
    /// elsewhere, it would be copied in once per episode).
    pub fn reset(&mut self, seed: u64) {
        self.seed = seed;
        self.words = 0;
        self.stream.reset(seed, ENV_STREAM);
    }

    /// 64-bit words drawn so far.
    pub fn words(&self) -> u64 {
        self.words
    }

    /// index(n) of docs/determinism.md (one word).
    pub fn index(&mut self, n: usize) -> usize {
        self.words += 1;
        self.stream.index(n)
    }

    /// shuffle(v) of docs/determinism.md: for i = len−1 down to 1, swap `v[i]` and `v[index(i+1)]`.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.index(i + 1);
            v.swap(i, j);
        }
    }
}

impl PartialEq for EnvRng {
    fn eq(&self, other: &EnvRng) -> bool {
        self.seed == other.seed && self.words == other.words
    }
}

impl Eq for EnvRng {}

#[derive(Serialize, Deserialize)]
struct Position {
    seed: String,
    words: u64,
}

impl Serialize for EnvRng {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The seed as a decimal string, like the replay's seed: JSON readers lose u64 precision.
        Position { seed: self.seed.to_string(), words: self.words }.serialize(s)
    }
}

impl<'de> Deserialize<'de> for EnvRng {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<EnvRng, D::Error> {
        let p = Position::deserialize(d)?;
        let seed: u64 = p.seed.parse().map_err(serde::de::Error::custom)?;
        if p.words > 1 << 20 {
            return Err(serde::de::Error::custom("env_rng.words is implausibly large"));
        }
        let mut rng = EnvRng::new(seed);
        for _ in 0..p.words {
            rng.stream.next_u64();
        }
        rng.words = p.words;
        Ok(rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_continues_identically() {
        let mut a = EnvRng::new(99);
        let mut v = [0, 1, 2, 3, 4];
        a.shuffle(&mut v);
        let json = serde_json::to_string(&a).unwrap();
        let mut b: EnvRng = serde_json::from_str(&json).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.index(1000), b.index(1000));
        let mut s = Stream::env(99);
        for _ in 0..4 {
            s.next_u64();
        }
        assert_eq!(EnvRng::new(99).words(), 0);
        assert_eq!(a.words(), 5);
    }
}
