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
//! grammar, nesting deeper than [`super::cursor::MAX_DEPTH`] — so the caller parses that line with
//! `serde_json` as before, and errors and their row numbers are serde's. Where a value's
//! meaning is serde's to define, serde parses it: the team reward's number text
//! (`serde_json::from_slice::<f64>`, so the bits are serde's: it is built with
//! `float_roundtrip`), a needed string holding escapes, and the `llm` stat.

use std::borrow::Cow;

use super::cursor::Cursor;
use super::json_row::{JsonRow, JsonStats};

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
