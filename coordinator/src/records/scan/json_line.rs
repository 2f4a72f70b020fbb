//! The needed fields of one JSON Lines record, found by a hand-written scan of its top-level
//! keys instead of serde's visitor machinery (which made JSON Lines the slowest format to
//! read): the needed values are parsed, the others only validated and stepped over (strings by
//! `memchr2` on the quote and the backslash, objects and arrays by depth).
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

use super::lines::{JsonRow, JsonStats};

/// Deeper nesting of a skipped value is left to serde (which bounds what it builds at 128).
const MAX_DEPTH: u32 = 64;

/// The needed fields of `line` (without its newline), or `None` where `serde_json` must decide.
pub(super) fn row(line: &[u8]) -> Option<JsonRow<'_>> {
    // A line without control bytes has no tab, CR or newline in its whitespace and none
    // (unescaped) in its strings; its valid UTF-8 makes every string between quotes valid too.
    if line.iter().fold(false, |ctl, &b| ctl | (b < 0x20)) {
        return None;
    }
    let text = std::str::from_utf8(line).ok()?;
    let mut c = Cursor { text, b: line, i: 0 };
    let mut strings: [Option<Cow<'_, str>>; 6] = Default::default();
    let (mut seed, mut length, mut team_reward, mut llm) = (None, None, None, None);
    let mut seen = 0u16;
    c.ws();
    c.eat(b'{')?;
    c.ws();
    if c.eat(b'}').is_none() {
        loop {
            c.ws();
            let key = c.key()?;
            let index = field(key);
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
    if c.i != line.len() {
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
        seed: seed?,
        length: length?,
        team_reward: team_reward?,
        stats: JsonStats { llm },
    })
}

/// The index of a top-level key read (in [`row`]'s match), or `None` for a key skipped.
fn field(key: &[u8]) -> Option<usize> {
    Some(match key {
        b"sweep" => 0,
        b"game" => 1,
        b"engine_version" => 2,
        b"scenario" => 3,
        b"policy_set" => 4,
        b"outcome" => 5,
        b"seed" => 6,
        b"length" => 7,
        b"team_reward" => 8,
        b"stats" => 9,
        _ => return None,
    })
}

/// A position in a line known to be UTF-8 without control bytes.
struct Cursor<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    /// Whitespace: in a line without control bytes, only spaces.
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
    /// holds escapes (each checked as serde checks a skipped string's).
    fn string(&mut self) -> Option<(usize, usize, bool)> {
        self.eat(b'"')?;
        let start = self.i;
        let mut escaped = false;
        loop {
            self.i += memchr::memchr2(b'"', b'\\', &self.b[self.i..])?;
            if self.b[self.i] == b'"' {
                self.i += 1;
                return Some((start, self.i - 1, escaped));
            }
            escaped = true;
            match *self.b.get(self.i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                b'u' if self.b.get(self.i + 2..self.i + 6)?.iter().all(u8::is_ascii_hexdigit) => self.i += 6,
                _ => return None,
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
        let start = self.i;
        let _ = self.eat(b'-');
        match self.next()? {
            b'0' => {}
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.eat(b'.').is_some() {
            self.at_least_one_digit()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            self.at_least_one_digit()?;
        }
        // "01": serde refuses a digit after a leading zero.
        if self.peek().is_some_and(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(&self.b[start..self.i])
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
    }

    fn at_least_one_digit(&mut self) -> Option<()> {
        let start = self.i;
        self.digits();
        (self.i > start).then_some(())
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

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.b[self.i..].starts_with(word).then(|| self.i += word.len())
    }
}
