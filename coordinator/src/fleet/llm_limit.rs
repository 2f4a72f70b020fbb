//! A sweep's model spend on the fleet: `watch` stops handing out the sweep's model jobs once its
//! `llm_max_calls` or `llm_max_dollars` is reached (docs/llm.md).

use simfleet::names::{SweepEntry, SweepStatus};

use super::Fleet;
use crate::llm_spend::Spend;
use crate::sweep::Sweep;

/// On the fleet, when the sweep's `llm_max_calls` or `llm_max_dollars` is reached by `spent`
/// (measured by `watch` from the results so far): marks the sweep `cancelled` in the KV bucket,
/// so that every worker answers the jobs it has not started `cancelled` instead of playing them
/// (a worker reads the state again every 0.25 s while it holds a model job not yet started, and
/// right before starting one; queued jobs are not purged: each gets its answer, and a job
/// already playing finishes and is kept). Returns why, once; `None` below the limits. Also
/// returns why (leaving the entry) once the calls the workers reserved before starting the
/// sweep's model jobs reach `llm_max_calls`, which comes first on a fleet.
pub async fn stop_at_limit(fleet: &Fleet, sweep: &Sweep, spent: Spend) -> anyhow::Result<Option<String>> {
    let Some(why) = sweep.llm_limit_reached(spent) else {
        // Reached by the reservations: the workers refuse the sweep's model jobs by the counter
        // already, and those holding a reservation play (the calls are within the bound), so
        // the entry is marked `cancelled` only when `watch` ends.
        return Ok(reserved_at_limit(fleet, sweep).await?.map(|why| {
            format!("{why}: its model jobs not started are answered cancelled; every episode played is kept")
        }));
    };
    let entry = fleet.entry(&sweep.id).await?;
    fleet
        .modify_entry(&sweep.id, |stored| SweepEntry {
            status: SweepStatus::Cancelled,
            ..stored.unwrap_or_else(|| entry.clone())
        })
        .await?;
    Ok(Some(format!("{why}: its model jobs not yet started are answered cancelled; every episode played is kept")))
}

/// Why the sweep is at its `llm_max_calls` by the calls the workers reserved for its model
/// jobs (the counter `<sweep>.llm_calls`, which runs ahead of the results): once there, the
/// workers answer its model jobs `cancelled`, and `watch` says why. `None` below it.
async fn reserved_at_limit(fleet: &Fleet, sweep: &Sweep) -> anyhow::Result<Option<String>> {
    let Some(max) = sweep.llm_max_calls else { return Ok(None) };
    let key = simfleet::names::llm_calls_key(&sweep.id);
    let Some(value) = fleet.topology.sweeps.get(&key).await? else { return Ok(None) };
    let reserved: u64 = String::from_utf8_lossy(&value).trim().parse().unwrap_or(0);
    Ok((reserved >= max).then(|| {
        format!("the sweep's llm_max_calls of {max} was reached ({reserved} model calls reserved by the workers' jobs)")
    }))
}
