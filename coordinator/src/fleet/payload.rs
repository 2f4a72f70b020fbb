//! Before a sweep is published: would each job's result fit in one NATS message?
//!
//! A records-mode result carries every episode's record, so its size is episodes per job ×
//! bytes per record, and a result over the server's `max_payload` cannot go in one message: the
//! worker sends it in parts, more messages for `watch` to put back together. nats-server's default `max_payload` is 1 MB, and at the default job sizes some games'
//! results are about that (deception `classic_5p1i`, 2,000 episodes: ≈ 1.0 MB) or over it
//! (trolley `trio_3p`, 2,777 episodes: ≈ 1.9 MB); deploy/'s servers allow 8 MB. So `submit`
//! measures each records cell before publishing: it plays the cell's first seeds (at most
//! [`PROBE_EPISODES`], and about [`PROBE_SECONDS`] of play), encodes them as a worker would,
//! scales the bytes to the cell's episodes per job, and warns, naming the cell and the episodes
//! per job that would fit one message, when a job's result would be over the limit: the worker
//! sends such a result in parts ([`simfleet::nats::result_parts`]), so nothing is refused. Summary
//! cells send one small aggregate per job; cells with `llm` seats are not probed (playing them
//! would call the model).

use simfleet::protocol::{Collect, SeedRange};
use simfleet::runner::has_llm_seats;
use simfleet::{run_job, Job, RunEnv};

use crate::sweep::Sweep;

/// Episodes played per cell to measure its records, at most: enough that the mean bytes per
/// record is within about a percent of a whole job's (records differ by a few percent between
/// episodes).
pub const PROBE_EPISODES: u64 = 200;

/// Play time per cell the probe aims at: games whose episodes take milliseconds (CogsGuard) are
/// measured on fewer episodes, so that a sweep of many such cells is not held up for long.
pub const PROBE_SECONDS: f64 = 0.05;

/// The share of `max_payload` a job's estimated result may fill. The estimate is a mean over the
/// probe: a record's size varies by a few percent (longer episodes, more ejections), which over
/// hundreds of episodes averages out to a fraction of a percent of a job's result.
pub const HEADROOM: f64 = 0.99;

/// A cell whose jobs' results would not fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Oversized {
    /// Its position in the sweep's cells (0-based).
    pub cell: usize,
    /// `game scenario × policy set`.
    pub label: String,
    /// Its episodes per job.
    pub episodes_per_job: u64,
    /// The estimated bytes of one job's result.
    pub estimate: u64,
    /// The most episodes per job whose result would fit.
    pub fitting: u64,
}

/// The records cells of `sweep` whose jobs' results would be over `max_payload` bytes (none
/// when `max_payload` is 0, unknown).
pub fn oversized(sweep: &Sweep, max_payload: usize) -> Vec<Oversized> {
    let limit = max_payload as f64 * HEADROOM;
    let mut over = Vec::new();
    if max_payload == 0 {
        return over;
    }
    for (i, cell) in sweep.cells.iter().enumerate() {
        let Some(probe) = sweep.job(sweep.groups[cell.group].first_job) else { continue };
        if cell.collect != Collect::Records || has_llm_seats(&probe) {
            continue;
        }
        let Some(per_episode) = bytes_per_episode(probe, cell.episodes_per_job) else { continue };
        let estimate = per_episode * cell.episodes_per_job as f64;
        if estimate > limit {
            over.push(Oversized {
                cell: i,
                label: format!("{} {} × {}", cell.game.as_str(), cell.scenario, cell.policy_set.name),
                episodes_per_job: cell.episodes_per_job,
                estimate: estimate as u64,
                fitting: ((limit / per_episode) as u64).max(1),
            });
        }
    }
    over
}

/// The encoded bytes per episode of `job`'s first seeds, as a worker would publish them: one
/// episode first, to see how many [`PROBE_SECONDS`] afford, then that many. `None` when the job
/// is refused (the worker answers the same typed error; nothing to estimate).
fn bytes_per_episode(mut job: Job, episodes_per_job: u64) -> Option<f64> {
    let start = job.seeds.start;
    let mut play = |count| {
        job.seeds = SeedRange { start, count };
        let result = run_job(&job, &RunEnv::default());
        result.error.is_none().then_some(result)
    };
    let first = play(1)?;
    let count =
        ((PROBE_SECONDS / first.elapsed_seconds.max(1e-6)) as u64).clamp(1, PROBE_EPISODES).min(episodes_per_job);
    let result = if count > 1 { play(count)? } else { first };
    Some(result.encode().len() as f64 / count as f64)
}

/// The warning `submit` gives for [`oversized`] cells: each cell, its estimate and the episodes
/// per job that would fit in one message. Such results still arrive: the worker sends them in
/// parts ([`simfleet::nats::result_parts`]), at the cost of more messages and of `watch` holding
/// a job's parts in memory until its last one.
pub fn warning(over: &[Oversized], max_payload: usize) -> String {
    let mut message = format!(
        "warning: {} cell(s) of this sweep will have results over the NATS server's max_payload of {max_payload} bytes; \
         workers send each such result in parts:",
        over.len()
    );
    for o in over {
        message.push_str(&format!(
            "\n  cell {} ({}): {} episodes per job ≈ {} bytes of records; episodes_per_job = {} would fit one message",
            o.cell + 1,
            o.label,
            o.episodes_per_job,
            o.estimate,
            o.fitting
        ));
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trio(collect: &str) -> Sweep {
        let text = format!(
            "name = \"p\"\nseeds = {{ start = 0, count = 5554 }}\ncollect = \"{collect}\"\n\n[[cells]]\n\
             game = \"trolley\"\nscenarios = [\"trio_3p\"]\n[cells.policy_sets]\n\
             persuadables = [\"persuadable\", \"persuadable\", \"persuadable\"]\n"
        );
        Sweep::parse(&text, "p.toml").unwrap()
    }

    #[test]
    fn a_records_cell_over_the_limit_is_named_with_the_episodes_that_fit() {
        let over = oversized(&trio("records"), 1 << 20);
        assert_eq!(over.len(), 1, "{over:?}");
        let o = &over[0];
        assert_eq!((o.cell, o.episodes_per_job, o.label.as_str()), (0, 2777, "trolley trio_3p × persuadables"));
        assert!(o.estimate > 1 << 20 && (1000..2777).contains(&o.fitting), "{o:?}");
        // The estimate scales: `fitting` episodes fill the room HEADROOM leaves, no more.
        let per_episode = o.estimate as f64 / 2777.0;
        assert!(o.fitting as f64 * per_episode <= HEADROOM * f64::from(1 << 20));
        assert!((o.fitting + 2) as f64 * per_episode > HEADROOM * f64::from(1 << 20));
        let message = warning(&over, 1 << 20);
        assert!(message.contains("episodes_per_job = ") && message.contains("in parts"), "{message}");
    }

    #[test]
    fn summaries_a_larger_limit_and_an_unknown_one_pass() {
        assert_eq!(oversized(&trio("summary"), 1 << 20), vec![]);
        assert_eq!(oversized(&trio("records"), 16 << 20), vec![]);
        assert_eq!(oversized(&trio("records"), 0), vec![]);
    }
}
