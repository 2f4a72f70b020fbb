//! Where a job's played episodes go: [`RecordSink`], and the sinks every player uses.
//!
//! The play loop ([`super::play_job`], and [`super::ConcurrentJob`] for episodes that wait on a
//! model) hands each episode's record to a sink in seed order and keeps nothing itself. What
//! becomes of the records is the sink's business: kept for `coordinator run` ([`Collected`]),
//! written into an encoded result as they come (the wire layer's `ResultWriter`, the worker's
//! records path), or counted into a summary ([`SummarySink`]); [`Observed`] shows each record
//! to a second party on the way (the worker's metrics).

use crate::aggregate::{Buckets, CellAggregate, CellBuilder};
use crate::protocol::{EpisodeRecord, Job, JobResult, ResultWriter};

/// Takes a job's episodes, in seed order.
pub trait RecordSink {
    /// The next episode's record, and its JSON replay when the job asked for replays.
    fn episode(&mut self, record: EpisodeRecord, replay: Option<String>);
}

impl<S: RecordSink + ?Sized> RecordSink for &mut S {
    fn episode(&mut self, record: EpisodeRecord, replay: Option<String>) {
        (**self).episode(record, replay);
    }
}

impl<S: RecordSink + ?Sized> RecordSink for Box<S> {
    fn episode(&mut self, record: EpisodeRecord, replay: Option<String>) {
        (**self).episode(record, replay);
    }
}

/// Keeps every record (and replay): what `run_job` returns in a records result.
#[derive(Debug, Default)]
pub struct Collected {
    /// The records, in seed order.
    pub records: Vec<EpisodeRecord>,
    /// The replays, when the job asked for them.
    pub replays: Option<Vec<String>>,
}

impl Collected {
    /// Room for `job`'s episodes, bounded (a job may announce more than it can hold).
    pub fn for_job(job: &Job) -> Collected {
        let capacity = capacity(job);
        Collected { records: Vec::with_capacity(capacity), replays: job.replay.then(|| Vec::with_capacity(capacity)) }
    }

    /// `result` (a played job's result, without records) with these records and replays; a
    /// failed result is returned as it is.
    pub fn into_result(self, mut result: JobResult) -> JobResult {
        if result.error.is_none() {
            result.records = self.records;
            result.replays = self.replays;
        }
        result
    }
}

impl RecordSink for Collected {
    fn episode(&mut self, record: EpisodeRecord, replay: Option<String>) {
        self.records.push(record);
        if let (Some(r), Some(text)) = (self.replays.as_mut(), replay) {
            r.push(text);
        }
    }
}

/// Room for a job's episodes up front, bounded: a job may announce more than it can hold.
pub(crate) fn capacity(job: &Job) -> usize {
    usize::try_from(job.seeds.count).unwrap_or(usize::MAX).min(1 << 20)
}

/// Counts each record into a cell's aggregate and drops it: a summary job holds one record at a
/// time. (Holding a summary job's hundred thousand records until the end took the worker's peak
/// memory to 100–300 MB, and dropping them cost 10–30% of the job's CPU time.)
#[derive(Debug)]
pub struct SummarySink(CellBuilder);

impl SummarySink {
    /// An empty aggregate with a game's histogram buckets.
    pub fn new(buckets: &Buckets) -> SummarySink {
        SummarySink(CellBuilder::new(buckets))
    }

    /// The aggregate of the episodes counted.
    pub fn finish(self) -> CellAggregate {
        self.0.finish()
    }

    /// `result` (a played job's result) as the summary result of these episodes; a failed
    /// result is returned as it is. A summary result carries no records and no replays.
    pub fn into_result(self, mut result: JobResult) -> JobResult {
        if result.error.is_none() {
            result.summary = Some(Box::new(self.finish()));
            result.records = Vec::new();
            result.replays = None;
        }
        result
    }
}

impl RecordSink for SummarySink {
    fn episode(&mut self, record: EpisodeRecord, _: Option<String>) {
        self.0.add(&record);
    }
}

impl RecordSink for ResultWriter {
    fn episode(&mut self, record: EpisodeRecord, replay: Option<String>) {
        self.record(&record);
        if let Some(text) = replay {
            self.replay(text);
        }
    }
}

/// A sink that shows each record to `observe` before handing it on.
pub struct Observed<S, F> {
    /// Where the records go.
    pub sink: S,
    /// Who sees each record first.
    pub observe: F,
}

impl<S: RecordSink, F: FnMut(&EpisodeRecord)> RecordSink for Observed<S, F> {
    fn episode(&mut self, record: EpisodeRecord, replay: Option<String>) {
        (self.observe)(&record);
        self.sink.episode(record, replay);
    }
}
