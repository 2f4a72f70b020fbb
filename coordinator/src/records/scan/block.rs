//! The types every block decoder of the scan shares, in a module of their own below them all
//! (so the decoders, the block cutter and the scan's face import them and not each other): what
//! a command needs ([`Need`]) and accumulates ([`Accumulate`]), one row as handed over
//! ([`ScanRow`]), and how a block decoded ([`Decoded`], [`BlockError`]).

use serde_json::Value;

use crate::records::row::Row;

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

/// How a block decoded: its rows, and whether it ended with a partial record (the last block).
pub struct Decoded {
    pub rows: u64,
    pub partial: bool,
}

/// Why a block did not decode: the 1-based row in the block and the message, or a block that
/// did not end at a record boundary (MessagePack only).
pub enum BlockError {
    Row(u64, String),
    Boundary,
}
