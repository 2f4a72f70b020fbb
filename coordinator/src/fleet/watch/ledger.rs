//! What `watch` knows of every job of its sweep: done (its records in the file), failed (in the
//! failure log), or still missing. The sweep's own definition says which jobs there are, so
//! the ledger can always name the ones it still lacks (`audit` acts on them).

use indicatif::ProgressBar;
use simfleet::protocol::{Collect, JobResult};

use super::super::failures::{FailedJob, FailureLog};
use crate::cell_table::CellTable;
use crate::records::RecordWriter;
use crate::sweep::Sweep;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State {
    Pending,
    Done,
    Failed,
}

pub(super) struct Ledger<'a> {
    pub(super) sweep: Sweep,
    pub(super) states: Vec<State>,
    pub(super) done: u64,
    pub(super) failed: u64,
    pub(super) writer: RecordWriter,
    pub(super) failures: FailureLog,
    pub(super) bar: &'a ProgressBar,
    /// The cells' aggregates, when some cells collect summaries.
    pub(super) table: Option<CellTable>,
    pub(super) records_written: u64,
    pub(super) episodes: u64,
    pub(super) duplicates: u64,
    /// Jobs published again because their message was lost (`audit`).
    pub(super) replayed: u64,
    /// Results read again from the results stream after the file lost them (`audit`).
    pub(super) reread: u64,
    pub(super) summary: crate::summary::Summary,
    /// Model calls (and their cost) of the results so far, and why the sweep was stopped at
    /// `llm_max_calls` or `llm_max_dollars`.
    pub(super) llm_spend: crate::llm_spend::Spend,
    pub(super) llm_stopped: Option<String>,
}

impl Ledger<'_> {
    pub(super) fn finished(&self) -> bool {
        self.done + self.failed >= self.sweep.job_count()
    }

    /// The jobs with neither records nor a failure yet, in index order.
    pub(super) fn missing(&self) -> Vec<u64> {
        (0..self.sweep.job_count()).filter(|&i| self.states[i as usize] == State::Pending).collect()
    }

    pub(super) fn is_pending(&self, index: u64) -> bool {
        self.states.get(index as usize) == Some(&State::Pending)
    }

    pub(super) fn episodes_of(&self, index: u64) -> u64 {
        self.sweep.job(index).map_or(0, |j| j.seeds.count)
    }

    pub(super) fn fail(&mut self, failure: FailedJob) -> anyhow::Result<()> {
        let i = failure.job as usize;
        if self.states.get(i) != Some(&State::Pending) {
            self.duplicates += 1;
            return Ok(());
        }
        self.failures.push(&failure)?;
        if let Some(table) = self.table.as_mut() {
            table.skip(&self.sweep, failure.job)?;
        }
        self.states[i] = State::Failed;
        self.failed += 1;
        self.bar.inc(self.episodes_of(failure.job));
        self.bar.println(format!("job {} failed: {}", failure.job, failure.error));
        Ok(())
    }

    pub(super) fn accept(&mut self, result: JobResult) -> anyhow::Result<()> {
        let i = result.index as usize;
        if self.states.get(i) != Some(&State::Pending) {
            self.duplicates += 1;
            return Ok(());
        }
        if let Some(e) = &result.error {
            return self.fail(FailedJob { job: result.index, kind: e.kind.as_str().to_string(), error: e.to_string() });
        }
        self.llm_spend += crate::llm_spend::spend_of(&self.sweep, &result);
        let records_cell = self.sweep.cell_of(result.index).is_some_and(|c| c.collect == Collect::Records);
        match self.table.as_mut() {
            Some(table) => table.accept(&self.sweep, &result)?,
            None => self.summary.add_result(&result)?,
        }
        // A summary cell's job answered by a worker older than `collect` comes with records:
        // they count in its aggregate, but do not go into the records file.
        if records_cell {
            self.writer.write_result(&result)?;
            self.records_written += result.records.len() as u64;
        }
        self.episodes += result.episodes();
        self.states[i] = State::Done;
        self.done += 1;
        self.bar.inc(result.episodes());
        Ok(())
    }

    /// Writes and syncs what was accepted (the writer syncs the file to disk): only then may
    /// the results be acknowledged.
    pub(super) fn flush(&mut self) -> anyhow::Result<()> {
        self.writer.flush()?;
        self.failures.flush()?;
        let id = &self.sweep.id;
        super::super::metrics::record_progress(id, self.sweep.job_count(), self.done, self.failed);
        Ok(())
    }

    /// A line naming the missing jobs, the first few by index.
    pub(super) fn describe_missing(&self) -> String {
        let missing = self.missing();
        let shown: Vec<String> = missing.iter().take(5).map(u64::to_string).collect();
        let more = if missing.len() > 5 { ", …" } else { "" };
        let s = if missing.len() == 1 { "" } else { "s" };
        format!("{} job{s} ({}{more})", missing.len(), shown.join(", "))
    }
}
