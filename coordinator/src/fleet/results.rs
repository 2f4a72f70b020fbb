//! `coordinator results ID --out FILE`: exports a sweep again from the results stream, whatever
//! any `watch` did: every result the stream still holds (it keeps them for its max age), each
//! job once, in the order the results arrived.

use std::collections::BTreeSet;
use std::path::Path;

use indicatif::ProgressBar;
use simfleet::protocol::JobResult;
use simfleet::topology::result_subject;
use simfleet::GameKind;

use super::failures::FailedJob;
use super::{scan, Fleet};
use crate::records::RecordWriter;
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
}

/// Writes every result of sweep `id` in the results stream to `out`.
pub async fn export(fleet: &Fleet, id: &str, out: &Path, bar: &ProgressBar) -> anyhow::Result<ExportReport> {
    let sweep = match fleet.entry(id).await {
        Ok(entry) => Some(Sweep::parse(&entry.definition, id)?),
        Err(_) => None,
    };
    let games = sweep.as_ref().map_or_else(|| GameKind::ALL.to_vec(), |s| s.games());
    let _lock = super::output_lock::OutputLock::acquire(out)?;
    let mut writer = RecordWriter::create(out, &games)?;
    let mut report = ExportReport { jobs_total: sweep.as_ref().map(|s| s.job_count()), ..Default::default() };
    if let Some(s) = &sweep {
        bar.set_length(s.episode_count());
    }
    let mut seen = BTreeSet::new();
    let mut failed = None;
    scan::for_each_header(&fleet.topology.results, &result_subject(id), false, |msg| {
        if failed.is_some() {
            return;
        }
        let result: JobResult = match simfleet::protocol::decode(&msg.payload) {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(error = %e, "an undecodable message on the results subject; skipped");
                return;
            }
        };
        if !seen.insert(result.index) {
            report.duplicates += 1;
            return;
        }
        match &result.error {
            Some(e) => report.failures.push(FailedJob {
                job: result.index,
                kind: e.kind.as_str().into(),
                error: e.to_string(),
            }),
            None => {
                if let Err(e) = writer.write_result(&result) {
                    failed = Some(e);
                    return;
                }
                report.jobs += 1;
                report.records += result.records.len() as u64;
                bar.inc(result.records.len() as u64);
            }
        }
    })
    .await?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    writer.finish()?;
    bar.finish_and_clear();
    report.failures.sort_by_key(|f| f.job);
    Ok(report)
}
