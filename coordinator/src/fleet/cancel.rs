//! `coordinator cancel ID`: marks the sweep `cancelled` in the KV bucket, then purges its queued
//! jobs. Jobs already delivered (or published during the purge) reach workers, which answer
//! them `cancelled` without playing; a running `watch` sees the status and stops.

use simfleet::names::{sweep_jobs_filter, SweepEntry, SweepStatus};

use super::Fleet;

/// What a cancel did.
#[derive(Debug, PartialEq, Eq)]
pub struct CancelReport {
    /// Queued jobs removed.
    pub purged: u64,
}

/// Cancels sweep `id`.
pub async fn cancel(fleet: &Fleet, id: &str) -> anyhow::Result<CancelReport> {
    let entry = fleet.entry(id).await?;
    // Status first: a job that slips past the purge is then answered `cancelled`. Only the
    // status changes: a submit or `priority` writing meanwhile keeps what it wrote.
    fleet
        .modify_entry(id, |stored| SweepEntry {
            status: SweepStatus::Cancelled,
            ..stored.unwrap_or_else(|| entry.clone())
        })
        .await?;
    let purged = fleet.topology.jobs.purge().filter(sweep_jobs_filter(id)).await?.purged;
    Ok(CancelReport { purged })
}
