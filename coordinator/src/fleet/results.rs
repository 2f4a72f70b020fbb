//! `coordinator results ID --out FILE`: exports a sweep again from the results stream, whatever
//! any `watch` did: every result the stream still holds (it keeps them for its max age), each
//! job once, in the order the results arrived. A sweep whose cells collect summaries gets its
//! summary file, merged per cell in job order: results go to the [`crate::collector`].

use std::collections::BTreeSet;
use std::path::Path;

use simfleet::names::result_subject;
use simfleet::protocol::JobResult;

use super::failures::FailedJob;
use super::large_result::{Arrival, Assembler};
use super::{msg_ids, Fleet};
use crate::collector::{Collector, FailureFile, Output};
use crate::progress::Progress;
use crate::sweep::Sweep;

/// What an export found.
#[derive(Debug, Default)]
pub struct ExportReport {
    /// Jobs written.
    pub jobs: u64,
    /// Records written.
    pub records: u64,
    /// Failed jobs.
    pub failures: Vec<FailedJob>,
    /// Duplicate results skipped.
    pub duplicates: u64,
    /// Jobs in the sweep, when its KV entry is still there.
    pub jobs_total: Option<u64>,
    /// Where the summary file went and its rows, when cells collected summaries.
    pub cells: Option<(std::path::PathBuf, usize)>,
}

/// Writes every result of sweep `id` in the results stream to `out`, with progress drawn when
/// `progress` is set.
pub async fn export(fleet: &Fleet, id: &str, out: &Path, progress: bool) -> anyhow::Result<ExportReport> {
    let sweep = match fleet.entry(id).await {
        Ok(entry) => {
            fleet.fetch_modules(&entry.definition).await?;
            Some(Sweep::parse(&entry.definition, id)?.with_collect(entry.collect))
        }
        Err(_) => None,
    };
    let jobs_total = sweep.as_ref().map(Sweep::job_count);
    let _lock = super::output_lock::OutputLock::acquire(out)?;
    let mut collector =
        Collector::create(sweep, out, Output::Create, FailureFile::None, None, Progress::new(progress))?;
    // The one round of a plain sweep: every job, in the order the results arrive.
    let _ = collector.next_round();
    let (mut seen, mut duplicates) = (BTreeSet::new(), 0);
    let mut failed: Option<anyhow::Error> = None;
    // Results sent in parts are put back together first; nothing is acknowledged here.
    let mut parts = Assembler::<()>::default();
    msg_ids::for_each_header(&fleet.topology.results, &result_subject(id), false, |msg| {
        if failed.is_some() {
            return;
        }
        let payload = match parts.arrive(msg, (), |i| !seen.contains(&i)) {
            Arrival::Result(payload, _) => payload,
            Arrival::Ack(_) | Arrival::Held => return,
        };
        let result: JobResult = match simfleet::protocol::decode(&payload) {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(error = %e, "an undecodable message on the results subject; skipped");
                return;
            }
        };
        if !seen.insert(result.index) {
            duplicates += 1;
            return;
        }
        if let Err(e) = collector.deliver(result) {
            failed = Some(e);
        }
    })
    .await?;
    if let Some(e) = failed {
        return Err(e);
    }
    let c = collector.finish()?;
    Ok(ExportReport {
        jobs: c.jobs_done,
        records: c.records,
        failures: c.failures,
        duplicates,
        jobs_total,
        cells: c.cells,
    })
}
