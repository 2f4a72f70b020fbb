//! `llm` seats from the coordinator: the shared HTTP transport of `run`, `replay` and sweep
//! validation, concurrent episodes for `run`, and exact replays from recorded exchanges.
//!
//! - [`transport`]: one HTTPS-capable transport per process (system roots plus
//!   `SIMFLEET_LLM_CA_FILE`, proxies from `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY`/`NO_PROXY`),
//!   wrapped so that a failing endpoint is reported on stderr (once a minute per endpoint and
//!   kind, naming the endpoint) instead of only in the records.
//! - [`run_job`]: what `coordinator run` plays a job with: a job with `llm` seats plays up to
//!   `SIMFLEET_LLM_CONCURRENCY` (default 64) episodes at once, each waiting on its model, with
//!   the records in seed order; other jobs are [`simfleet::run_job`] as before.
//! - [`replay_recorded`]: `coordinator replay … --records FILE` plays an episode again from
//!   the exchanges its record holds (`stats.llm.<seat>.exchanges`) and checks that the result
//!   equals the record byte for byte; no model is called.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use simfleet::llm::http::{HttpOptions, Proxies};
use simfleet::llm::{ChatRequest, ChatResponse, ChatTransport, ReplayTransport, TransportError};
use simfleet::protocol::{EpisodeRecord, StatsMap};
use simfleet::runner::{has_llm_seats, run_job_concurrently};
use simfleet::{Job, JobResult, RunEnv};

use crate::llm_spend::SpendGate;

/// The variable naming a PEM file of CA certificates trusted besides the system's roots.
pub const CA_FILE_VAR: &str = "SIMFLEET_LLM_CA_FILE";
/// The variable giving how many episodes of a job with `llm` seats `run` plays at once.
pub const CONCURRENCY_VAR: &str = "SIMFLEET_LLM_CONCURRENCY";
/// Episodes of one job with `llm` seats played at once when the variable is unset.
pub const DEFAULT_CONCURRENCY: usize = 64;

/// How often the same failure (endpoint and kind) is reported at most.
const REPORT_EVERY: Duration = Duration::from_secs(60);

/// Reports failed calls on stderr (through the log, at `warn`), rate-limited per endpoint and
/// kind.
struct Reporting {
    inner: Arc<dyn ChatTransport>,
    reported: Mutex<HashMap<(String, &'static str), Instant>>,
}

impl ChatTransport for Reporting {
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, TransportError> {
        let result = self.inner.complete(request);
        if let Err(e) = &result {
            let key = (simfleet::llm::redact_endpoint(&request.endpoint), e.kind());
            let now = Instant::now();
            let mut reported = self.reported.lock().unwrap_or_else(|p| p.into_inner());
            if reported.get(&key).is_none_or(|at| now.duration_since(*at) >= REPORT_EVERY) {
                reported.insert(key.clone(), now);
                tracing::warn!(endpoint = key.0, model = request.model, "llm call failed: {e}");
            }
        }
        result
    }
    fn admit(&self, request: &ChatRequest) {
        self.inner.admit(request)
    }
    fn sleep(&self, delay: Duration) {
        self.inner.sleep(delay)
    }
}

/// The HTTP(S) transport for `llm` seats, shared by the whole process ([`transport`]): what
/// `run`, `replay` and sweep validation hand to a [`RunEnv`].
pub fn llm_transport() -> Option<Arc<dyn ChatTransport>> {
    Some(transport())
}

/// The process's transport for `llm` seats. A CA file that cannot be used is reported once and
/// leaves the transport without it (calls to a server only that CA vouches for then fail with
/// a TLS error naming the endpoint).
pub fn transport() -> Arc<dyn ChatTransport> {
    static SHARED: OnceLock<Arc<dyn ChatTransport>> = OnceLock::new();
    Arc::clone(SHARED.get_or_init(|| {
        let options = HttpOptions {
            ca_file: std::env::var_os(CA_FILE_VAR).filter(|v| !v.is_empty()).map(Into::into),
            proxies: Proxies::from_env(),
            fleet_processes: 1,
            max_idle_per_host: concurrency(),
        };
        let http = simfleet::llm::http::shared(&options).unwrap_or_else(|e| {
            tracing::error!("{CA_FILE_VAR} or a proxy variable is unusable: {e}; llm calls go without it");
            let fallback = HttpOptions { ca_file: None, ..options.clone() };
            simfleet::llm::http::shared(&fallback)
                .or_else(|_| simfleet::llm::http::shared(&HttpOptions::default()))
                .expect("the default transport needs no file and no proxy")
        });
        Arc::new(Reporting { inner: http, reported: Mutex::new(HashMap::new()) })
    }))
}

/// Episodes of one job with `llm` seats played at once (`SIMFLEET_LLM_CONCURRENCY`).
pub fn concurrency() -> usize {
    std::env::var(CONCURRENCY_VAR)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_CONCURRENCY)
}

/// Plays `job` as `coordinator run` does: concurrently when it has `llm` seats, and not at all
/// (a `cancelled` result saying why) once `gate`, the sweep's `llm_max_calls` or
/// `llm_max_dollars`, is reached (jobs already playing finish).
pub fn run_job(job: &Job, env: &RunEnv, gate: Option<&SpendGate<'_>>) -> JobResult {
    if !has_llm_seats(job) {
        return simfleet::run_job(job, env);
    }
    if let Some(why) = gate.and_then(SpendGate::closed) {
        let error = simfleet::JobError::new(simfleet::JobErrorKind::Cancelled, format!("not played: {why}"));
        return JobResult::failed(&env.worker, job.sweep.clone(), job.index, Some(job), error);
    }
    let result = run_job_concurrently(job, env, concurrency());
    if let Some(gate) = gate {
        gate.count(&job.policy_set.seats, &result);
    }
    result
}

/// What a recorded replay found.
#[derive(Debug)]
pub struct RecordedReplay {
    /// The episode's JSON replay.
    pub replay: String,
    /// Calls answered from the record.
    pub calls: u64,
}

/// The record of `job`'s single seed in the results file `records` (same game, scenario and
/// policy set; the sweep's own record when the file holds several sweeps).
fn find_record(records: &Path, job: &Job) -> anyhow::Result<EpisodeRecord> {
    let mut found: Option<(bool, crate::records::Row)> = None;
    crate::records::for_each_row(records, |_, row| {
        let same_cell = row.game == job.game
            && row.scenario == job.scenario
            && row.policy_set == job.policy_set.name
            && row.seed == job.seeds.start;
        let same_sweep = row.sweep == job.sweep;
        if same_cell && found.as_ref().is_none_or(|(s, _)| !s && same_sweep) {
            found = Some((same_sweep, row));
        }
    })
    .with_context(|| format!("cannot read {}", records.display()))?;
    let Some((_, row)) = found else {
        bail!(
            "{} has no record of {} / {} / {} seed {}",
            records.display(),
            job.game,
            job.scenario,
            job.policy_set.name,
            job.seeds.start
        )
    };
    Ok(row.into_record())
}

/// `recorded`'s stats with their keys in the order the game writes them (`order`'s). JSON
/// Lines keep that order already; CSV and Parquet hold the stats as columns in their own order.
/// Keys `order` lacks stay at the end, so a difference still shows.
fn in_order_of(mut recorded: StatsMap, order: &StatsMap) -> StatsMap {
    let mut out = StatsMap::with_capacity(recorded.len());
    for key in order.keys() {
        if let Some(v) = recorded.remove(key) {
            out.insert(key.clone(), v);
        }
    }
    out.extend(recorded);
    out
}

/// Plays `job` (one seed, with `replay` set) again from its record in `records`, answering
/// every model call from the recorded exchanges. Fails unless the replayed record equals the
/// recorded one byte for byte (as JSON, the stats in the game's key order) and every recorded
/// call was made.
pub fn replay_recorded(job: &Job, records: &Path) -> anyhow::Result<RecordedReplay> {
    let recorded = find_record(records, job)?;
    let chat = Arc::new(ReplayTransport::from_llm_stats(recorded.stats.as_map().get("llm"))?);
    let result = simfleet::run_job(job, &RunEnv { chat: Some(chat.clone()), worker: "replay".into(), agents: None });
    if let Some(e) = result.error {
        bail!("the episode could not be played: {e}");
    }
    if let Some(why) = chat.divergence() {
        bail!("the replay left the recording: {why}; was the record made by another engine or prompt version?");
    }
    let replayed = result.records.first().context("the engine returned no record")?;
    let recorded =
        EpisodeRecord { stats: in_order_of(recorded.stats.into_map(), replayed.stats.as_map()).into(), ..recorded };
    let (want, got) = (serde_json::to_string(&recorded)?, serde_json::to_string(replayed)?);
    if want != got {
        bail!("the replayed record differs from the recorded one:\n  recorded: {want}\n  replayed: {got}");
    }
    let replay = result.replays.and_then(|mut r| r.pop()).context("the engine returned no replay")?;
    Ok(RecordedReplay { replay, calls: chat.calls() })
}
