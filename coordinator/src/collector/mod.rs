//! The collector: the one place a sweep's results go. What `RecordSink` is to a worker's
//! episodes, [`Collector`] is to the coordinator's results. `run`, `watch`, `submit --watch`
//! and `results` only play or read results and deliver them; the collector owns the rule for
//! what goes where:
//!
//! - a failed job: the failed jobs (and `<out>.failed.jsonl` on the fleet), skipped in its
//!   cell's merge order, and its group stops in a stopping sweep;
//! - a records cell's result: the records file, the summary table;
//! - a summary cell's result: its cell's aggregate ([`cell_merge::CellTable`], or the stopping
//!   sweep's cells), never the records file (a worker older than `collect` answers a summary
//!   job with records: they count in the aggregate only);
//! - every result: the model spend, the progress.
//!
//! A plain sweep is a stopping sweep with one round and no fold: [`Collector::next_round`]
//! gives the jobs to play (or to wait for), [`Collector::end_round`] folds a stopping sweep's
//! checkpoint, and [`Collector::finish`] writes the end (the summary file, with a stopping
//! sweep's decision columns, and `<stem>.stop.json`).
//!
//! Results are delivered in job order by `run` and by a stopping sweep's watch (a round is
//! written once all its results are in); a plain watch and `results` deliver in the order the
//! results arrive (docs/records.md, "Order"): a summary cell's merge puts them back in job
//! order ([`cell_merge`]), and a records file is written as the results come.

use std::path::{Path, PathBuf};

use anyhow::Context;
use simfleet::policy::is_llm_spec;
use simfleet::protocol::Collect;
use simfleet::{GameKind, JobError, JobErrorKind, JobResult};

use self::failures::{FailedJob, FailureLog};
use crate::llm_spend::Spend;
use crate::progress::Progress;
use crate::records::{RecordWriter, RowEncoder};
use crate::stop::block::Stopping;
use crate::stop::report::{StopFile, StopReport};
use crate::summary::Summary;
use crate::sweep::Sweep;

pub mod cell_merge;
pub mod failures;
mod round;

use self::cell_merge::CellTable;
pub use self::round::RoundJobs;

/// How the records file is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Written from scratch.
    Create,
    /// Appended to: a resumed watch, whose file was cut back to whole jobs.
    Append,
}

/// Where a collector's failures go besides its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureFile {
    /// Nowhere else (`run` lists them at the end).
    None,
    /// `<out>.failed.jsonl`, started afresh.
    Fresh,
    /// `<out>.failed.jsonl`, kept and appended to (a resumed watch).
    Kept,
}

/// A played job prepared on the thread that played it (`run`): its rows encoded for the file
/// and summarised there, so the one thread that writes only appends bytes in job order.
pub enum Prepared {
    /// A records job's rows, encoded, and its summary.
    Encoded {
        /// The encoded rows.
        bytes: Vec<u8>,
        /// How many.
        rows: u64,
        /// The job's summary.
        summary: Summary,
    },
    /// The result itself: an error, a summary job, or rows only the writer can place (Parquet).
    Result(JobResult),
}

impl Prepared {
    /// Prepares `r` with `encoder` (from [`Collector::encoder`]) when it can be.
    pub fn of(r: JobResult, encoder: Option<&RowEncoder>) -> anyhow::Result<Prepared> {
        match encoder {
            Some(enc) if r.error.is_none() && r.summary.is_none() => {
                let mut bytes = Vec::with_capacity(r.records.len() * 256);
                let rows = enc.encode_result(&r, &mut bytes)?;
                let mut summary = Summary::default();
                summary.add_result(&r)?;
                Ok(Prepared::Encoded { bytes, rows, summary })
            }
            _ => Ok(Prepared::Result(r)),
        }
    }
}

/// What a collector gathered, when it finished.
#[derive(Debug)]
pub struct Collected {
    /// The summary table of everything delivered (of the cells, for summary cells).
    pub summary: Summary,
    /// Failed jobs, in job order.
    pub failures: Vec<FailedJob>,
    /// Records written to the records file by this collector.
    pub records: u64,
    /// Episodes delivered (recorded or summarised).
    pub episodes: u64,
    /// Jobs delivered with a result that is not an error.
    pub jobs_done: u64,
    /// Jobs of the rounds played (a stopping sweep's: the jobs its rounds had).
    pub jobs_total: u64,
    /// Where the summary file went and its rows, when cells collected summaries.
    pub cells: Option<(PathBuf, usize)>,
    /// A stopping sweep's decisions and what they saved.
    pub stop: Option<StopReport>,
    /// Model calls and their cost, measured from the results.
    pub spend: Spend,
}

/// How far a collector is: what `status` reads from the sweep's KV entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Jobs of the rounds begun.
    pub jobs_total: u64,
    /// Jobs delivered with a result.
    pub jobs_done: u64,
    /// Jobs failed.
    pub jobs_failed: u64,
    /// Episodes delivered.
    pub episodes: u64,
}

/// A sweep's results on their way to the files.
pub struct Collector {
    /// `None` for `results` of a sweep whose KV entry is gone: every result is taken as a
    /// records job's.
    sweep: Option<Sweep>,
    out: PathBuf,
    cells_path: PathBuf,
    writer: Option<RecordWriter>,
    failure_log: Option<FailureLog>,
    table: Option<CellTable>,
    stopping: Option<Stopping>,
    /// Whether the one round of a plain sweep was handed out.
    started: bool,
    summary: Summary,
    failures: Vec<FailedJob>,
    records: u64,
    episodes: u64,
    jobs_done: u64,
    jobs_total: u64,
    spend: Spend,
    progress: Progress,
}

impl Collector {
    /// A collector of `sweep`'s results into `out` (the records file; the summary file is
    /// [`cell_merge::summary_path`]). Both paths' formats are checked before anything is
    /// played or read. `stopping` plays a stopping sweep on from where it is (a resumed watch
    /// replays logged folds); `None` for a plain sweep.
    pub fn create(
        sweep: Option<Sweep>,
        out: &Path,
        output: Output,
        failure_file: FailureFile,
        stopping: Option<Stopping>,
        progress: Progress,
    ) -> anyhow::Result<Collector> {
        let cells_path = sweep.as_ref().map_or_else(|| out.to_path_buf(), |s| cell_merge::summary_path(s, out));
        // Refused before anything is played, as a records file of an unknown format is.
        crate::records::AnyFormat::of(&cells_path)?;
        let records_out = sweep.as_ref().is_none_or(|s| s.cells.iter().any(|c| c.collect == Collect::Records));
        let stats = sweep.as_ref().map_or_else(|| crate::records::stat_columns(&GameKind::ALL), Sweep::stat_columns);
        let writer = match (records_out, output) {
            (false, _) => None,
            (true, Output::Create) => Some(RecordWriter::create_with(out, stats)),
            (true, Output::Append) => Some(RecordWriter::append_with(out, stats)),
        };
        let writer = writer.transpose().with_context(|| format!("cannot write {}", out.display()))?;
        let failure_log = match failure_file {
            FailureFile::None => None,
            FailureFile::Fresh => Some(FailureLog::open(out, false)?.0),
            FailureFile::Kept => Some(FailureLog::open(out, true)?.0),
        };
        let table = sweep.as_ref().filter(|s| stopping.is_none() && s.collects_summaries()).map(CellTable::new);
        Ok(Collector {
            cells_path,
            out: out.to_path_buf(),
            writer,
            failure_log,
            table,
            stopping,
            started: false,
            summary: Summary::default(),
            failures: Vec::new(),
            records: 0,
            episodes: 0,
            jobs_done: 0,
            jobs_total: 0,
            spend: Spend::default(),
            progress,
            sweep,
        })
    }

    /// The sweep, unless its definition is gone.
    pub fn sweep(&self) -> Option<&Sweep> {
        self.sweep.as_ref()
    }

    fn defined(&self) -> anyhow::Result<&Sweep> {
        self.sweep.as_ref().context("the sweep's definition is gone")
    }

    /// Where progress and waiting lines go.
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// The model spend of the results delivered so far.
    pub fn spend(&self) -> Spend {
        self.spend
    }

    /// How far it is.
    pub fn tally(&self) -> Tally {
        Tally {
            jobs_total: self.jobs_total,
            jobs_done: self.jobs_done,
            jobs_failed: self.failures.len() as u64,
            episodes: self.episodes,
        }
    }

    /// The stopping sweep being played, if it is one.
    pub fn stopping(&self) -> Option<&Stopping> {
        self.stopping.as_ref()
    }

    /// What encodes a records job's rows on another thread, when every result of the sweep can
    /// go to the records file as it is played: a plain sweep of records cells only.
    pub fn encoder(&self) -> Option<RowEncoder> {
        let plain_records = self.stopping.is_none() && self.table.is_none();
        self.writer.as_ref().filter(|_| plain_records).and_then(RecordWriter::encoder)
    }

    /// The jobs of the next round, or `None` when the sweep is over: a plain sweep's one round
    /// is every job; a stopping sweep's is the next block of every open group.
    pub fn next_round(&mut self) -> Option<RoundJobs> {
        let sweep = self.sweep.as_ref()?;
        let round = match self.stopping.as_mut() {
            None if self.started => return None,
            None => RoundJobs::All(sweep.job_count()),
            Some(stopping) => RoundJobs::Listed(stopping.round_jobs(sweep)),
        };
        self.started = true;
        if round.is_empty() {
            return None;
        }
        self.jobs_total += round.len();
        let (total, possible) = match &self.stopping {
            None => (sweep.episode_count(), None),
            Some(s) => (self.progress.bar().position() + round.episodes(sweep), Some(s.episodes_possible())),
        };
        self.progress.begin_round(total, possible);
        Some(round)
    }

    /// Delivers a prepared result ([`Prepared`]).
    pub fn deliver_prepared(&mut self, prepared: Prepared) -> anyhow::Result<()> {
        match prepared {
            Prepared::Encoded { bytes, rows, summary } => {
                self.writer.as_mut().context("rows encoded without a records file")?.write_encoded(&bytes, rows)?;
                self.summary.merge(&summary)?;
                self.records += rows;
                self.count_done(rows);
                Ok(())
            }
            // Stamped where it was prepared (`run`'s play threads).
            Prepared::Result(r) => self.accept(r),
        }
    }

    /// Delivers one job's result: played, or failed with a typed error. The rows of a cell
    /// with `wasm:` seats are stamped with its modules first ([`crate::sweep::modules::stamp`]).
    pub fn deliver(&mut self, mut r: JobResult) -> anyhow::Result<()> {
        if let Some(sweep) = self.sweep.as_ref().filter(|s| s.has_wasm) {
            crate::sweep::modules::stamp(sweep, &mut r);
        }
        self.accept(r)
    }

    /// [`Collector::deliver`] of a result already stamped.
    fn accept(&mut self, r: JobResult) -> anyhow::Result<()> {
        if let Some(stopping) = self.stopping.as_mut() {
            stopping.accept_result(&r)?;
        }
        if let Some(e) = &r.error {
            let failure = FailedJob { job: r.index, kind: e.kind.as_str().to_string(), error: e.to_string() };
            return self.failed(failure);
        }
        let (spend, records_cell) = match (&self.sweep, self.cell_of(r.index)) {
            (Some(sweep), Some(cell)) => {
                let seats = &cell.policy_set.seats;
                // Reading a record's `llm` stat builds its map: only cells with model seats pay.
                let spend = match seats.iter().any(|s| is_llm_spec(s)) {
                    true => crate::llm_spend::spend_of_result(sweep, seats, &r),
                    false => Spend::default(),
                };
                (spend, cell.collect == Collect::Records)
            }
            // A job of a sweep whose definition is gone (`results`) is taken as a records job.
            _ => (Spend::default(), true),
        };
        self.spend += spend;
        match self.table.as_mut() {
            Some(table) => table.accept_result(self.sweep.as_ref().context("a table without its sweep")?, &r)?,
            None if records_cell => self.summary.add_result(&r)?,
            // A stopping sweep's summary cells: their rows come from its folds.
            None => {}
        }
        if records_cell && r.summary.is_none() {
            let writer = self.writer.as_mut().context("a records job in a sweep of summary cells")?;
            writer.write_result(&r)?;
            self.records += r.records.len() as u64;
        }
        self.count_done(r.episodes());
        Ok(())
    }

    /// Fails job `index` for a reason of the driver's own (out of deliveries, cancelled): as
    /// an error result would, with `failure`'s kind in the failure log.
    pub fn fail(&mut self, failure: FailedJob) -> anyhow::Result<()> {
        if let Some(stopping) = self.stopping.as_mut() {
            let error = JobError::new(JobErrorKind::Cancelled, &failure.error);
            let id = self.sweep.as_ref().map_or_else(String::new, |s| s.id.clone());
            stopping.accept_result(&JobResult::failed("coordinator", id, failure.job, None, error))?;
        }
        self.failed(failure)
    }

    fn failed(&mut self, failure: FailedJob) -> anyhow::Result<()> {
        if let (Some(table), Some(sweep)) = (self.table.as_mut(), self.sweep.as_ref()) {
            table.skip(sweep, failure.job)?;
        }
        if let Some(log) = self.failure_log.as_mut() {
            log.push(&failure)?;
        }
        self.progress.failed(failure.job, &failure.error, self.episodes_of(failure.job));
        self.failures.push(failure);
        Ok(())
    }

    fn count_done(&mut self, episodes: u64) {
        self.episodes += episodes;
        self.jobs_done += 1;
        self.progress.inc(episodes);
    }

    /// The cell of job `index`.
    fn cell_of(&self, index: u64) -> Option<&crate::sweep::Cell> {
        let sweep = self.sweep.as_ref()?;
        match &self.stopping {
            Some(stopping) => stopping.cell_of_job(index).map(|c| &sweep.cells[c]),
            None => sweep.cell_of(index),
        }
    }

    /// Episodes of job `index`.
    fn episodes_of(&self, index: u64) -> u64 {
        match (&self.stopping, &self.sweep) {
            (Some(stopping), _) => stopping.episodes_of_job(index),
            (None, Some(sweep)) => sweep.job(index).map_or(0, |j| j.seeds.count),
            (None, None) => 0,
        }
    }

    /// Ends a round: a stopping sweep folds every group's checkpoint (every job of the round
    /// must have been delivered). Returns whether new looks were logged.
    pub fn end_round(&mut self) -> anyhow::Result<bool> {
        let Some(stopping) = self.stopping.as_mut() else { return Ok(false) };
        let before = stopping.log.folds.len();
        stopping.fold_round()?;
        Ok(stopping.log.folds.len() > before)
    }

    /// Makes what was delivered durable: the records file and the failure log are written and
    /// synced (a watch acknowledges results only after this).
    pub fn flush(&mut self) -> anyhow::Result<()> {
        if let Some(w) = self.writer.as_mut() {
            w.flush()?;
        }
        if let Some(log) = self.failure_log.as_mut() {
            log.flush()?;
        }
        Ok(())
    }

    /// Completes the files: the records file (a Parquet file needs its footer), the summary
    /// file (with a stopping sweep's decision columns) and `<stem>.stop.json`.
    pub fn finish(mut self) -> anyhow::Result<Collected> {
        self.flush()?;
        let records = match self.writer.take() {
            Some(w) => w.finish()?,
            None => 0,
        };
        debug_assert!(records >= self.records, "a resumed file holds at least what this run wrote");
        let stop = self.stopping.as_ref().map(StopReport::of);
        let mut rows = match (&self.table, &self.stopping) {
            (Some(table), _) => table.rows()?,
            (None, Some(stopping)) => stopping.rows(self.defined()?),
            (None, None) => Vec::new(),
        };
        let mut cells = None;
        if !rows.is_empty() || self.table.is_some() {
            if let Some(report) = &stop {
                let decisions = crate::stop::decisions::Decisions::of_rows(report.rows.clone());
                crate::stop::decisions::apply(&mut rows, &decisions);
            }
            crate::records::summary_file::write_cells(&self.cells_path, &rows)
                .with_context(|| format!("cannot write {}", self.cells_path.display()))?;
            let of_cells = cell_merge::summary_of(&rows)?;
            match self.table {
                // Every cell is in the table, records cells too.
                Some(_) => self.summary = of_cells,
                None => self.summary.merge(&of_cells)?,
            }
            cells = Some((self.cells_path.clone(), rows.len()));
        }
        if let (Some(report), Some(stopping)) = (&stop, &self.stopping) {
            let path = StopFile::path(&self.out);
            let text = serde_json::to_string_pretty(&StopFile::of(&self.defined()?.id, stopping, report))?;
            std::fs::write(&path, text + "\n").with_context(|| format!("cannot write {}", path.display()))?;
        }
        self.progress.finish();
        self.failures.sort_by_key(|f| f.job);
        Ok(Collected {
            summary: self.summary,
            failures: self.failures,
            records: self.records,
            episodes: self.episodes,
            jobs_done: self.jobs_done,
            jobs_total: self.jobs_total,
            cells,
            stop,
            spend: self.spend,
        })
    }
}

#[cfg(test)]
mod tests;
