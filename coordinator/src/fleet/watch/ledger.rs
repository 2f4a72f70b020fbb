//! What `watch` knows of every job of its sweep: done (its records in the file), failed (in the
//! failure log), or still missing. The sweep's own definition says which jobs there are, so
//! the ledger can always name the ones it still lacks (`audit` acts on them). What a result
//! holds goes to the [`Collector`].

use simfleet::protocol::JobResult;

use simfleet::names::SweepEntry;

use super::super::failures::FailedJob;
use super::super::Fleet;
use super::books::{describe, Books};
use crate::collector::Collector;
use crate::progress::Progress;
use crate::sweep::Sweep;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State {
    Pending,
    Done,
    Failed,
}

pub(super) struct Ledger {
    pub(super) states: Vec<State>,
    pub(super) done: u64,
    pub(super) failed: u64,
    /// Where the results go.
    pub(super) collector: Collector,
    pub(super) duplicates: u64,
    /// Jobs published again because their message was lost (`audit`).
    pub(super) replayed: u64,
    /// Results read again from the results stream after the file lost them (`audit`).
    pub(super) reread: u64,
    /// Why the sweep was stopped at `llm_max_calls` or `llm_max_dollars`.
    pub(super) llm_stopped: Option<String>,
}

impl Ledger {
    pub(super) fn sweep(&self) -> &Sweep {
        self.collector.sweep().expect("a watch knows its sweep")
    }

    pub(super) fn job_count(&self) -> u64 {
        self.states.len() as u64
    }

    pub(super) fn finished(&self) -> bool {
        self.done + self.failed >= self.job_count()
    }

    /// The jobs with neither records nor a failure yet, in index order.
    pub(super) fn missing(&self) -> Vec<u64> {
        (0..self.job_count()).filter(|&i| self.states[i as usize] == State::Pending).collect()
    }

    pub(super) fn is_pending(&self, index: u64) -> bool {
        self.states.get(index as usize) == Some(&State::Pending)
    }

    pub(super) fn fail(&mut self, failure: FailedJob) -> anyhow::Result<()> {
        let i = failure.job as usize;
        if self.states.get(i) != Some(&State::Pending) {
            self.duplicates += 1;
            return Ok(());
        }
        self.collector.fail(failure)?;
        self.states[i] = State::Failed;
        self.failed += 1;
        Ok(())
    }

    pub(super) fn accept(&mut self, result: JobResult) -> anyhow::Result<()> {
        let i = result.index as usize;
        if self.states.get(i) != Some(&State::Pending) {
            self.duplicates += 1;
            return Ok(());
        }
        let failed = result.error.is_some();
        self.collector.deliver(result)?;
        if failed {
            self.states[i] = State::Failed;
            self.failed += 1;
        } else {
            self.states[i] = State::Done;
            self.done += 1;
        }
        Ok(())
    }

    /// Writes and syncs what was accepted (the writer syncs the file to disk): only then may
    /// the results be acknowledged.
    pub(super) fn flush(&mut self) -> anyhow::Result<()> {
        self.collector.flush()?;
        super::super::metrics::record_progress(&self.sweep().id, self.job_count(), self.done, self.failed);
        Ok(())
    }
}

impl Books for Ledger {
    fn sweep_id(&self) -> &str {
        &self.sweep().id
    }
    fn missing(&self) -> Vec<u64> {
        Ledger::missing(self)
    }
    fn is_pending(&self, index: u64) -> bool {
        Ledger::is_pending(self, index)
    }
    fn job(&self, index: u64) -> Option<simfleet::protocol::Job> {
        self.sweep().job(index)
    }
    fn take(&mut self, result: JobResult) -> anyhow::Result<()> {
        self.accept(result)
    }
    fn reread(&mut self, result: JobResult) -> anyhow::Result<()> {
        self.accept(result)?;
        self.reread += 1;
        Ok(())
    }
    fn fail(&mut self, failure: FailedJob) -> anyhow::Result<()> {
        Ledger::fail(self, failure)
    }
    fn replayed(&mut self) {
        self.replayed += 1;
    }
    fn flush(&mut self) -> anyhow::Result<()> {
        Ledger::flush(self)
    }
    fn complete(&self) -> bool {
        self.finished()
    }
    fn waiting_for(&self) -> String {
        describe(&self.missing())
    }
    fn progress(&self) -> &Progress {
        self.collector.progress()
    }
    fn stopped_at_limit(&self) -> bool {
        self.llm_stopped.is_some()
    }
    async fn after_batch(&mut self, fleet: &Fleet) -> anyhow::Result<()> {
        if self.llm_stopped.is_none() {
            self.llm_stopped =
                super::super::llm_limit::stop_at_limit(fleet, self.sweep(), self.collector.spend()).await?;
        }
        Ok(())
    }
    async fn housekeeping(&mut self, fleet: &Fleet, entry: &SweepEntry) {
        super::update_entry(fleet, entry, self, false).await;
    }
}
