//! Blocks of CSV: cut after a newline outside quotes (the quote parity is tracked from the
//! block's start, itself a record start), decoded into [`ScanRow`]s (each record split into one
//! reused byte record, only the needed columns parsed) or into whole rows ([`Need::whole`]).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use serde_json::Value;

use super::row::csv_row;
use crate::records::scan::block::{Accumulate, BlockError, Decoded, Need, ScanRow};
use crate::records::scan::blocks::{Blocks, Cutter};

/// CSV's [`Blocks`]: the needed columns, or whole rows by the header's names.
pub(super) enum CsvBlocks {
    Needed(CsvColumns),
    Whole(csv::StringRecord),
}

impl CsvBlocks {
    /// The decoder of the CSV file at `path`, for `need`, and the bytes read from `file` past
    /// its header line.
    pub(super) fn new(path: &Path, file: &mut File, need: Need) -> io::Result<(CsvBlocks, Vec<u8>)> {
        let (columns, rest) = csv_header(file)?;
        let blocks = match need.whole {
            true => CsvBlocks::Whole(csv_headers(path)?),
            false => CsvBlocks::Needed(columns),
        };
        Ok((blocks, rest))
    }
}

impl Blocks for CsvBlocks {
    fn cutter(&self) -> Cutter<'_> {
        Box::new(|buf: &[u8]| {
            let mut quoted = false;
            let mut end = None;
            for i in memchr::memchr2_iter(b'"', b'\n', buf) {
                match buf[i] {
                    b'"' => quoted = !quoted,
                    _ if !quoted => end = Some(i + 1),
                    _ => {}
                }
            }
            end
        })
    }

    fn decode<A: Accumulate>(&self, block: &[u8], last: bool, _need: Need, acc: &mut A) -> Result<Decoded, BlockError> {
        match self {
            CsvBlocks::Needed(columns) => needed(block, last, columns, acc),
            CsvBlocks::Whole(headers) => whole(block, last, headers, acc),
        }
    }
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
fn csv_header(file: &mut File) -> io::Result<(CsvColumns, Vec<u8>)> {
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

/// The needed columns of the CSV `block`: whole records, and on the `last` block perhaps a partial one after the
/// last newline, which is skipped.
fn needed<A: Accumulate>(block: &[u8], last: bool, columns: &CsvColumns, acc: &mut A) -> Result<Decoded, BlockError> {
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

/// The CSV `block` of a file whose header is `headers` (whole records; the `last` block may end
/// in a partial one, without its newline, skipped).
fn whole<A: Accumulate>(
    block: &[u8],
    last: bool,
    headers: &csv::StringRecord,
    acc: &mut A,
) -> Result<Decoded, BlockError> {
    let complete = match block.last() {
        Some(b'\n') | None => block.len(),
        Some(_) => {
            debug_assert!(last, "only the last block ends without a newline");
            memchr::memrchr(b'\n', block).map_or(0, |i| i + 1)
        }
    };
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).from_reader(&block[..complete]);
    let mut rows = 0;
    let mut rec = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {
                rows += 1;
                let row = csv_row(headers, &rec).map_err(|m| BlockError::Row(rows, m))?;
                acc.add_whole(row);
            }
            Err(e) => return Err(BlockError::Row(rows + 1, e.to_string())),
        }
    }
    Ok(Decoded { rows, partial: complete < block.len() })
}

/// The header record of the CSV file at `path`.
fn csv_headers(path: &Path) -> io::Result<csv::StringRecord> {
    let mut line = Vec::new();
    BufReader::new(File::open(path)?).read_until(b'\n', &mut line)?;
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).from_reader(&line[..]);
    let mut head = csv::StringRecord::new();
    rdr.read_record(&mut head).map_err(io::Error::other)?;
    Ok(head)
}
