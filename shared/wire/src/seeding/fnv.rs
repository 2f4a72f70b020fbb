//! The trajectory hash of every game: FNV-1a 64 over the bytes of a game's trajectory, integers
//! fed little-endian, stored in each record as 16 lowercase hex digits (docs/determinism.md).

/// FNV-1a 64, the trajectory hash of every game. Integers are fed little-endian.
#[derive(Clone, Copy, Debug)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64::new()
    }
}

impl Fnv64 {
    /// FNV offset basis.
    pub const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    /// FNV prime.
    pub const PRIME: u64 = 0x0000_0100_0000_01b3;

    /// A fresh hash.
    pub const fn new() -> Fnv64 {
        Fnv64(Self::OFFSET)
    }

    /// Feeds raw bytes.
    #[inline]
    pub fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    /// Feeds one byte.
    #[inline]
    pub fn u8(&mut self, v: u8) {
        self.0 ^= u64::from(v);
        self.0 = self.0.wrapping_mul(Self::PRIME);
    }

    /// Feeds a u16 little-endian.
    #[inline]
    pub fn u16(&mut self, v: u16) {
        let [lo, hi] = v.to_le_bytes();
        if hi == 0 {
            // The zero high byte only multiplies by the prime: (h ^ lo)·p·p as one multiplication
            // by p², which halves the chain of dependent multiplications for small values.
            self.0 = (self.0 ^ u64::from(lo)).wrapping_mul(PRIME_POWERS[2]);
        } else {
            self.u8(lo);
            self.u8(hi);
        }
    }

    /// Feeds `k` zero bytes (at most 16) in one multiplication: h ^ 0 = h, so each zero byte
    /// only multiplies by the prime, and k of them multiply by its k-th power.
    #[inline]
    pub fn zeros(&mut self, k: usize) {
        self.0 = self.0.wrapping_mul(PRIME_POWERS[k]);
    }

    /// Feeds a u32 little-endian. Its high zero bytes (all three of a value below 256) are fed
    /// as one multiplication ([`Fnv64::zeros`]).
    #[inline]
    pub fn u32(&mut self, v: u32) {
        let significant = 4 - (v.leading_zeros() / 8) as usize;
        let bytes = v.to_le_bytes();
        let Some(last) = significant.checked_sub(1) else {
            return self.zeros(4);
        };
        for &b in &bytes[..last] {
            self.u8(b);
        }
        // The last significant byte and the zero bytes above it in one multiplication.
        self.0 = (self.0 ^ u64::from(bytes[last])).wrapping_mul(PRIME_POWERS[5 - significant]);
    }

    /// Feeds a u64 little-endian.
    #[inline]
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }

    /// Feeds an i64 little-endian.
    #[inline]
    pub fn i64(&mut self, v: i64) {
        self.bytes(&v.to_le_bytes());
    }

    /// The hash value.
    pub fn finish(&self) -> u64 {
        self.0
    }

    /// The hash as 16 lowercase hex digits, the form stored in episode records.
    pub fn hex(&self) -> String {
        // By hand: `format!` goes through the formatting machinery, several times the work,
        // once per episode of every game.
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let digits: [u8; 16] = std::array::from_fn(|i| DIGITS[(self.0 >> (60 - 4 * i) & 0xf) as usize]);
        std::str::from_utf8(&digits).expect("hex digits are ASCII").to_owned()
    }
}

/// PRIME_POWERS[k] = Fnv64::PRIME^k mod 2^64, for k = 0..=16.
const PRIME_POWERS: [u64; 17] = {
    let mut t = [1u64; 17];
    let mut k = 1;
    while k < t.len() {
        t[k] = t[k - 1].wrapping_mul(Fnv64::PRIME);
        k += 1;
    }
    t
};

/// FNV-1a 64 of a byte string, in one call.
pub fn fnv64(bytes: &[u8]) -> u64 {
    let mut h = Fnv64::new();
    h.bytes(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_runs_and_integers_hash_as_their_bytes() {
        for k in 0..=16 {
            let (mut a, mut b) = (Fnv64::new(), Fnv64::new());
            a.u8(7);
            b.u8(7);
            a.zeros(k);
            b.bytes(&vec![0; k]);
            assert_eq!(a.finish(), b.finish(), "{k} zeros");
        }
        for v in [0u16, 1, 99, 255, 256, 0x1ff, 0xff00, u16::MAX] {
            let (mut a, mut b) = (Fnv64::new(), Fnv64::new());
            a.u8(3);
            b.u8(3);
            a.u16(v);
            b.bytes(&v.to_le_bytes());
            assert_eq!(a.finish(), b.finish(), "u16 {v:#x}");
        }
        for v in [0u32, 1, 99, 255, 256, 0xffff, 0x1_0000, 0x00ff_ff00, 0x0100_0000, u32::MAX] {
            let (mut a, mut b) = (Fnv64::new(), Fnv64::new());
            a.u32(v);
            b.bytes(&v.to_le_bytes());
            assert_eq!(a.finish(), b.finish(), "u32 {v:#x}");
        }
    }

    #[test]
    fn hex_is_sixteen_lowercase_digits() {
        for v in [0, 1, 0xf, 0xdead_beef, u64::MAX, 0x0123_4567_89ab_cdef, fnv64(b"x")] {
            assert_eq!(Fnv64(v).hex(), format!("{v:016x}"));
        }
    }

    #[test]
    fn fnv_matches_reference_vectors() {
        assert_eq!(fnv64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv64(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
