//! `coordinator results ID --out FILE`: exports a sweep again from the results stream, whatever
//! any `watch` did: every result the stream still holds (it keeps them for its max age), each
//! job once, in the order the results arrived. A sweep whose cells collect summaries gets its
//! summary file, merged per cell in job order ([`crate::cell_table`]).

use std::collections::BTreeSet;
use std::path::Path;

use indicatif::ProgressBar;
use simfleet::names::result_subject;
use simfleet::protocol::{Collect, JobResult};
use simfleet::GameKind;

use super::failures::FailedJob;
use super::large_result::{Arrival, Assembler};
use super::{msg_ids, Fleet};
use crate::cell_table::CellTable;
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
    /// Where the summary file went and its rows, when cells collected summaries.
    pub cells: Option<(std::path::PathBuf, usize)>,
}

/// Writes every result of sweep `id` in the results stream to `out`.
pub async fn export(fleet: &Fleet, id: &str, out: &Path, bar: &ProgressBar) -> anyhow::Result<ExportReport> {
    let sweep = match fleet.entry(id).await {
        Ok(entry) => Some(Sweep::parse(&entry.definition, id)?.with_collect(entry.collect)),
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
    let mut failed: Option<anyhow::Error> = None;
    let mut table = sweep.as_ref().filter(|s| s.collects_summaries()).map(CellTable::new);
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
            report.duplicates += 1;
            return;
        }
        if let (Some(t), Some(s)) = (table.as_mut(), sweep.as_ref()) {
            if let Err(e) = t.accept(s, &result) {
                failed = Some(e);
                return;
            }
        } else if result.summary.is_some() {
            tracing::warn!(index = result.index, "a summary result of a sweep whose definition is gone; skipped");
        }
        match &result.error {
            Some(e) => report.failures.push(FailedJob {
                job: result.index,
                kind: e.kind.as_str().into(),
                error: e.to_string(),
            }),
            None => {
                let records_cell =
                    sweep.as_ref().and_then(|s| s.cell_of(result.index)).is_none_or(|c| c.collect == Collect::Records);
                if records_cell {
                    if let Err(e) = writer.write_result(&result) {
                        failed = Some(e.into());
                        return;
                    }
                    report.records += result.records.len() as u64;
                }
                report.jobs += 1;
                bar.inc(result.episodes());
            }
        }
    })
    .await?;
    if let Some(e) = failed {
        return Err(e);
    }
    writer.finish()?;
    if let (Some(t), Some(s)) = (table, sweep.as_ref()) {
        let rows = t.rows()?;
        let path = crate::cell_table::summary_path(s, out);
        crate::records::cells::write_cells(&path, &rows)?;
        report.cells = Some((path, rows.len()));
    }
    bar.finish_and_clear();
    report.failures.sort_by_key(|f| f.job);
    Ok(report)
}
