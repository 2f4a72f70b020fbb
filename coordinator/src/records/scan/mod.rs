//! The parallel results reader of the analysis commands: a command names the columns it needs
//! ([`Need`]) and an [`Accumulate`] (a mergeable per-cell accumulator); [`scan`] decodes only
//! those columns of every file of an [`Input`], on every core, and merges the partial
//! accumulators in file order, so the result is the row-at-a-time one up to the rounding of the
//! merges (counts exactly, moments by Chan et al.'s pairwise update).
//!
//! - Parquet ([`parquet`]): row groups in parallel; of each, only the projected column chunks;
//!   dictionary-encoded strings are read as dictionary indices and compared as such, so a row
//!   costs no allocation and no string comparison.
//! - MessagePack, JSON Lines, CSV ([`chunks`]): the file is read in blocks cut at record
//!   boundaries and the blocks are decoded in parallel ([`msgpack`], [`lines`], [`json_line`]),
//!   skipping the fields not needed without allocating them. Memory stays flat: a few blocks
//!   are in flight.
//!
//! `summary`, `report`, `rank`, `compare` and `summary --out` (whole rows, [`Need::whole`]) read
//! records through it; [`scan_each`] hands a consumer each block in file order, so `report`,
//! `rank` and `compare` drop a block's episodes once taken. The row-at-a-time reader
//! ([`super::reader`]) stays for `watch`'s resume and as the reference of the equality tests.

mod chunks;
mod episodes;
mod json_line;
mod lines;
mod msgpack;
mod parquet;
mod whole;

#[cfg(test)]
mod json_line_tests;
#[cfg(test)]
pub(crate) mod tests;

use std::path::PathBuf;

use serde_json::Value;

pub use chunks::BLOCK;
pub use episodes::{Episode, Episodes, Group};

use super::error::ImportError;
use super::format::Format;
use super::input::Input;
use super::row::Row;

/// One row as the scanner hands it over: the needed fields, borrowed from the decoded block;
/// the others keep their defaults (empty, zero).
#[derive(Clone, Debug, Default)]
pub struct ScanRow<'a> {
    /// Sweep id, where needed ([`Need::sweep`]; the line formats always read it).
    pub sweep: &'a str,
    /// Game id.
    pub game: &'a str,
    /// Engine version.
    pub engine_version: &'a str,
    /// Scenario.
    pub scenario: &'a str,
    /// Policy set.
    pub policy_set: &'a str,
    /// Outcome label.
    pub outcome: &'a str,
    /// The job index, where the file has one (every file the coordinator writes does): jobs are
    /// numbered in the sweep's cell order, so it places the row's cell ([`crate::cell_order`]).
    pub job: Option<u64>,
    /// Episode seed.
    pub seed: u64,
    /// Episode length.
    pub length: u32,
    /// Team reward.
    pub team_reward: f64,
    /// The `llm` stat, where present and needed.
    pub llm: Option<&'a Value>,
    /// Where the reader knows it cheaply (Parquet dictionary indices): a number equal for two
    /// consecutive rows only if their (game, engine version, scenario, policy set) are equal;
    /// `None` when the accumulator must compare the strings.
    pub key: Option<u64>,
    /// Likewise for the outcome (its dictionary index): equal for two rows of one accumulator
    /// only if their outcomes are equal.
    pub outcome_key: Option<u32>,
}

/// The columns a command needs: the scalar ones of [`ScanRow`] always, the sweep id and the
/// `llm` stat on request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Need {
    /// Read the sweep id (`sweep`): a Parquet file then decodes one more column.
    pub sweep: bool,
    /// Read the `llm` stat (`stats.llm`).
    pub llm: bool,
    /// Decode whole rows, every field, and hand them over by [`Accumulate::add_whole`] (what
    /// `summary --out`'s cell aggregates need); the other fields of `Need` are then moot.
    pub whole: bool,
}

/// A mergeable accumulator: one per block of rows, merged in file order.
pub trait Accumulate: Default + Send {
    /// Counts one row.
    fn add(&mut self, row: &ScanRow<'_>);
    /// Adds everything `later` counted (rows that come after this accumulator's in the input).
    fn merge(&mut self, later: Self);

    /// Counts one whole row (a scan with [`Need::whole`]); by default as its [`ScanRow`].
    fn add_whole(&mut self, row: Row) {
        self.add(&ScanRow::of(&row));
    }
}

impl<'a> ScanRow<'a> {
    /// The scalar fields of a whole row (and its `llm` stat).
    pub fn of(row: &'a Row) -> ScanRow<'a> {
        ScanRow {
            sweep: &row.sweep,
            game: &row.game,
            engine_version: &row.engine_version,
            scenario: &row.scenario,
            policy_set: &row.policy_set,
            outcome: &row.outcome,
            job: Some(row.job),
            seed: row.seed,
            length: row.length,
            team_reward: row.team_reward,
            llm: row.stats.get("llm"),
            key: None,
            outcome_key: None,
        }
    }
}

/// Threads to decode on: every core.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Accumulates every row of every file of `input` (records files), file after file, decoding on
/// `threads` threads. A partial trailing record of a file is skipped, and the files that had
/// one are returned, as [`Input::for_each_row`] does.
pub fn scan<A: Accumulate>(input: &Input, need: Need, threads: usize) -> Result<(A, Vec<PathBuf>), ImportError> {
    scan_blocks(input, need, threads, chunks::BLOCK)
}

/// [`scan`] with the line formats cut into blocks of `block` bytes (small in tests of other
/// modules' accumulators, to merge many blocks).
pub(crate) fn scan_blocks<A: Accumulate>(
    input: &Input,
    need: Need,
    threads: usize,
    block: usize,
) -> Result<(A, Vec<PathBuf>), ImportError> {
    let mut total = A::default();
    let cut = scan_each(input, need, threads, block, |acc: A| total.merge(acc))?;
    Ok((total, cut))
}

/// Hands the accumulator of every block of rows of every file of `input` (a Parquet row group,
/// a block of a line format) to `each`, in file order, as soon as the blocks before it have
/// been handed over. A consumer that folds each block into state of its own and drops it
/// (`report`, `rank`, `compare`: the episodes of a block, replayed in file order) keeps memory
/// flat: only a few blocks are decoded ahead. Returns the files that ended in a partial
/// record; `block` is the line formats' block size, as in [`scan_blocks`].
pub fn scan_each<A: Accumulate>(
    input: &Input,
    need: Need,
    threads: usize,
    block: usize,
    mut each: impl FnMut(A),
) -> Result<Vec<PathBuf>, ImportError> {
    let mut cut = Vec::new();
    for file in input.files() {
        let partial = match Format::of(file)? {
            Format::Parquet => {
                parquet::scan(file, need, threads.max(1), &mut each)?;
                false
            }
            format => chunks::scan(file, format, need, threads.max(1), block, &mut each)?,
        };
        if partial {
            cut.push(file.clone());
        }
    }
    Ok(cut)
}

/// One file, as [`scan_blocks`] reads it; whether it ended in a partial record.
#[cfg(test)]
fn scan_file<A: Accumulate>(
    path: &std::path::Path,
    need: Need,
    threads: usize,
    block: usize,
) -> Result<(A, bool), ImportError> {
    let (acc, cut) = scan_blocks(&Input::file(path)?, need, threads, block)?;
    Ok((acc, !cut.is_empty()))
}
