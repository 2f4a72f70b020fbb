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
use std::sync::{Arc, Mutex};

use simfleet::aggregate::{differences, CellAggregate, Difference, Paired, PairedCell, SeedValue};
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
    cells: Mutex<HashMap<(String, String, String), Arc<Template>>>,
}

impl FreePlay {
    /// On when [`FREE_PLAY_ENV`] is `1`.
    pub(crate) fn from_env() -> Option<FreePlay> {
        (std::env::var(FREE_PLAY_ENV).as_deref() == Ok("1")).then(FreePlay::default)
    }

    /// The answer to `job`, from its cells' templates (played now if this is a cell's first). A
    /// summary job with paired sets gets each set's aggregate from its template and the
    /// differences of the templates' seeds, merged as many times as the job's seeds need.
    pub(crate) fn play(&self, job: &Job, env: &RunEnv) -> JobResult {
        if job.paired.is_empty() {
            return match self.template(job, env) {
                Ok(t) => answer(job, env, &t),
                Err(failed) => *failed,
            };
        }
        let mut templates = Vec::new();
        for set in job.policy_sets() {
            match self.template(&job.for_set(set), env) {
                Ok(t) => templates.push(t),
                Err(failed) => return *failed,
            }
        }
        let mut result = answer(job, env, &templates[0]);
        let cells = job.paired.iter().zip(&templates[1..]);
        let cells = cells.map(|(p, t)| PairedCell { policy_set: p.name.clone(), summary: summary_of(job, t) });
        let n = templates.iter().map(|t| t.records.len()).min().unwrap_or(1) as u64;
        let win = templates[0].game.info().win_outcome;
        let values = |count: u64| -> Vec<Vec<SeedValue>> {
            let value = |r: &EpisodeRecord| SeedValue {
                seed: r.seed,
                team_reward: r.team_reward,
                win: Some(r.outcome.as_str()) == win,
            };
            templates.iter().map(|t| t.records[..count as usize].iter().map(value).collect()).collect()
        };
        let mut differences = differences(&values(0), win.is_some());
        let (whole, rest) = (differences_of(&values(n), win), differences_of(&values(job.seeds.count % n), win));
        for _ in 0..job.seeds.count / n {
            merge(&mut differences, &whole);
        }
        merge(&mut differences, &rest);
        result.paired = Some(Box::new(Paired { cells: cells.collect(), differences }));
        result
    }

    /// The template of `job`'s cell: played now if this is its first job.
    fn template(&self, job: &Job, env: &RunEnv) -> Result<Arc<Template>, Box<JobResult>> {
        let key = (job.game.clone(), job.scenario.clone(), job.policy_set.name.clone());
        if let Some(t) = self.cells.lock().expect("free play cache").get(&key) {
            return Ok(Arc::clone(t));
        }
        let mut probe = job.clone();
        probe.seeds = SeedRange { start: job.seeds.start, count: job.seeds.count.min(TEMPLATE) };
        probe.collect = Collect::Records;
        let played = simfleet::run_job(&probe, env);
        let Ok(game) = job.game.parse::<GameKind>() else { return Err(Box::new(played)) };
        if played.error.is_some() || played.records.is_empty() {
            return Err(Box::new(played));
        }
        let t = Arc::new(Template {
            game,
            aggregate: CellAggregate::of_records(&game.info().buckets, &played.records),
            records: played.records,
            engine_version: played.engine_version,
        });
        self.cells.lock().expect("free play cache").insert(key, Arc::clone(&t));
        Ok(t)
    }
}

fn differences_of(values: &[Vec<SeedValue>], win: Option<&str>) -> Vec<Difference> {
    differences(values, win.is_some())
}

fn merge(into: &mut [Difference], part: &[Difference]) {
    for (a, b) in into.iter_mut().zip(part) {
        a.team_reward.merge(&b.team_reward);
        if let (Some(x), Some(y)) = (a.win.as_mut(), b.win.as_ref()) {
            x.merge(y);
        }
    }
}

/// `job`'s answer from its (first) cell's template: the records repeated over its seeds, each
/// with its own seed, or the aggregate merged to its size.
fn answer(job: &Job, env: &RunEnv, template: &Template) -> JobResult {
    let mut result = JobResult::empty(&env.worker, job.sweep.clone(), job.index, Some(job));
    result.engine_version.clone_from(&template.engine_version);
    let n = template.records.len();
    match job.collect {
        Collect::Records => {
            result.records = job
                .seeds
                .iter()
                .enumerate()
                .map(|(i, seed)| EpisodeRecord { seed, ..template.records[i % n].clone() })
                .collect();
        }
        Collect::Summary => result.summary = Some(Box::new(summary_of(job, template))),
    }
    result
}

/// The aggregate of `job`'s seeds from `template`: merged as many times as they need.
fn summary_of(job: &Job, template: &Template) -> CellAggregate {
    let n = template.records.len() as u64;
    let mut aggregate = CellAggregate::default();
    for _ in 0..job.seeds.count / n {
        // Same game, same buckets: cannot fail.
        let _ = aggregate.merge(&template.aggregate);
    }
    let rest = &template.records[..(job.seeds.count % n) as usize];
    let _ = aggregate.merge(&CellAggregate::of_records(&template.game.info().buckets, rest));
    aggregate
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
            paired: Vec::new(),
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
        let mut paired = job(5, 5000, 1_037, Collect::Summary);
        paired.paired = vec![PolicySet { name: "randoms".into(), seats: vec!["random".into(); 4] }];
        let p = free.play(&paired, &env);
        let part = p.paired.as_deref().expect("the paired part");
        assert_eq!((part.cells.len(), part.cells[0].summary.episodes, p.episodes()), (1, 1_037, 2_074));
        assert_eq!(
            part.differences.iter().map(|d| (d.a, d.b, d.team_reward.count)).collect::<Vec<_>>(),
            [(0, 1, 1_037)]
        );
        assert!(FreePlay::from_env().is_none(), "off unless its variable says 1");
    }
}
