//! Blocks of JSON Lines and CSV into [`ScanRow`]s. A JSON line's needed fields are found by a
//! scan of its top-level keys ([`json_line`]), its strings borrowed and the other fields
//! stepped over, not built; a line that scan cannot vouch for is parsed by `serde_json` into the
//! same struct. A CSV record is split into one reused byte record and only the needed columns
//! are parsed.

use std::fs::File;
use std::io::{self, Read};

use serde_json::Value;

use super::block::{Accumulate, BlockError, Decoded, JsonRow, Need, ScanRow};
use super::json_line;

/// One JSON line's needed fields: by [`json_line::row`], or where it cannot vouch for the line
/// by `serde_json`, whose error is then the line's (as [`jsonl`] reads each line).
#[cfg(test)]
pub(super) fn json_row(line: &[u8]) -> Result<JsonRow<'_>, serde_json::Error> {
    match json_line::row(line) {
        Some(r) => Ok(r),
        None => serde_json::from_slice(line),
    }
}

/// The JSON Lines `block`: whole lines, and on the `last` block perhaps a partial one (no
/// final newline), which is skipped.
pub(super) fn jsonl<A: Accumulate>(block: &[u8], last: bool, need: Need, acc: &mut A) -> Result<Decoded, BlockError> {
    each_line(block, last, |rows, line| {
        // Borrowed where it was built, not moved out (a row is some 250 bytes; moving it
        // cost 5% of the read, measured).
        let (fast, slow);
        let r = match json_line::row(line) {
            Some(r) => {
                fast = r;
                &fast
            }
            None => {
                slow = serde_json::from_slice::<JsonRow<'_>>(line).map_err(|e| BlockError::Row(rows, e.to_string()))?;
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

/// Calls `f` with each whole line of the JSON Lines `block` and its 1-based number in the
/// block; a partial line ending the `last` block (no final newline) is skipped.
pub(super) fn each_line(
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

/// Where the needed columns are in a CSV file's records.
#[derive(Clone, Debug)]
pub(super) struct CsvColumns {
    sweep: usize,
    game: usize,
    engine_version: usize,
    scenario: usize,
    policy_set: usize,
    outcome: usize,
    /// `job`, if the file has one.
    job: Option<usize>,
    seed: usize,
    length: usize,
    team_reward: usize,
    /// The `llm` stat's column, if the file has one.
    llm: Option<usize>,
}

/// Reads the header line of a CSV file; returns the needed columns' positions and the bytes
/// read past the header.
pub(super) fn csv_header(file: &mut File) -> io::Result<(CsvColumns, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let end = loop {
        if let Some(i) = memchr::memchr(b'\n', &buf) {
            break i + 1;
        }
        let n = file.read(&mut chunk)?;
        if n == 0 {
            break buf.len();
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).from_reader(&buf[..end]);
    let mut head = csv::StringRecord::new();
    rdr.read_record(&mut head).map_err(io::Error::other)?;
    let find = |name: &str| {
        head.iter()
            .position(|h| h == name)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, format!("the CSV header has no column {name}")))
    };
    let columns = CsvColumns {
        sweep: find("sweep")?,
        game: find("game")?,
        engine_version: find("engine_version")?,
        scenario: find("scenario")?,
        policy_set: find("policy_set")?,
        outcome: find("outcome")?,
        job: head.iter().position(|h| h == "job"),
        seed: find("seed")?,
        length: find("length")?,
        team_reward: find("team_reward")?,
        llm: head.iter().position(|h| h == "llm"),
    };
    Ok((columns, buf.split_off(end)))
}

/// The CSV `block`: whole records, and on the `last` block perhaps a partial one after the
/// last newline, which is skipped.
pub(super) fn csv<A: Accumulate>(
    block: &[u8],
    last: bool,
    columns: &CsvColumns,
    acc: &mut A,
) -> Result<Decoded, BlockError> {
    let complete = memchr::memrchr(b'\n', block).map_or(0, |i| i + 1);
    let partial = complete < block.len();
    debug_assert!(last || !partial, "only the last block ends without a newline");
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).from_reader(&block[..complete]);
    let mut rec = csv::ByteRecord::new();
    let mut rows = 0;
    let mut llm = None;
    loop {
        match rdr.read_byte_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(BlockError::Row(rows + 1, e.to_string())),
        }
        rows += 1;
        let mut row = || -> Result<(), String> {
            let text = |i: usize| -> Result<&str, String> {
                let b = rec.get(i).ok_or_else(|| format!("no column {i}"))?;
                std::str::from_utf8(b).map_err(|e| e.to_string())
            };
            let number =
                |i: usize, name: &str| -> Result<&str, String> { text(i).map_err(|e| format!("column {name}: {e}")) };
            let job = match columns.job {
                Some(c) => Some(number(c, "job")?.parse::<u64>().map_err(|e| format!("column job: {e}"))?),
                None => None,
            };
            let seed = number(columns.seed, "seed")?.parse::<u64>().map_err(|e| format!("column seed: {e}"))?;
            let length = number(columns.length, "length")?.parse::<u32>().map_err(|e| format!("column length: {e}"))?;
            let team_reward = parse_f64(number(columns.team_reward, "team_reward")?)
                .ok_or_else(|| "column team_reward: not a number".to_string())?;
            // As the row reader: a non-empty stat is JSON if it parses as JSON, else text (and
            // text has no tokens).
            llm = match columns.llm.map(text).transpose()? {
                Some(v) if !v.is_empty() => serde_json::from_str::<Value>(v).ok(),
                _ => None,
            };
            acc.add(&ScanRow {
                sweep: text(columns.sweep)?,
                game: text(columns.game)?,
                engine_version: text(columns.engine_version)?,
                scenario: text(columns.scenario)?,
                policy_set: text(columns.policy_set)?,
                outcome: text(columns.outcome)?,
                job,
                seed,
                length,
                team_reward,
                llm: llm.as_ref(),
                key: None,
                outcome_key: None,
            });
            Ok(())
        };
        row().map_err(|m| BlockError::Row(rows, m))?;
    }
    Ok(Decoded { rows, partial })
}

/// A JSON number as the row reader parses it (`serde_json`); the fast path for the plain
/// decimal forms our writer emits, serde_json for anything else.
fn parse_f64(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|_| !s.is_empty()).or_else(|| serde_json::from_str(s).ok())
}
