//! The one play loop: [`play_job`] plays a job's episodes in seed order and hands each record to
//! a [`RecordSink`]. Every player of the project goes through it, so the same job gives the same
//! records everywhere: the worker's play threads (a records job written into its encoded result
//! as it plays, a summary job counted into its aggregate), `coordinator run` ([`run_job`]: the
//! records kept, or the summary), `coordinator replay` and `records`. Episodes that wait on a
//! model are played several at once ([`ConcurrentJob`]) and fed to the same kind of sink, in seed
//! order.
//!
//! A job that cannot be played is a typed error result, never a panic: [`prepare_job`] checks
//! its version, game, scenario and team before anything is played, and an engine panic (a bug)
//! is caught and reported as `engine_panic`. The result of a job, played or failed, is built in
//! one place ([`result_of`]).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use crate::aggregate::Buckets;
use crate::games::{AnyGame, GameKind};
use crate::protocol::{check_version, Collect, EpisodeRecord, Job, JobError, JobErrorKind, JobResult};
use crate::spec::Spec;
use crate::RunEnv;

mod concurrent;
mod paired;
mod sink;

pub use concurrent::{has_llm_seats, run_job_concurrently, ConcurrentJob};
pub use sink::{Collected, Observed, RecordSink, SummarySink};

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

/// The error of a caught unwind: a [`JobError`] an outside seat unwound with
/// (`crate::outside::fail`), or an engine panic.
pub(crate) fn panic_error(payload: &Box<dyn std::any::Any + Send>) -> JobError {
    if let Some(e) = payload.downcast_ref::<JobError>() {
        return e.clone();
    }
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

/// The result of `job` played (or failed) since `started`, without records: its engine version
/// when its game is known (`kind`), and `error` when it failed. The one place a played job's
/// result is made.
pub fn result_of(
    job: &Job,
    env: &RunEnv,
    kind: Option<GameKind>,
    error: Option<JobError>,
    started: Instant,
) -> JobResult {
    let mut result = JobResult::empty(&env.worker, job.sweep.clone(), job.index, Some(job));
    result.engine_version = kind.map(engine_version).unwrap_or_default();
    result.error = error;
    result.elapsed_seconds = started.elapsed().as_secs_f64();
    result
}

/// Plays every seed of `job` in order, handing each episode to `sink`, and returns the job's
/// result without records (what the sink made of them is the caller's). A job that fails before
/// or while playing is an error result; the records the sink saw before an engine panic belong
/// to no result.
pub fn play_job(job: &Job, env: &RunEnv, sink: &mut dyn RecordSink) -> JobResult {
    let started = Instant::now();
    match prepare_job(job, env) {
        Err(e) => result_of(job, env, None, Some(e), started),
        Ok((kind, mut game)) => {
            let played = catch_unwind(AssertUnwindSafe(|| {
                for seed in job.seeds.iter() {
                    let ep = game.play(seed, job.replay);
                    sink.episode(ep.record, ep.replay);
                }
            }));
            result_of(job, env, Some(kind), played.err().map(|p| panic_error(&p)), started)
        }
    }
}

/// Plays `job` into the result its `collect` asks for: every record (and replay) in a records
/// job, the aggregate in a summary job ([`run_summary_job`]). Never panics on any input.
pub fn run_job(job: &Job, env: &RunEnv) -> JobResult {
    match job.collect {
        Collect::Records => {
            let mut records = Collected::for_job(job);
            let result = play_job(job, env, &mut records);
            records.into_result(result)
        }
        Collect::Summary => run_summary_job(job, env, &mut |_, _| {}),
    }
}

/// Plays a summary job into its result, showing each record to `observe` (the worker's metrics)
/// with the number of its policy set (0 for the job's `policy_set`, 1, 2, … for its paired sets)
/// before it is counted and dropped.
///
/// A job with paired policy sets plays each set over the job's seeds in turn, through the same
/// loop, each into its own aggregate; on the way it keeps only each seed's team reward and
/// whether it was a win, and at the end counts the differences between every two sets in seed
/// order ([`crate::aggregate::differences`]). If any set fails, the job fails: the error names
/// the set.
pub fn run_summary_job(job: &Job, env: &RunEnv, observe: &mut dyn FnMut(usize, &EpisodeRecord)) -> JobResult {
    if job.paired.is_empty() {
        let mut sink = Observed { sink: SummarySink::new(buckets_of(job)), observe: |r: &EpisodeRecord| observe(0, r) };
        let result = play_job(job, env, &mut sink);
        return sink.sink.into_result(result);
    }
    paired::run(job, env, observe)
}

/// The histogram buckets of `job`'s game (none for a game this build does not know: such a job
/// fails before anything is counted).
pub fn buckets_of(job: &Job) -> &'static Buckets {
    static NONE: Buckets = Buckets { team_reward: &[], length: &[], agent_reward: &[] };
    job.game.parse::<GameKind>().map_or(&NONE, |g| &g.info().buckets)
}

#[cfg(test)]
mod aggregate_tests;
#[cfg(test)]
mod tests;
