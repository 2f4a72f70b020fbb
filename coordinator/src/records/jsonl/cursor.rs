//! A position in a JSON line known to be UTF-8, and the steps of the hand-written line scan
//! ([`super::line`]): a string to its closing quote (escapes checked, eight bytes at a time), a
//! number by JSON's grammar, a value of any kind skipped by depth.

use std::borrow::Cow;

use serde_json::Value;

/// Deeper nesting of a skipped value is left to serde (which bounds what it builds at 128).
pub(super) const MAX_DEPTH: u32 = 64;

/// The bytes of `word` (eight bytes, little-endian) that end a run of plain string bytes: a
/// quote, a backslash or a control byte. Nonzero if it has one, and then its lowest set bit is
/// in the first such byte (the bit tricks' false positives come only after a true one).
fn specials(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\'))) | below_space
}

/// A position in a line known to be UTF-8.
pub(super) struct Cursor<'a> {
    pub(super) text: &'a str,
    pub(super) b: &'a [u8],
    pub(super) i: usize,
}

impl<'a> Cursor<'a> {
    /// Whitespace: spaces (serde's tab, CR and newline make the line serde's).
    pub(super) fn ws(&mut self) {
        while self.b.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    pub(super) fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    pub(super) fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.i += 1)
    }

    /// A string from its opening quote: its raw contents (between the quotes) and whether it
    /// holds escapes (each checked as serde checks a skipped string's); a control byte in it
    /// is serde's error. Eight bytes at a time up to the first quote, backslash or control
    /// byte ([`specials`]): a `memchr2` call per (short) string cost more, and a byte loop too.
    #[inline]
    pub(super) fn string(&mut self) -> Option<(usize, usize, bool)> {
        self.eat(b'"')?;
        let (b, start) = (self.b, self.i);
        let mut i = start;
        let mut escaped = false;
        loop {
            while let Some(word) = b.get(i..i + 8) {
                let m = specials(u64::from_le_bytes(word.try_into().expect("8 bytes")));
                if m != 0 {
                    i += (m.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            match *b.get(i)? {
                b'"' => {
                    self.i = i + 1;
                    return Some((start, i, escaped));
                }
                b'\\' => {
                    escaped = true;
                    i += match *b.get(i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                        b'u' if b.get(i + 2..i + 6)?.iter().all(u8::is_ascii_hexdigit) => 6,
                        _ => return None,
                    };
                }
                0..=0x1f => return None,
                _ => i += 1,
            }
        }
    }

    /// A key and its colon; escaped keys are left to serde (it would unescape them).
    pub(super) fn key(&mut self) -> Option<&'a [u8]> {
        let (start, end, escaped) = self.string()?;
        if escaped {
            return None;
        }
        self.ws();
        self.eat(b':')?;
        Some(&self.b[start..end])
    }

    /// A needed string: borrowed, or unescaped by serde.
    pub(super) fn string_value(&mut self) -> Option<Cow<'a, str>> {
        let (start, end, escaped) = self.string()?;
        if escaped {
            return serde_json::from_slice::<String>(&self.b[start - 1..=end]).ok().map(Cow::Owned);
        }
        Some(Cow::Borrowed(&self.text[start..end]))
    }

    /// Digits of a non-negative integer (JSON: no leading zero), not followed by a fraction or
    /// exponent (serde refuses those for an integer field) and not overflowing.
    pub(super) fn unsigned(&mut self) -> Option<u64> {
        let start = self.i;
        let mut n: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            self.i += 1;
        }
        let digits = self.i - start;
        let leading_zero = digits > 1 && self.b[start] == b'0';
        if digits == 0 || leading_zero || matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        Some(n)
    }

    /// A number of JSON's grammar, stepped over; its text.
    pub(super) fn number(&mut self) -> Option<&'a [u8]> {
        let (b, start) = (self.b, self.i);
        let digits = |mut i: usize| {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let mut i = start + usize::from(b.get(start) == Some(&b'-'));
        i = match b.get(i)? {
            b'0' => i + 1,
            b'1'..=b'9' => digits(i + 1),
            _ => return None,
        };
        if b.get(i) == Some(&b'.') {
            let end = digits(i + 1);
            if end == i + 1 {
                return None;
            }
            i = end;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1 + usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
            let end = digits(i);
            if end == i {
                return None;
            }
            i = end;
        }
        // "01": serde refuses a digit after a leading zero.
        if b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        self.i = i;
        Some(&b[start..i])
    }

    /// The team reward: the number's text parsed by serde, so the value is serde's bit for bit.
    pub(super) fn float(&mut self) -> Option<f64> {
        serde_json::from_slice::<f64>(self.number()?).ok()
    }

    /// The `stats` object: its `llm` entry parsed by serde (as the row struct parses it, needed
    /// or not, so a line serde refuses is refused here too), the others stepped over.
    pub(super) fn stats(&mut self) -> Option<Option<Value>> {
        self.eat(b'{')?;
        let mut llm = None;
        let mut seen = false;
        self.ws();
        if self.eat(b'}').is_some() {
            return Some(None);
        }
        loop {
            self.ws();
            let key = self.key()?;
            self.ws();
            if key == b"llm" {
                if seen {
                    return None;
                }
                seen = true;
                let start = self.i;
                self.skip(1)?;
                llm = serde_json::from_slice::<Option<Value>>(&self.b[start..self.i]).ok()?;
            } else {
                self.skip(1)?;
            }
            self.ws();
            match self.next()? {
                b',' => {}
                b'}' => return Some(llm),
                _ => return None,
            }
        }
    }

    /// Steps over one value (at nesting `depth`), checking it as serde checks a skipped one.
    pub(super) fn skip(&mut self, depth: u32) -> Option<()> {
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            b'-' | b'0'..=b'9' => {
                self.number()?;
            }
            b't' => self.literal(b"true")?,
            b'f' => self.literal(b"false")?,
            b'n' => self.literal(b"null")?,
            open @ (b'{' | b'[') => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                let close = if open == b'{' { b'}' } else { b']' };
                self.ws();
                if self.eat(close).is_some() {
                    return Some(());
                }
                loop {
                    self.ws();
                    if open == b'{' {
                        self.string()?;
                        self.ws();
                        self.eat(b':')?;
                        self.ws();
                    }
                    self.skip(depth + 1)?;
                    self.ws();
                    match self.next()? {
                        b',' => {}
                        b if b == close => break,
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
        Some(())
    }

    /// `word` (a constant: inlined, the comparison is a few loads), stepped over.
    #[inline(always)]
    pub(super) fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.b[self.i..].starts_with(word).then(|| self.i += word.len())
    }
}
