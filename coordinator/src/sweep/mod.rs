//! Sweep files: parsing with errors that name the line and the field ([`parse`]), validation of
//! every cell against the engines ([`cells`], with seats built but never played: [`probe`]), the
//! sweep id, and the expansion into jobs ([`expand`]). Every section of the file is read here,
//! its raw type beside its checks: `[[rankings]]` ([`rankings`], [`teams`]), `[stop]`
//! ([`stop_table`]), `[[llm_prices]]` ([`prices`]); the modules that act on a sweep (`stop`,
//! `rank`, `llm_spend`) sit above it.
//!
//! A sweep file (TOML) is a list of cell groups; each group is a cartesian product of scenarios,
//! policy sets and seed chunks (the contract is docs/sweeps.md). Cells are (game, scenario,
//! policy set) in file order; optional `[[rankings]]` sections (mixed teams from a roster,
//! [`rankings`]) expand into further cells after every `[[cells]]` group. The cells
//! that play together form [`Group`]s: in a summary cell group every policy set of one scenario
//! plays the same seeds in the same job, so the job can count their paired differences; in
//! records mode each cell is a group of its own, as it always was. Expansion order (groups in
//! cell order, then seed chunks) and job indexes are a pure function of the file.

use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::Serialize;
use sha2::{Digest, Sha256};
use simfleet::protocol::{Collect, Job, PolicySet, SeedRange, PROTOCOL_VERSION};
use simfleet::GameKind;

mod cells;
mod class;
mod expand;
pub mod modules;
mod parse;
pub mod prices;
mod probe;
pub mod rankings;
pub mod teams;
pub(crate) use probe::validation_env;
mod sizing;
pub mod stop_table;

pub use class::{share_value, MAX_SHARE};
pub use sizing::{default_episodes_per_job, summary_scale, LLM_SEAT_EPISODES_PER_JOB};

/// A sweep file that does not parse or validate. Displays as `FILE:LINE: field: message`.
#[derive(Debug, thiserror::Error)]
pub struct SweepError {
    /// The file (or `<input>`).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// The field at fault, e.g. `cells[1].policy_sets.mixed[2]`.
    pub field: Option<String>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A parsed, validated sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sweep {
    /// `<slug(name)>-<12 hex of sha256(canonical sweep)>`.
    #[serde(skip)]
    pub id: String,
    /// The `name` field.
    pub name: String,
    /// Seeds every cell plays.
    pub seeds: SeedRange,
    /// The cells, one per (game, scenario, policy set), in expansion order.
    pub cells: Vec<Cell>,
    /// The `[stop]` table: each cell plays until its questions are answered, `seeds.count` at
    /// most (`crate::stop`). In the canonical form only when present, so the ids of sweeps
    /// without one do not change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<stop_table::StopConfig>,
    /// The cells that play together, in cell order (each cell in exactly one).
    #[serde(skip)]
    pub groups: Vec<Group>,
    /// The `--collect` given to [`Sweep::with_collect`], if any (the KV entry keeps it).
    #[serde(skip)]
    pub collect_override: Option<Collect>,
    /// Its class on a shared fleet (`priority`, [`Sweep::with_class`]); not part of the id.
    #[serde(skip)]
    pub priority: simfleet::names::Priority,
    /// Its weight within the class (`share`); not part of the id.
    #[serde(skip)]
    pub share: u32,
    /// Whether `submit --priority/--share` set the class: a resubmission then changes it.
    #[serde(skip)]
    pub class_given: bool,
    /// `llm_max_fallback_share`: above this share of a cell's `llm` decisions falling back, the
    /// sweep exits 1 ([`DEFAULT_MAX_FALLBACK_SHARE`] unless the file says); not part of the id.
    #[serde(skip)]
    pub llm_max_fallback_share: f64,
    /// `llm_max_calls`: no job with `llm` seats starts once the sweep's jobs made this many model
    /// calls; not part of the id.
    #[serde(skip)]
    pub llm_max_calls: Option<u64>,
    /// `llm_max_dollars`: no job with `llm` seats starts once the sweep's calls cost this much
    /// by `llm_prices`; not part of the id.
    #[serde(skip)]
    pub llm_max_dollars: Option<f64>,
    /// `[[llm_prices]]`: dollars per 1000 tokens of each model, for the estimate before playing
    /// and `llm_max_dollars`; not part of the id.
    #[serde(skip)]
    pub llm_prices: Vec<prices::LlmPrice>,
    /// The `wasm:` modules its seats name, read from their files ([`modules`]); their hashes
    /// are in the seats, so in the id.
    #[serde(skip)]
    pub modules: Vec<modules::SweepModule>,
    /// Each `wasm:` seat as written and as jobs carry it ([`modules::portable_definition`]).
    #[serde(skip)]
    pub module_rewrites: Vec<(String, String)>,
    /// Whether a cell has a `wasm:` seat (its rows are stamped, [`modules::stamp`]).
    #[serde(skip)]
    pub has_wasm: bool,
}

/// The share of a cell's `llm` decisions that may fall back to the scripted policy before the
/// sweep counts as failed: 5%.
pub const DEFAULT_MAX_FALLBACK_SHARE: f64 = 0.05;

/// One (game, scenario, policy set) of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// The game.
    pub game: GameKind,
    /// The scenario spec string as written.
    pub scenario: String,
    /// The team.
    pub policy_set: PolicySet,
    /// Episodes per job, as the file gives it or by default ([`default_episodes_per_job`]).
    pub episodes_per_job: u64,
    /// Whether `episodes_per_job` was written in the file (else it is the default for the game
    /// and the collect mode).
    #[serde(skip)]
    pub explicit_episodes_per_job: bool,
    /// What its jobs' results carry. Left out of the canonical form when `records`, so the ids
    /// of sweeps written before the setting existed do not change.
    #[serde(skip_serializing_if = "Collect::is_records")]
    pub collect: Collect,
    /// Whether it plays in a job with the other policy sets of its scenario (a summary cell
    /// group of two or more sets without `llm` seats). In the canonical form when true: such a
    /// sweep's jobs are not those of a sweep written before pairing existed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub paired: bool,
    /// The `[[cells]]` group (or `[[rankings]]` section, numbered after them) it comes from.
    #[serde(skip)]
    pub entry: usize,
    /// Its position in [`Sweep::groups`].
    #[serde(skip)]
    pub group: usize,
}

/// Cells that play the same seeds in the same jobs: one (game, scenario) of one `[[cells]]`
/// group in summary mode, one cell otherwise.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// Its cells' positions in [`Sweep::cells`]; the first plays as the job's `policy_set`, the
    /// others as its paired sets.
    pub cells: Range<usize>,
    /// Seeds of each job (the last may have fewer).
    pub seeds_per_job: u64,
    /// Index of its first job.
    pub first_job: u64,
}

impl Group {
    /// Number of jobs of this group.
    pub fn jobs(&self, seeds: SeedRange) -> u64 {
        seeds.count.div_ceil(self.seeds_per_job)
    }
}

fn line_of(text: &str, span: std::ops::Range<usize>) -> usize {
    text[..span.start.min(text.len())].bytes().filter(|b| *b == b'\n').count() + 1
}

/// `[a-z0-9_-]{1,40}` from any name.
pub fn slug(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    s.truncate(40);
    if s.is_empty() {
        s.push_str("sweep");
    }
    s
}

impl Sweep {
    /// Reads and validates a sweep file.
    pub fn load(path: &Path) -> Result<Sweep, SweepError> {
        let text = std::fs::read_to_string(path).map_err(|e| SweepError {
            file: path.display().to_string(),
            line: None,
            field: None,
            message: format!("cannot read the sweep file: {e}"),
        })?;
        Sweep::parse(&text, &path.display().to_string())
    }

    fn set_id(&mut self) {
        let canonical = serde_json::to_string(&self).expect("a sweep always serialises");
        let digest = Sha256::digest(canonical.as_bytes());
        let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
        self.id = format!("{}-{hex}", slug(&self.name));
    }

    /// Whether any cell collects summaries.
    pub fn collects_summaries(&self) -> bool {
        self.cells.iter().any(|c| c.collect == Collect::Summary)
    }

    /// Total number of jobs.
    pub fn job_count(&self) -> u64 {
        self.groups.last().map_or(0, |g| g.first_job + g.jobs(self.seeds))
    }

    /// Total number of episodes.
    pub fn episode_count(&self) -> u64 {
        self.cells.len() as u64 * self.seeds.count
    }

    /// The games the sweep plays, in first-appearance order.
    pub fn games(&self) -> Vec<GameKind> {
        let mut games = Vec::new();
        for c in &self.cells {
            if !games.contains(&c.game) {
                games.push(c.game);
            }
        }
        games
    }

    /// The stats columns of its records in CSV and Parquet: every stats key of its games,
    /// `outside` (the `python:` and `wasm:` seats' faults, docs/agents.md) when a cell has such
    /// a seat, and `modules` (each `wasm:` entry's label and hash) when one has a `wasm:` seat.
    pub fn stat_columns(&self) -> Vec<&'static str> {
        let mut cols = crate::records::stat_columns(&self.games());
        let has = |prefix: &str| self.cells.iter().any(|c| c.policy_set.seats.iter().any(|s| s.starts_with(prefix)));
        if has("python:") || has("wasm:") {
            cols.push(OUTSIDE_STAT);
        }
        if has("wasm:") {
            cols.push(MODULES_STAT);
        }
        cols
    }

    /// The group that job `index` belongs to.
    pub fn group_of(&self, index: u64) -> Option<&Group> {
        let i = self.groups.partition_point(|g| g.first_job <= index).checked_sub(1)?;
        let group = self.groups.get(i)?;
        (index < group.first_job + group.jobs(self.seeds)).then_some(group)
    }

    /// The cells job `index` plays, as positions in [`Sweep::cells`]: its `policy_set`'s first,
    /// then its paired sets'.
    pub fn cells_of_job(&self, index: u64) -> Range<usize> {
        self.group_of(index).map_or(0..0, |g| g.cells.clone())
    }

    /// The (first) cell job `index` plays.
    pub fn cell_of(&self, index: u64) -> Option<&Cell> {
        self.cells.get(self.group_of(index)?.cells.start)
    }

    /// The jobs of cell `cell` (those of its group), as a range of job indexes.
    pub fn jobs_of_cell(&self, cell: usize) -> Range<u64> {
        let Some(g) = self.cells.get(cell).and_then(|c| self.groups.get(c.group)) else { return 0..0 };
        g.first_job..g.first_job + g.jobs(self.seeds)
    }

    /// Job `index` of the expansion.
    pub fn job(&self, index: u64) -> Option<Job> {
        let group = self.group_of(index)?;
        let first = &self.cells[group.cells.start];
        let offset = (index - group.first_job) * group.seeds_per_job;
        let count = group.seeds_per_job.min(self.seeds.count - offset);
        let paired = self.cells[group.cells.start + 1..group.cells.end].iter().map(|c| c.policy_set.clone());
        Some(self.job_at(index, first, SeedRange { start: self.seeds.start + offset, count }, paired.collect()))
    }

    /// Job `index` playing `seeds` of cell `first` (and of the `paired` sets beside it).
    pub(crate) fn job_at(&self, index: u64, first: &Cell, seeds: SeedRange, paired: Vec<PolicySet>) -> Job {
        let mut job = Job {
            protocol_version: PROTOCOL_VERSION,
            sweep: self.id.clone(),
            index,
            game: first.game.as_str().into(),
            scenario: first.scenario.clone(),
            policy_set: first.policy_set.clone(),
            seeds,
            replay: false,
            collect: first.collect,
            paired,
        };
        // The oldest version that carries it, so that a records job is the bytes of version 1.
        job.protocol_version = job.required_version();
        job
    }

    /// Every job in order (generated lazily: a sweep may have millions).
    pub fn jobs(&self) -> impl Iterator<Item = Job> + '_ {
        (0..self.job_count()).filter_map(|i| self.job(i))
    }

    /// The cell with this scenario string and policy set name (and game, when several match).
    pub fn find_cell(&self, game: Option<GameKind>, scenario: &str, policy_set: &str) -> Vec<&Cell> {
        self.cells
            .iter()
            .filter(|c| c.scenario == scenario && c.policy_set.name == policy_set && game.is_none_or(|g| g == c.game))
            .collect()
    }
}

#[cfg(test)]
mod tests;

/// The stats key of outside seats' faults (`{"<seat>": {"decisions", "illegal"}}`).
pub const OUTSIDE_STAT: &str = "outside";
/// The stats key of a row's `wasm:` entries (`{"<seat>": {"label", "sha256"}}`, [`modules::stamp`]).
pub const MODULES_STAT: &str = "modules";
