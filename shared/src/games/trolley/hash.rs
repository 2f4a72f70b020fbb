//! The trajectory hash (§13), and the precomputed [`HashTail`] that makes hashing a template
//! argument cheap.
//!
//! FNV-1a is one serial chain: each byte is an xor and then a multiply that waits for the
//! previous byte (about four cycles a byte), and the 12 bytes that stand for an argument's text
//! (its length and its own hash) were most of an episode's chain. For a fixed byte string `s` of
//! `k` bytes, though, FNV-1a is a multiply-add up to a 256-entry table:
//!
//! ```text
//! fnv_s(h) = h·P^k + T_s[h mod 256]   (mod 2^64)
//! ```
//!
//! Xor with a byte `b` changes only the low 8 bits, so `h ^ b = h + δ` with
//! `δ = ((h mod 256) ^ b) − (h mod 256)`, a function of the low byte alone; and the low byte of
//! `(h + δ)·P` depends only on the low bytes of `h + δ` and `P`. Unrolling the k steps gives
//! `h·P^k + Σ δ_i·P^(k−i)`, where every `δ_i` is a function of `h mod 256`. The scripted
//! templates store their table once per process, so hashing an argument costs a load, a multiply
//! and an add, and the result is the same value bit for bit.

use std::fmt;

use super::state::TrolleyState;
use super::text::ArgText;
use crate::seeding::Fnv64;

/// FNV-1a 64 over `bytes`, continuing from state `h`.
fn feed(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h = (h ^ u64::from(*b)).wrapping_mul(Fnv64::PRIME);
    }
    h
}

/// FNV-1a over one fixed byte string, as `h·P^k + add[h mod 256]`.
pub struct HashTail {
    /// `P^k`.
    pow: u64,
    /// `fnv_s(s) − s·P^k` for every low byte `s`.
    add: [u64; 256],
}

impl HashTail {
    /// The tail of a fixed byte string.
    pub fn new(bytes: &[u8]) -> HashTail {
        let pow = (0..bytes.len()).fold(1u64, |p, _| p.wrapping_mul(Fnv64::PRIME));
        let add = std::array::from_fn(|s| {
            let s = s as u64;
            feed(s, bytes).wrapping_sub(s.wrapping_mul(pow))
        });
        HashTail { pow, add }
    }

    /// The tail of an argument text as §13 hashes it: its UTF-8 byte length (u32) and its own
    /// FNV-1a 64 (u64), little-endian.
    pub fn of_text(text: &str) -> HashTail {
        let mut bytes = [0u8; 12];
        bytes[..4].copy_from_slice(&(text.len() as u32).to_le_bytes());
        bytes[4..].copy_from_slice(&crate::seeding::fnv64(text.as_bytes()).to_le_bytes());
        HashTail::new(&bytes)
    }

    /// FNV-1a of the string, continuing from state `h`.
    #[inline]
    pub fn apply(&self, h: u64) -> u64 {
        h.wrapping_mul(self.pow).wrapping_add(self.add[(h & 0xff) as usize])
    }
}

impl fmt::Debug for HashTail {
    /// The table is 256 numbers that say nothing to a reader.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HashTail").field("pow", &self.pow).finish_non_exhaustive()
    }
}

/// The trajectory hash (§13), fed as the episode runs.
#[derive(Clone, Copy, Debug)]
pub struct TrajectoryHash(u64);

impl Default for TrajectoryHash {
    fn default() -> TrajectoryHash {
        TrajectoryHash::new()
    }
}

impl TrajectoryHash {
    /// A fresh hash.
    pub const fn new() -> TrajectoryHash {
        TrajectoryHash(Fnv64::OFFSET)
    }

    #[inline]
    fn u8(&mut self, v: u8) {
        self.0 = (self.0 ^ u64::from(v)).wrapping_mul(Fnv64::PRIME);
    }

    /// A round's header: number (u32), operator seat (u8), minority count and seats (u8 each).
    pub fn round(&mut self, state: &TrolleyState, index: usize) {
        let r = &state.rounds()[index];
        self.0 = feed(self.0, &r.number.to_le_bytes());
        self.u8(r.operator);
        self.u8(r.minority.len() as u8);
        for s in r.minority.iter() {
            self.u8(s as u8);
        }
    }

    /// One applied action: phase code (1..3, 4 = decision), seat, action code, and for `argue`
    /// the text's byte length (u32) and its FNV-1a 64 (u64), through the text's tail table when
    /// it has one.
    #[inline]
    pub fn action(&mut self, phase: u8, seat: usize, code: u8, text: Option<&ArgText>) {
        self.u8(phase);
        self.u8(seat as u8);
        self.u8(code);
        match text.map(|t| (t, t.hash_tail())) {
            Some((_, Some(tail))) => self.0 = tail.apply(self.0),
            Some((t, None)) => {
                self.0 = feed(self.0, &(t.byte_len() as u32).to_le_bytes());
                self.0 = feed(self.0, &t.fnv().to_le_bytes());
            }
            None => {}
        }
    }

    /// The hash value.
    pub fn finish(&self) -> u64 {
        self.0
    }

    /// The 16-lowercase-hex-digit form, written without the formatting machinery (it runs once
    /// per episode).
    pub fn hex(&self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(16);
        for i in (0..16).rev() {
            out.push(char::from(DIGITS[((self.0 >> (4 * i)) & 0xf) as usize]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_is_fnv_over_its_bytes_from_any_state() {
        let text = "Save the 3 of us: héllo";
        let tail = HashTail::of_text(text);
        let mut bytes = (text.len() as u32).to_le_bytes().to_vec();
        bytes.extend_from_slice(&crate::seeding::fnv64(text.as_bytes()).to_le_bytes());
        // Every low byte, with varied high bits (a splitmix-style walk over the states).
        let mut h = 0x9e37_79b9_7f4a_7c15u64;
        for s in 0..4096u64 {
            h = h.wrapping_add(0x9e37_79b9_7f4a_7c15).rotate_left(17) ^ s;
            assert_eq!(tail.apply(h), feed(h, &bytes), "state {h:#x}");
        }
        assert_eq!(HashTail::new(&[]).apply(h), h);
    }

    #[test]
    fn every_template_hashes_as_its_bytes() {
        use crate::games::trolley::policies::Templates;
        use crate::games::trolley::vocab::Side;
        let templates = Templates::for_sides(3, 1);
        for side in [Side::Majority, Side::Minority] {
            for phase in 0..3 {
                for text in [false, true].iter().flat_map(|&strong| templates.family(side, phase, strong)) {
                    let (mut by_table, mut by_bytes) = (TrajectoryHash::new(), TrajectoryHash::new());
                    by_table.action(1, 2, 0, Some(text));
                    by_bytes.action(1, 2, 0, Some(&ArgText::new(text.as_str())));
                    assert!(text.hash_tail().is_some());
                    assert_eq!(by_table.finish(), by_bytes.finish(), "{}", text.as_str());
                }
            }
        }
    }

    #[test]
    fn hex_matches_the_formatted_form() {
        for v in [0, 1, 0xabc, u64::MAX, 0x0123_4567_89ab_cdef] {
            assert_eq!(TrajectoryHash(v).hex(), format!("{v:016x}"));
        }
    }
}
