//! What a watch keeps of the jobs it waits for, as the one [`super::reader::Reader`] and the
//! audit see it: a plain sweep's [`super::ledger::Ledger`] (every job of the sweep, results
//! delivered to the collector as they come) or a stopping sweep's [`super::round::Round`] (the
//! round's jobs, results held until the round is complete, then delivered in job order).

use simfleet::names::SweepEntry;
use simfleet::protocol::{Job, JobResult};

use super::super::failures::FailedJob;
use super::super::Fleet;
use crate::progress::Progress;

/// A watch's books.
pub(super) trait Books {
    /// The sweep id.
    fn sweep_id(&self) -> &str;
    /// The jobs still waited for, in index order.
    fn missing(&self) -> Vec<u64>;
    /// Whether job `index` still waits for its result.
    fn is_pending(&self, index: u64) -> bool;
    /// Whether a message of job `index` is still of use: the parts of a result nobody waits for
    /// are acknowledged at once.
    fn wants(&self, index: u64) -> bool {
        self.is_pending(index)
    }
    /// Job `index`, to publish again.
    fn job(&self, index: u64) -> Option<Job>;
    /// Takes a result read from the stream (a duplicate is counted and dropped).
    fn take(&mut self, result: JobResult) -> anyhow::Result<()>;
    /// Takes a result read again from the stream after it was lost (counted as read again).
    fn reread(&mut self, result: JobResult) -> anyhow::Result<()>;
    /// Fails a job for a reason of the watch's own (out of deliveries, cancelled).
    fn fail(&mut self, failure: FailedJob) -> anyhow::Result<()>;
    /// Counts a job published again.
    fn replayed(&mut self);
    /// Makes what was taken durable: only then are its messages acknowledged.
    fn flush(&mut self) -> anyhow::Result<()>;
    /// Whether every job waited for has its result or has failed.
    fn complete(&self) -> bool;
    /// What the watch waits for, in words (`3 jobs (4, 7, 9)`).
    fn waiting_for(&self) -> String;
    /// Where to say things.
    fn progress(&self) -> &Progress;
    /// Whether the sweep stopped handing out jobs at its model-call limit: it ends
    /// `cancelled`, but its workers answer every job, so the watch waits for them all.
    fn stopped_at_limit(&self) -> bool {
        false
    }
    /// After each batch is acknowledged: a plain watch checks the sweep's model spend.
    async fn after_batch(&mut self, _fleet: &Fleet) -> anyhow::Result<()> {
        Ok(())
    }
    /// In each pause, with the sweep's entry as just read: a plain watch writes its counts.
    async fn housekeeping(&mut self, _fleet: &Fleet, _entry: &SweepEntry) {}
}

/// `n job(s) (a, b, c, …)`: the first few of `missing`, by index.
pub(super) fn describe(missing: &[u64]) -> String {
    let shown: Vec<String> = missing.iter().take(5).map(u64::to_string).collect();
    let more = if missing.len() > 5 { ", …" } else { "" };
    let s = if missing.len() == 1 { "" } else { "s" };
    format!("{} job{s} ({}{more})", missing.len(), shown.join(", "))
}
