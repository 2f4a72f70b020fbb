//! The needed fields of one JSON Lines record, found by a hand-written scan of its top-level
//! keys instead of serde's visitor machinery (which made JSON Lines the slowest format to
//! read): the needed values are parsed, the others only validated and stepped over (strings to
//! their closing quote, escapes checked; objects and arrays by depth). A line as the writer
//! writes it is matched key by key as constants ([`as_written`]); any other by reading its keys
//! ([`any_order`]).
//!
//! It accepts a line only where `serde_json` would accept it into [`JsonRow`] with the same
//! values, and answers `None` on anything else — a malformed line, an escaped key, a repeated
//! field, a missing one, a tab or carriage return, invalid UTF-8, a number not of JSON's
//! grammar, nesting deeper than [`MAX_DEPTH`] — so the caller parses that line with
//! `serde_json` as before, and errors and their row numbers are serde's. Where a value's
//! meaning is serde's to define, serde parses it: the team reward's number text
//! (`serde_json::from_slice::<f64>`, so the bits are serde's: it is built with
//! `float_roundtrip`), a needed string holding escapes, and the `llm` stat.

use std::borrow::Cow;

use serde_json::Value;

use super::json_row::{JsonRow, JsonStats};

/// Deeper nesting of a skipped value is left to serde (which bounds what it builds at 128).
const MAX_DEPTH: u32 = 64;

/// The needed fields of `line` (without its newline), or `None` where `serde_json` must decide.
pub(super) fn row(line: &[u8]) -> Option<JsonRow<'_>> {
    // Valid UTF-8 makes every string between quotes valid too. A control byte is refused
    // wherever it is: in a string by [`Cursor::string`], elsewhere as an unexpected byte
    // (whitespace is read as spaces only; a tab or CR is serde's to read).
    let text = std::str::from_utf8(line).ok()?;
    let mut c = Cursor { text, b: line, i: 0 };
    if let Some(r) = as_written(&mut c) {
        return Some(r);
    }
    c.i = 0;
    any_order(&mut c)
}

/// A line as the writer writes it: compact, its keys in `records::RowRef`'s order. Matching
/// each key as a constant is much cheaper than reading it and looking it up; any other line
/// is read by [`any_order`].
fn as_written<'a>(c: &mut Cursor<'a>) -> Option<JsonRow<'a>> {
    c.literal(b"{\"sweep\":")?;
    let sweep = c.string_value()?;
    c.literal(b",\"job\":")?;
    let job = Some(c.unsigned()?);
    c.literal(b",\"game\":")?;
    let game = c.string_value()?;
    c.literal(b",\"engine_version\":")?;
    let engine_version = c.string_value()?;
    c.literal(b",\"scenario\":")?;
    let scenario = c.string_value()?;
    c.literal(b",\"policy_set\":")?;
    let policy_set = c.string_value()?;
    c.literal(b",\"seed\":")?;
    let seed = c.unsigned()?;
    c.literal(b",\"outcome\":")?;
    let outcome = c.string_value()?;
    c.literal(b",\"length\":")?;
    let length = u32::try_from(c.unsigned()?).ok()?;
    c.literal(b",\"truncated\":")?;
    c.skip(0)?;
    c.literal(b",\"team_reward\":")?;
    let team_reward = c.float()?;
    c.literal(b",\"agent_rewards\":")?;
    c.skip(0)?;
    c.literal(b",\"trajectory_hash\":")?;
    c.skip(0)?;
    c.literal(b",\"stats\":")?;
    let llm = c.stats()?;
    c.literal(b"}")?;
    (c.i == c.b.len()).then_some(JsonRow {
        sweep,
        game,
        engine_version,
        scenario,
        policy_set,
        outcome,
        job,
        seed,
        length,
        team_reward,
        stats: JsonStats { llm },
    })
}

/// A line with its keys in any order, spaces anywhere, keys the writer does not write.
fn any_order<'a>(c: &mut Cursor<'a>) -> Option<JsonRow<'a>> {
    let mut strings: [Option<Cow<'_, str>>; 6] = Default::default();
    let (mut seed, mut length, mut team_reward, mut llm, mut job) = (None, None, None, None, None);
    let mut seen = 0u16;
    c.ws();
    c.eat(b'{')?;
    c.ws();
    if c.eat(b'}').is_none() {
        loop {
            c.ws();
            let index = field(c.key()?);
            if let Some(f) = index {
                if seen & (1 << f) != 0 {
                    return None; // serde: duplicate field
                }
                seen |= 1 << f;
            }
            c.ws();
            match index {
                Some(f @ 0..=5) => strings[f] = Some(c.string_value()?),
                Some(6) => seed = Some(c.unsigned()?),
                Some(7) => length = Some(u32::try_from(c.unsigned()?).ok()?),
                Some(8) => team_reward = Some(c.float()?),
                Some(9) => llm = c.stats()?,
                Some(10) => job = Some(c.unsigned()?),
                _ => c.skip(0)?,
            }
            c.ws();
            match c.next()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
    }
    c.ws();
    if c.i != c.b.len() {
        return None;
    }
    let [sweep, game, engine_version, scenario, policy_set, outcome] = strings;
    Some(JsonRow {
        sweep: sweep?,
        game: game?,
        engine_version: engine_version?,
        scenario: scenario?,
        policy_set: policy_set?,
        outcome: outcome?,
        job,
        seed: seed?,
        length: length?,
        team_reward: team_reward?,
        stats: JsonStats { llm },
    })
}

/// The index of a key read (in [`any_order`]'s match), `None` for one skipped; by length first.
fn field(key: &[u8]) -> Option<usize> {
    let (name, index) = match key.len() {
        3 => ("job", 10),
        4 if key[0] == b'g' => ("game", 1),
        4 => ("seed", 6),
        5 if key[1] == b'w' => ("sweep", 0),
        5 => ("stats", 9),
        6 => ("length", 7),
        7 => ("outcome", 5),
        8 => ("scenario", 3),
        10 => ("policy_set", 4),
        11 => ("team_reward", 8),
        14 => ("engine_version", 2),
        _ => return None,
    };
    (key == name.as_bytes()).then_some(index)
}

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
struct Cursor<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    /// Whitespace: spaces (serde's tab, CR and newline make the line serde's).
    fn ws(&mut self) {
        while self.b.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.i += 1)
    }

    /// A string from its opening quote: its raw contents (between the quotes) and whether it
    /// holds escapes (each checked as serde checks a skipped string's); a control byte in it
    /// is serde's error. Eight bytes at a time up to the first quote, backslash or control
    /// byte ([`specials`]): a `memchr2` call per (short) string cost more, and a byte loop too.
    #[inline]
    fn string(&mut self) -> Option<(usize, usize, bool)> {
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
    fn key(&mut self) -> Option<&'a [u8]> {
        let (start, end, escaped) = self.string()?;
        if escaped {
            return None;
        }
        self.ws();
        self.eat(b':')?;
        Some(&self.b[start..end])
    }

    /// A needed string: borrowed, or unescaped by serde.
    fn string_value(&mut self) -> Option<Cow<'a, str>> {
        let (start, end, escaped) = self.string()?;
        if escaped {
            return serde_json::from_slice::<String>(&self.b[start - 1..=end]).ok().map(Cow::Owned);
        }
        Some(Cow::Borrowed(&self.text[start..end]))
    }

    /// Digits of a non-negative integer (JSON: no leading zero), not followed by a fraction or
    /// exponent (serde refuses those for an integer field) and not overflowing.
    fn unsigned(&mut self) -> Option<u64> {
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
    fn number(&mut self) -> Option<&'a [u8]> {
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
    fn float(&mut self) -> Option<f64> {
        serde_json::from_slice::<f64>(self.number()?).ok()
    }

    /// The `stats` object: its `llm` entry parsed by serde (as the row struct parses it, needed
    /// or not, so a line serde refuses is refused here too), the others stepped over.
    fn stats(&mut self) -> Option<Option<Value>> {
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
    fn skip(&mut self, depth: u32) -> Option<()> {
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
    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.b[self.i..].starts_with(word).then(|| self.i += word.len())
    }
}
