//! A stopping sweep's decision log on the fleet: every fold, kept under its own key
//! `<sweep>.stop` of the sweeps bucket (JSON of [`StopLog`]), beside the sweep's entry. A key of
//! its own because the entry is read by every worker every second and rewritten by `submit`,
//! `watch`, `cancel` and `priority`; the log grows with the looks and only `watch` writes it,
//! each time with a compare-and-set on the revision it read.
//!
//! And the publishing of a round's jobs: those without a result in the results stream, each
//! with the message id `<sweep>.<index>` like every job, so a publication repeated within the
//! duplicate window is dropped by the server and one later is deduplicated by job index.

use std::collections::BTreeSet;

use async_nats::jetstream::kv;
use simfleet::names::{job_subject, msg_id, result_subject, sweep_jobs_filter};
use simfleet::nats::outage::{is_transient, wait_out, WAITING};
use simfleet::protocol::Job;

use super::super::{msg_ids, Fleet};
use crate::stop::log::StopLog;

/// The key of sweep `id`'s decision log in the sweeps bucket.
pub fn key(id: &str) -> String {
    format!("{id}.stop")
}

/// The log of sweep `id` and the revision it was read at (`None`: no log yet).
pub(super) async fn read(fleet: &Fleet, id: &str) -> anyhow::Result<(StopLog, Option<u64>)> {
    let key = key(id);
    let entry = wait_out("reading the sweep's decision log", || fleet.topology.sweeps.entry(key.clone())).await?;
    match entry.filter(|e| e.operation == kv::Operation::Put) {
        Some(e) => {
            let log = serde_json::from_slice(&e.value)
                .map_err(|err| anyhow::anyhow!("the decision log {key} in the sweeps bucket is not a log: {err}"))?;
            Ok((log, Some(e.revision)))
        }
        None => Ok((StopLog::default(), None)),
    }
}

/// Writes `log` over the one read at `revision` (compare-and-set), and moves `revision` on.
/// Another writer first (a second watch of the same sweep) is an error unless what it wrote
/// agrees with every fold of `log`: two watches of one sweep make the same folds.
pub(super) async fn write(fleet: &Fleet, id: &str, log: &StopLog, revision: &mut Option<u64>) -> anyhow::Result<()> {
    let key = key(id);
    let mut log = log.clone();
    loop {
        let value: bytes::Bytes = serde_json::to_vec(&log)?.into();
        let written = match *revision {
            Some(r) => fleet
                .topology
                .sweeps
                .update(&key, value, r)
                .await
                .map_err(|e| (e.kind() == kv::UpdateErrorKind::WrongLastRevision, anyhow::Error::from(e))),
            None => fleet
                .topology
                .sweeps
                .create(&key, value)
                .await
                .map_err(|e| (e.kind() == kv::CreateErrorKind::AlreadyExists, anyhow::Error::from(e))),
        };
        match written {
            Ok(r) => {
                *revision = Some(r);
                return Ok(());
            }
            Err((conflict, e)) if conflict || format!("{e:#}").contains("wrong last sequence") => {
                let (stored, at) = read(fleet, id).await?;
                let mut merged = stored;
                for fold in &log.folds {
                    merged.check_or_append(fold).map_err(|m| {
                        anyhow::anyhow!("another watch of {id} logged a different decision in {key}: {m}")
                    })?;
                }
                log = merged;
                *revision = at;
            }
            Err((_, e)) if is_transient(&e) => {
                tracing::warn!(error = format!("{e:#}"), "writing the sweep's decision log: {WAITING}");
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
            Err((_, e)) => return Err(e.context(format!("writing the decision log {key}"))),
        }
    }
}

/// Publishes the jobs of `jobs` that are neither in the queue (waiting or playing) nor answered
/// in the results stream nor in `held`; returns how many the server stored (a job it dropped
/// as a duplicate within its window is not counted).
pub(super) async fn publish(fleet: &Fleet, id: &str, jobs: &[&Job], held: &BTreeSet<u64>) -> anyhow::Result<u64> {
    // The queue first: a job leaves it only once its result is stored, so a job missing from
    // both was never published or was lost.
    let queued = msg_ids::queued(&fleet.topology.jobs, &sweep_jobs_filter(id), id, 0).await?;
    let answered = msg_ids::indexes(&fleet.topology.results, &result_subject(id), id).await?;
    let mut acks = Vec::new();
    let wanted = |j: &&&Job| !(queued.contains(&j.index) || answered.contains(&j.index) || held.contains(&j.index));
    for job in jobs.iter().filter(wanted) {
        let mut headers = async_nats::HeaderMap::new();
        headers.insert(async_nats::header::NATS_MESSAGE_ID, msg_id(&job.sweep, job.index).as_str());
        let payload = simfleet::protocol::encode(*job);
        acks.push(fleet.js.publish_with_headers(job_subject(&job.game, &job.sweep), headers, payload.into()).await?);
    }
    let mut stored = 0;
    for ack in acks {
        let ack = ack.await.map_err(|e| anyhow::anyhow!("the server did not take a job of {id}: {e}"))?;
        stored += u64::from(!ack.duplicate);
    }
    Ok(stored)
}
