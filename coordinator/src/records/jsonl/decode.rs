//! Blocks of JSON Lines: cut after a newline, decoded into [`ScanRow`]s (the needed fields,
//! found by the hand-written scan of a line's top-level keys, [`super::line`], its strings
//! borrowed and the other fields stepped over, not built; a line that scan cannot vouch for is
//! parsed by `serde_json` into the same struct), or into whole rows ([`Need::whole`]).

use crate::records::row::Row;
use crate::records::scan::block::{Accumulate, BlockError, Decoded, Need, ScanRow};
use crate::records::scan::blocks::{Blocks, Cutter};

use super::json_row::JsonRow;
use super::line;

/// JSON Lines' [`Blocks`].
pub(super) struct JsonBlocks;

impl Blocks for JsonBlocks {
    fn cutter(&self) -> Cutter<'_> {
        Box::new(|buf: &[u8]| memchr::memrchr(b'\n', buf).map(|i| i + 1))
    }

    fn decode<A: Accumulate>(&self, block: &[u8], last: bool, need: Need, acc: &mut A) -> Result<Decoded, BlockError> {
        match need.whole {
            true => whole(block, last, acc),
            false => needed(block, last, need, acc),
        }
    }
}

/// One JSON line's needed fields: by [`line::row`], or where it cannot vouch for the line by
/// `serde_json`, whose error is then the line's (as [`needed`] reads each line).
#[cfg(test)]
pub(super) fn json_row(text: &[u8]) -> Result<JsonRow<'_>, serde_json::Error> {
    match line::row(text) {
        Some(r) => Ok(r),
        None => serde_json::from_slice(text),
    }
}

/// The needed fields of each line of `block`.
fn needed<A: Accumulate>(block: &[u8], last: bool, need: Need, acc: &mut A) -> Result<Decoded, BlockError> {
    each_line(block, last, |rows, text| {
        // Borrowed where it was built, not moved out (a row is some 250 bytes; moving it
        // cost 5% of the read, measured).
        let (fast, slow);
        let r = match line::row(text) {
            Some(r) => {
                fast = r;
                &fast
            }
            None => {
                slow = serde_json::from_slice::<JsonRow<'_>>(text).map_err(|e| BlockError::Row(rows, e.to_string()))?;
                &slow
            }
        };
        acc.add(&ScanRow {
            sweep: &r.sweep,
            game: &r.game,
            engine_version: &r.engine_version,
            scenario: &r.scenario,
            policy_set: &r.policy_set,
            outcome: &r.outcome,
            job: r.job,
            seed: r.seed,
            length: r.length,
            team_reward: r.team_reward,
            llm: if need.llm { r.stats.llm.as_ref() } else { None },
            key: None,
            outcome_key: None,
        });
        Ok(())
    })
}

/// Each line of `block` as a whole row, decoded as the row-at-a-time reader decodes it.
fn whole<A: Accumulate>(block: &[u8], last: bool, acc: &mut A) -> Result<Decoded, BlockError> {
    each_line(block, last, |rows, text| {
        let row: Row = serde_json::from_slice(text).map_err(|e| BlockError::Row(rows, e.to_string()))?;
        acc.add_whole(row);
        Ok(())
    })
}

/// Calls `f` with each whole line of `block` and its 1-based number in the block; a partial
/// line ending the `last` block (no final newline) is skipped.
fn each_line(
    block: &[u8],
    last: bool,
    mut f: impl FnMut(u64, &[u8]) -> Result<(), BlockError>,
) -> Result<Decoded, BlockError> {
    let mut rows = 0;
    let mut rest = block;
    while !rest.is_empty() {
        let Some(end) = memchr::memchr(b'\n', rest) else {
            debug_assert!(last, "only the last block ends without a newline");
            return Ok(Decoded { rows, partial: true });
        };
        rows += 1;
        f(rows, &rest[..end])?;
        rest = &rest[end + 1..];
    }
    Ok(Decoded { rows, partial: false })
}
