//! Ids, tokens, random seeds and round-id bases of the arena's games.
//!
//! Every value is a keyed SipHash of (a counter, the system time): the key comes from
//! [`RandomState`], which the standard library seeds from the operating system's randomness,
//! so tokens cannot be guessed from ids or from the time a game was created, and no random
//! number crate is needed. None of these values is determinism-relevant: a game's roles depend
//! only on its seed (§9), which a client can choose.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of unpredictable 64-bit values.
#[derive(Debug)]
pub struct IdSource {
    /// Keys drawn once from the operating system.
    keys: RandomState,
    /// Makes two draws in the same nanosecond differ.
    counter: AtomicU64,
}

impl Default for IdSource {
    fn default() -> IdSource {
        IdSource { keys: RandomState::new(), counter: AtomicU64::new(0) }
    }
}

impl IdSource {
    /// The next value.
    pub fn next_u64(&self) -> u64 {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let mut h = self.keys.build_hasher();
        h.write_u64(n);
        h.write_u128(nanos);
        h.finish()
    }

    /// An opaque id: 16 lowercase hex digits.
    pub fn id(&self) -> String {
        format!("{:016x}", self.next_u64())
    }

    /// A bearer token: 32 lowercase hex digits (128 bits).
    pub fn token(&self) -> String {
        format!("{:016x}{:016x}", self.next_u64(), self.next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_distinct_and_well_formed() {
        let ids = IdSource::default();
        let mut seen: Vec<u64> = (0..1000).map(|_| ids.next_u64()).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 1000);
        let (id, token) = (ids.id(), ids.token());
        assert_eq!((id.len(), token.len()), (16, 32));
        assert!(token.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        // Two sources have different keys: the same counter and time give other values.
        assert_ne!(IdSource::default().id(), IdSource::default().id());
    }
}
