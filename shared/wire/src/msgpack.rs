//! MessagePack writers for the hand-written encoders of the hot path (a result's records and
//! their typed stats): each writes the shortest form, the bytes `rmp::encode` (and so
//! `rmp_serde`) writes for the value, with the one-byte forms (small integers, short strings,
//! short arrays and maps) as a single push instead of a call through `rmp`'s writer trait, and
//! constant keys ([`fixstr!`]) as one copy of bytes built at compile time.
//! The tests below compare every form with `rmp`'s around each boundary.

/// Writing into a `Vec` cannot fail.
fn written<T, E: std::fmt::Debug>(result: Result<T, E>) {
    result.expect("writing to a Vec cannot fail");
}

/// A string (fixstr below 32 bytes).
#[inline]
pub fn str(out: &mut Vec<u8>, s: &str) {
    if s.len() < 32 {
        out.push(0xa0 | s.len() as u8);
        out.extend_from_slice(s.as_bytes());
    } else {
        written(rmp::encode::write_str(out, s));
    }
}

/// The bytes of [`str`] of a string known at compile time and shorter than 32 bytes (a fixstr:
/// its marker byte, then the string), for [`fixstr!`]. `N` must be its length + 1.
pub const fn fixstr_bytes<const N: usize>(s: &str) -> [u8; N] {
    let b = s.as_bytes();
    assert!(b.len() < 32 && N == b.len() + 1, "a fixstr is a marker byte and fewer than 32 bytes");
    let mut out = [0u8; N];
    out[0] = 0xa0 | b.len() as u8;
    let mut i = 0;
    while i < b.len() {
        out[i + 1] = b[i];
        i += 1;
    }
    out
}

/// `fixstr!(KEY)`: the MessagePack of a constant string (a map key), built at compile time, as a
/// `&'static [u8; N]`. Appending it is one copy of a known size, where [`str`] is a push and a
/// copy, each with its own capacity test: the keys are most of a record's bytes.
#[macro_export]
#[doc(hidden)]
macro_rules! __msgpack_fixstr {
    ($s:expr) => {{
        const BYTES: [u8; $s.len() + 1] = $crate::msgpack::fixstr_bytes($s);
        &BYTES
    }};
}
pub use crate::__msgpack_fixstr as fixstr;

/// An unsigned integer in its shortest form (positive fixint below 128).
#[inline]
pub fn uint(out: &mut Vec<u8>, v: u64) {
    if v < 128 {
        out.push(v as u8);
    } else {
        written(rmp::encode::write_uint(out, v));
    }
}

/// A float, always as f64 (what `rmp_serde` writes for an f64).
#[inline]
pub fn f64(out: &mut Vec<u8>, v: f64) {
    out.push(0xcb);
    out.extend_from_slice(&v.to_bits().to_be_bytes());
}

/// An optional float: nil for `None` (what `rmp_serde` writes for an `Option`), else [`f64`].
#[inline]
pub fn option_f64(out: &mut Vec<u8>, v: Option<f64>) {
    match v {
        Some(v) => f64(out, v),
        None => nil(out),
    }
}

/// Nil (what `rmp_serde` writes for `None` and `()`).
#[inline]
pub fn nil(out: &mut Vec<u8>) {
    out.push(0xc0);
}

/// A boolean.
#[inline]
pub fn bool(out: &mut Vec<u8>, v: bool) {
    out.push(if v { 0xc3 } else { 0xc2 });
}

/// An array header (fixarray below 16 elements).
#[inline(always)]
pub fn array_len(out: &mut Vec<u8>, n: usize) {
    if n < 16 {
        out.push(0x90 | n as u8);
    } else {
        written(rmp::encode::write_array_len(out, u32::try_from(n).expect("fewer than 2^32 elements")));
    }
}

/// A map header (fixmap below 16 entries).
#[inline(always)]
pub fn map_len(out: &mut Vec<u8>, n: usize) {
    if n < 16 {
        out.push(0x80 | n as u8);
    } else {
        written(rmp::encode::write_map_len(out, u32::try_from(n).expect("fewer than 2^32 entries")));
    }
}

/// A map from each name to its count, of the counts above zero only, in `names` order: how the
/// games' invalid actions per kind are written (the kinds that occurred).
#[inline(always)]
pub fn nonzero_counts<T: Copy + Into<u64>>(out: &mut Vec<u8>, names: &[&str], counts: &[T]) {
    if counts.iter().all(|&n| n.into() == 0) {
        return map_len(out, 0);
    }
    let occurred = || names.iter().zip(counts).map(|(name, &n)| (name, n.into())).filter(|&(_, n)| n > 0);
    map_len(out, occurred().count());
    for (name, n) in occurred() {
        str(out, name);
        uint(out, n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rmp(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut out = Vec::new();
        f(&mut out);
        out
    }

    #[test]
    fn every_form_is_rmps() {
        for n in [0u64, 1, 127, 128, 255, 256, 65_535, 65_536, u64::from(u32::MAX), u64::from(u32::MAX) + 1, u64::MAX] {
            assert_eq!(rmp(|o| uint(o, n)), rmp(|o| written(rmp::encode::write_uint(o, n))), "uint {n}");
        }
        for len in (0..=40).chain([255, 256, 70_000]) {
            // Distinct bytes, so that a misplaced half of a short copy shows.
            let s: String = (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            assert_eq!(rmp(|o| str(o, &s)), rmp(|o| written(rmp::encode::write_str(o, &s))), "str of {len}");
            let n = u32::try_from(len).unwrap();
            assert_eq!(rmp(|o| array_len(o, len)), rmp(|o| written(rmp::encode::write_array_len(o, n))));
            assert_eq!(rmp(|o| map_len(o, len)), rmp(|o| written(rmp::encode::write_map_len(o, n))));
        }
        for v in [0.0, -0.0, 1.5, -3.25e300, f64::MIN_POSITIVE, f64::INFINITY, f64::NAN] {
            assert_eq!(rmp(|o| f64(o, v)), rmp_serde::to_vec(&v).unwrap(), "f64 {v}");
        }
        for v in [false, true] {
            assert_eq!(rmp(|o| bool(o, v)), rmp_serde::to_vec(&v).unwrap());
        }
        assert_eq!(fixstr!("seed"), &rmp(|o| str(o, "seed"))[..]);
        assert_eq!(fixstr!(""), &rmp(|o| str(o, ""))[..]);
        const LONGEST: &str = "0123456789abcdef0123456789abcde";
        assert_eq!(fixstr!(LONGEST), &rmp(|o| written(rmp::encode::write_str(o, LONGEST)))[..]);
        for v in [None, Some(0.25), Some(f64::NAN)] {
            assert_eq!(rmp(|o| option_f64(o, v)), rmp_serde::to_vec(&v).unwrap(), "{v:?}");
        }
        let names = ["a", "bb", "ccc", "dddd"];
        let map: std::collections::BTreeMap<&str, u32> = [("bb", 300), ("dddd", 1)].into();
        assert_eq!(rmp(|o| nonzero_counts(o, &names, &[0u32, 300, 0, 1])), rmp_serde::to_vec(&map).unwrap());
        assert_eq!(rmp(|o| nonzero_counts(o, &names, &[0u64; 4])), rmp(|o| map_len(o, 0)));
    }
}
