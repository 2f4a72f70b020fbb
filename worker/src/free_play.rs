//! Bench-only free play: with `SIMFLEET_BENCH_FREE_PLAY=1` in its environment the worker plays
//! each sweep cell's first few episodes once and answers every later job of the cell from them
//! at almost no cost, so that `scripts/bench-scale` measures what one nats-server and one
//! coordinator can dispatch and collect, not what the engines can play.
//!
//! A records job gets the cached records repeated over its seeds (each with its own seed); a
//! summary job gets the cached aggregate merged as many times as its episodes need, so counts
//! and sizes are those of a real result. The figures are not the episodes' own: never set it
//! outside a benchmark (the worker says so in its log at start).

use std::collections::HashMap;
use std::sync::Mutex;

use simfleet::aggregate::CellAggregate;
use simfleet::protocol::{Collect, SeedRange};
use simfleet::{EpisodeRecord, GameKind, Job, JobResult, RunEnv};

/// The environment variable that turns it on.
pub const FREE_PLAY_ENV: &str = "SIMFLEET_BENCH_FREE_PLAY";

/// Episodes actually played per cell.
const TEMPLATE: u64 = 100;

/// A cell's played template.
struct Template {
    game: GameKind,
    records: Vec<EpisodeRecord>,
    aggregate: CellAggregate,
    engine_version: String,
}

/// The cache of templates, per (game, scenario, policy set).
#[derive(Default)]
pub(crate) struct FreePlay {
    cells: Mutex<HashMap<(String, String, String), std::sync::Arc<Template>>>,
}

impl FreePlay {
    /// On when [`FREE_PLAY_ENV`] is `1`.
    pub(crate) fn from_env() -> Option<FreePlay> {
        (std::env::var(FREE_PLAY_ENV).as_deref() == Ok("1")).then(FreePlay::default)
    }

    /// The answer to `job`, from its cell's template (played now if this is the cell's first).
    pub(crate) fn play(&self, job: &Job, env: &RunEnv) -> JobResult {
        let key = (job.game.clone(), job.scenario.clone(), job.policy_set.name.clone());
        let cached = self.cells.lock().expect("free play cache").get(&key).cloned();
        let template = match cached {
            Some(t) => t,
            None => {
                let mut probe = job.clone();
                probe.seeds = SeedRange { start: job.seeds.start, count: job.seeds.count.min(TEMPLATE) };
                probe.collect = Collect::Records;
                let played = simfleet::run_job(&probe, env);
                let Ok(game) = job.game.parse::<GameKind>() else { return played };
                if played.error.is_some() || played.records.is_empty() {
                    return played;
                }
                let t = std::sync::Arc::new(Template {
                    game,
                    aggregate: CellAggregate::of_records(game, &played.records),
                    records: played.records,
                    engine_version: played.engine_version,
                });
                self.cells.lock().expect("free play cache").insert(key, std::sync::Arc::clone(&t));
                t
            }
        };
        let mut result = JobResult::empty(&env.worker, job.sweep.clone(), job.index, Some(job));
        result.engine_version.clone_from(&template.engine_version);
        let n = template.records.len() as u64;
        match job.collect {
            Collect::Records => {
                result.records = job
                    .seeds
                    .iter()
                    .enumerate()
                    .map(|(i, seed)| EpisodeRecord { seed, ..template.records[i % n as usize].clone() })
                    .collect();
            }
            Collect::Summary => {
                let mut aggregate = CellAggregate::default();
                for _ in 0..job.seeds.count / n {
                    // Same game, same buckets: cannot fail.
                    let _ = aggregate.merge(&template.aggregate);
                }
                let rest = &template.records[..(job.seeds.count % n) as usize];
                let _ = aggregate.merge(&CellAggregate::of_records(template.game, rest));
                result.summary = Some(Box::new(aggregate));
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use simfleet::protocol::PolicySet;

    use super::*;

    fn job(index: u64, start: u64, count: u64, collect: Collect) -> Job {
        Job {
            protocol_version: simfleet::PROTOCOL_VERSION,
            sweep: "free-000000000000".into(),
            index,
            game: "bucket_brigade".into(),
            scenario: "default".into(),
            policy_set: PolicySet { name: "team".into(), seats: vec!["firefighter".into(); 4] },
            seeds: SeedRange { start, count },
            replay: false,
            collect,
        }
    }

    #[test]
    fn free_results_have_the_jobs_size_and_seeds() {
        let free = FreePlay::default();
        let env = RunEnv::default();
        let first = free.play(&job(0, 0, 1000, Collect::Records), &env);
        assert_eq!(first.records.len(), 1000);
        assert!(first.records.iter().zip(0u64..).all(|(r, s)| r.seed == s), "each record has its own seed");
        let later = free.play(&job(3, 3000, 250, Collect::Records), &env);
        assert_eq!((later.index, later.records.len(), later.records[249].seed), (3, 250, 3249));
        let summary = free.play(&job(4, 4000, 100_037, Collect::Summary), &env);
        let a = summary.summary.as_deref().expect("a summary");
        assert!(summary.records.is_empty());
        assert_eq!((a.episodes, a.team_reward.count, a.histograms.team_reward.total()), (100_037, 100_037, 100_037));
        assert_eq!(a.outcomes.iter().map(|o| o.episodes).sum::<u64>(), 100_037);
        assert!(FreePlay::from_env().is_none(), "off unless its variable says 1");
    }
}
