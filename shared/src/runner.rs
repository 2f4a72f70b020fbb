//! `run_job`: the ONE function that plays a job's episodes. The worker and the coordinator's
//! embedded mode both call it, which is why their records are identical.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use crate::games::{AnyGame, GameKind};
use crate::protocol::{check_version, EpisodeRecord, Job, JobError, JobErrorKind, JobResult};
use crate::spec::Spec;
use crate::RunEnv;

/// `"<crate semver>+<rules_version>"`: the engine version stamped on every result of `kind`.
pub fn engine_version(kind: GameKind) -> String {
    format!("{}+{}", env!("CARGO_PKG_VERSION"), kind.info().rules_version)
}

/// Checks a job's version and game and parses its scenario and team, then validates them with
/// the game. Cheap (no episode is played): the coordinator calls it on every cell of a sweep
/// before it submits anything.
pub fn prepare_job(job: &Job, env: &RunEnv) -> Result<(GameKind, AnyGame), JobError> {
    check_version(job.protocol_version)?;
    let kind: GameKind = job.game.parse().map_err(|e: crate::games::UnknownGame| JobError {
        kind: JobErrorKind::UnknownGame,
        field: Some("game".into()),
        value: Some(job.game.clone()),
        message: e.to_string(),
    })?;
    let scenario = Spec::parse(&job.scenario).map_err(|e| JobError::invalid("scenario", &job.scenario, e.message))?;
    let team = job
        .policy_set
        .seats
        .iter()
        .enumerate()
        .map(|(seat, s)| Spec::parse(s).map_err(|e| JobError::invalid(format!("policy_set[{seat}]"), s, e.message)))
        .collect::<Result<Vec<_>, _>>()?;
    let game = catch_unwind(AssertUnwindSafe(|| AnyGame::prepare(kind, &scenario, &team, env)))
        .map_err(|p| panic_error(&p))??;
    Ok((kind, game))
}

fn panic_error(payload: &Box<dyn std::any::Any + Send>) -> JobError {
    JobError::new(JobErrorKind::EnginePanic, format!("engine panicked: {}", panic_message(payload)))
}

/// The message a caught panic carries (`panic!` with a literal or a formatted string).
pub fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Plays every seed of `job` and returns its result. Never panics on any input: a bad job is a
/// typed error result, and an engine panic (a bug) is caught and reported as `engine_panic`.
pub fn run_job(job: &Job, env: &RunEnv) -> JobResult {
    let mut records = Vec::with_capacity(capacity(job));
    let mut result = run_job_with(job, env, &mut |record| records.push(record));
    if result.error.is_none() {
        result.records = records;
    }
    result
}

/// Room for a job's episodes up front, bounded: a job may announce more than it can hold.
fn capacity(job: &Job) -> usize {
    usize::try_from(job.seeds.count).unwrap_or(usize::MAX).min(1 << 20)
}

/// [`run_job`], handing each episode's record to `each` as it is played instead of keeping it:
/// the result carries no records (its replays, if asked for, it does). A job that fails, before
/// or during play, is the same error result as `run_job`'s; the records `each` saw before an
/// engine panic belong to no result. What a job that collects a summary plays through
/// ([`crate::aggregate::run_summary_job`]), so that it holds one record at a time.
pub fn run_job_with(job: &Job, env: &RunEnv, each: &mut dyn FnMut(EpisodeRecord)) -> JobResult {
    let started = Instant::now();
    let failed = |error| JobResult::failed(&env.worker, job.sweep.clone(), job.index, Some(job), error);
    let mut result = match prepare_job(job, env) {
        Err(e) => failed(e),
        Ok((kind, mut game)) => {
            let played = catch_unwind(AssertUnwindSafe(|| {
                let mut replays = job.replay.then(|| Vec::with_capacity(capacity(job)));
                for seed in job.seeds.iter() {
                    let ep = game.play(seed, job.replay);
                    each(ep.record);
                    if let (Some(r), Some(text)) = (replays.as_mut(), ep.replay) {
                        r.push(text);
                    }
                }
                replays
            }));
            let mut result = match played {
                Ok(replays) => {
                    JobResult { replays, ..JobResult::empty(&env.worker, job.sweep.clone(), job.index, Some(job)) }
                }
                Err(p) => failed(panic_error(&p)),
            };
            result.engine_version = engine_version(kind);
            result
        }
    };
    result.elapsed_seconds = started.elapsed().as_secs_f64();
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{encode, PolicySet, ResultWriter, SeedRange, PROTOCOL_VERSION};

    fn job_of(game: &str) -> Job {
        Job {
            protocol_version: PROTOCOL_VERSION,
            sweep: "stream-000000000000".into(),
            index: 3,
            game: game.into(),
            scenario: "default".into(),
            policy_set: PolicySet { name: "team".into(), seats: vec!["random".into(); 4] },
            seeds: SeedRange { start: 40, count: 1 },
            replay: false,
            collect: Default::default(),
        }
    }

    #[test]
    fn a_result_written_while_its_job_plays_is_the_encoded_result() {
        let pinky = "pinky?miner=2&scout=1&aligner=3&scrambler=2";
        let cells: [(&str, &str, &[&str], u64); 6] = [
            ("bucket_brigade", "default", &["firefighter"; 4], 300),
            ("bucket_brigade", "default", &["random"; 4], 1),
            ("deception", "classic_5p1i", &["heuristic"; 5], 200),
            ("trolley", "trio_3p", &["persuadable"; 3], 200),
            ("cogsguard", "arena", &[pinky; 8], 2),
            ("trolley", "balanced_5p", &["utilitarian"; 5], 0),
        ];
        let env = RunEnv::default();
        for (game, scenario, seats, count) in cells {
            let job = Job {
                scenario: scenario.into(),
                policy_set: PolicySet { name: "team".into(), seats: seats.iter().map(|s| s.to_string()).collect() },
                seeds: SeedRange { start: 40, count },
                ..job_of(game)
            };
            let whole = run_job(&job, &env);
            let mut head = JobResult::empty(&env.worker, job.sweep.clone(), job.index, Some(&job));
            head.engine_version = whole.engine_version.clone();
            let mut writer = ResultWriter::new(head, count as usize);
            let streamed = run_job_with(&job, &env, &mut |r| writer.record(&r));
            assert!(streamed.error.is_none() && whole.error.is_none(), "{game} {scenario}");
            let elapsed = 0.125 + count as f64;
            let bytes = writer.finish(elapsed).expect("every announced record");
            assert_eq!(bytes, encode(&JobResult { elapsed_seconds: elapsed, ..whole }), "{game} {scenario}");
        }
        // Fewer records than announced: no result.
        let one = run_job(&Job { seeds: SeedRange { start: 0, count: 1 }, ..job_of("bucket_brigade") }, &env);
        let mut writer = ResultWriter::new(JobResult::empty("w", "s".into(), 0, None), 2);
        writer.record(&one.records[0]);
        assert!(writer.finish(1.0).is_none());
    }
}
