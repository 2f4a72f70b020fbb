//! The random primitives of docs/determinism.md as the trolley engine's hot loop draws them:
//! the same words from the same [`Stream`], the same results, fewer instructions.
//!
//! [`Stream::index`] and [`Stream::chance`] convert through `f64` with Rust's general casts:
//! `usize → f64` and the saturating `f64 → usize` are a dozen instructions each on x86-64, and
//! an episode draws about 150 of them. Here the count is known to be small (≤ 16 seats, 3
//! templates a family), so it converts through `u32`, and the probability of a chance is
//! turned once into an integer threshold. The tests below compare both with the stream's own
//! primitives, word for word, including the words next to every boundary.

use crate::seeding::Stream;

/// 2^−53, the weight of the lowest bit `unit()` keeps.
const EPSILON: f64 = 1.0 / (1u64 << 53) as f64;

/// `rng.index(n)` for `1 ≤ n ≤ 2^16`: the same word and the same result.
///
/// `unit()·n` rounds once (`unit()` itself is exact: 53 bits times a power of two), and the
/// floor of a value in `[0, n]` fits a `u32`, so the narrower conversions change nothing.
#[inline]
pub fn index(rng: &mut Stream, n: usize) -> usize {
    debug_assert!((1..=1 << 16).contains(&n), "index({n})");
    let x = rng.next_u64();
    let i = ((x >> 11) as i64 as f64 * EPSILON * f64::from(n as u32)) as u32;
    (i as usize).min(n - 1)
}

/// `rng.shuffle(v)`: Fisher–Yates from the back, for i = len−1 down to 1, swap v\[i\] and
/// v\[index(i+1)\] (at most 2^16 elements).
#[inline]
pub fn shuffle<T>(rng: &mut Stream, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = index(rng, i + 1);
        v.swap(i, j);
    }
}

/// `rng.chance(p)` for a fixed `p`, as an integer comparison.
///
/// `unit() < p` is `k·2^−53 < p` with `k` the word's top 53 bits, both sides exact, so it is
/// `k < p·2^53`, and for an integer `k` that is `k < ⌈p·2^53⌉`. The threshold saturates
/// like the comparison: `p ≤ 0` or NaN never passes, `p ≥ 1` always does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chance(u64);

impl Chance {
    /// The chance of probability `p`.
    pub fn new(p: f64) -> Chance {
        Chance((p * (1u64 << 53) as f64).ceil() as u64)
    }

    /// Draws one word: whether it came up.
    #[inline]
    pub fn draw(self, rng: &mut Stream) -> bool {
        rng.next_u64() >> 11 < self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words spread over the whole range, then the words next to every boundary of
    /// `index(n)`: for each j < n, the top-53-bit values around j·2^53/n.
    fn words(n: usize) -> Vec<u64> {
        let mut s = Stream::agent(7, n);
        let mut v: Vec<u64> = (0..20_000).map(|_| s.next_u64()).collect();
        v.extend([0, 1, u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1]);
        for j in 0..=n as u128 {
            let k = (j << 53) / n as u128;
            for d in -3i128..=3 {
                let k = (k as i128 + d).clamp(0, (1 << 53) - 1) as u64;
                v.extend([k << 11, k << 11 | 0x7ff]);
            }
        }
        v
    }

    /// Runs `ours` and `theirs` `count` times, each on its own copy of one stream: the ChaCha
    /// stream cannot be told what to return, so both read the same real words, one after the
    /// other, and must agree on each and end at the same position.
    fn compare<R: PartialEq + std::fmt::Debug>(
        count: usize,
        mut ours: impl FnMut(&mut Stream) -> R,
        mut theirs: impl FnMut(&mut Stream) -> R,
    ) {
        let (mut a, mut b) = (Stream::agent(11, 3), Stream::agent(11, 3));
        for i in 0..count {
            assert_eq!(ours(&mut a), theirs(&mut b), "draw {i}");
        }
        assert_eq!(a.next_u64(), b.next_u64(), "both at the same position");
    }

    /// `index(n)` on a given word, through the stream's formula, without a stream.
    fn reference(word: u64, n: usize) -> usize {
        if n == 2 {
            return (word >> 63) as usize;
        }
        let unit = (word >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        ((unit * n as f64) as usize).min(n - 1)
    }

    /// Ours on a given word.
    fn ours(word: u64, n: usize) -> usize {
        let i = ((word >> 11) as i64 as f64 * EPSILON * f64::from(n as u32)) as u32;
        (i as usize).min(n - 1)
    }

    #[test]
    fn index_matches_the_stream_on_every_boundary_word() {
        for n in 1..=16 {
            for w in words(n) {
                assert_eq!(ours(w, n), reference(w, n), "n = {n}, word {w:#x}");
            }
        }
        for n in [3usize, 17, 100, 1000, 1 << 16] {
            compare(5000, |s| index(s, n), |s| s.index(n));
        }
    }

    #[test]
    fn shuffle_matches_the_stream() {
        for len in 0..=16u8 {
            compare(
                200,
                |s| {
                    let mut v: Vec<u8> = (0..len).collect();
                    shuffle(s, &mut v);
                    v
                },
                |s| {
                    let mut v: Vec<u8> = (0..len).collect();
                    s.shuffle(&mut v);
                    v
                },
            );
        }
    }

    #[test]
    fn chance_matches_the_stream() {
        let mut ps = vec![0.0, 1.0, 0.1, 0.2, 0.5, 0.9, 1e-300, -0.5, 1.5, f64::NAN, f64::INFINITY];
        ps.extend([0.5 + f64::EPSILON, 0.5 - f64::EPSILON / 2.0, 1.0 - f64::EPSILON / 2.0]);
        let mut s = Stream::agent(3, 0);
        ps.extend((0..50).map(|_| s.unit()));
        for p in ps {
            let c = Chance::new(p);
            compare(4000, |s| c.draw(s), |s| s.chance(p));
            // And on the words right at the threshold.
            let t = c.0.min(1 << 53);
            for k in [t.saturating_sub(1), t, t + 1].into_iter().filter(|&k| k < 1 << 53) {
                for w in [k << 11, k << 11 | 0x7ff] {
                    let unit = (w >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                    assert_eq!(w >> 11 < c.0, unit < p, "p = {p}, word {w:#x}");
                }
            }
        }
    }
}
