//! Recording one job's metrics from its result, with cached handles.
//!
//! Looking a metric up by name and labels hashes and allocates; a job of 1000 episodes would
//! do that thousands of times. So handles are resolved once per sweep cell (game, scenario,
//! policy set) and kept; outcomes are counted per job before one `increment` each, and the
//! per-episode histograms are tallied per job and merged once ([`crate::histograms`]). The
//! engines never see any of this: everything is derived from the `JobResult` afterwards. For
//! jobs with `llm` seats, the answers the game refused and the fallbacks are read from the
//! records' `llm` stats here (the calls themselves are counted as they happen,
//! [`crate::llm_metrics`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use metrics::{Counter, Gauge};
use simfleet::llm::episodes::{has_llm_seats, is_llm_spec};
use simfleet::{GameKind, Job, JobErrorKind, JobResult, Spec};

use crate::histograms::{self, Series};
use crate::llm_metrics::LlmMetrics;
use crate::telemetry::{
    agent_reward_metric, episode_length_metric, team_reward_metric, EPISODES_TOTAL, JOBS_IN_FLIGHT, JOBS_TOTAL,
    JOB_DURATION_SECONDS, JOB_REDELIVERIES_TOTAL, SWEEP_EPISODES_TOTAL, UNKNOWN_GAME_LABEL,
};

/// The `game` label of a job's game string: the id if known, else [`UNKNOWN_GAME_LABEL`].
pub(crate) fn game_label(game: &str) -> &'static str {
    game.parse::<GameKind>().map_or(UNKNOWN_GAME_LABEL, GameKind::as_str)
}

/// The handles of one sweep cell.
struct Cell {
    game: &'static str,
    scenario: String,
    policy_set: String,
    team_reward: Arc<Series>,
    length: Arc<Series>,
    /// One per seat, labelled with the seat's policy (seats of one policy share a series).
    agent_reward: Vec<Arc<Series>>,
    /// Episodes by outcome label (a game has a handful).
    outcomes: HashMap<String, Counter>,
}

impl Cell {
    fn new(kind: GameKind, job: &Job) -> Cell {
        let scenario = job.scenario.clone();
        let policy_set = job.policy_set.name.clone();
        let registry = histograms::global();
        let labels = [("scenario", scenario.as_str()), ("policy_set", policy_set.as_str())];
        let agent_metric = agent_reward_metric(kind);
        let agent_reward = job
            .policy_set
            .seats
            .iter()
            .map(|seat| {
                let policy = simfleet::policy::metric_label(seat);
                registry.series(&agent_metric, &[("scenario", &scenario), ("policy", &policy)])
            })
            .collect();
        Cell {
            game: kind.as_str(),
            team_reward: registry.series(&team_reward_metric(kind), &labels),
            length: registry.series(&episode_length_metric(kind), &labels),
            agent_reward,
            outcomes: HashMap::new(),
            scenario,
            policy_set,
        }
    }

    fn outcome(&mut self, outcome: &str) -> &Counter {
        if !self.outcomes.contains_key(outcome) {
            let c = metrics::counter!(EPISODES_TOTAL,
                "game" => self.game, "scenario" => self.scenario.clone(),
                "policy_set" => self.policy_set.clone(), "outcome" => outcome.to_string());
            self.outcomes.insert(outcome.to_string(), c);
        }
        &self.outcomes[outcome]
    }
}

/// A sweep cell: game, scenario string, policy set name.
type CellKey = (GameKind, String, String);

/// The worker's metric handles. Shared by every job task; the locks are `std::sync::Mutex`es
/// because nothing awaits while holding them.
pub struct JobMetrics {
    cells: Mutex<HashMap<CellKey, Arc<Mutex<Cell>>>>,
    in_flight: Gauge,
    llm: Arc<LlmMetrics>,
}

impl Default for JobMetrics {
    fn default() -> JobMetrics {
        JobMetrics::new()
    }
}

impl JobMetrics {
    /// Handles on the global recorder (no-ops until one is installed).
    pub fn new() -> JobMetrics {
        JobMetrics::with_llm(Arc::new(LlmMetrics::new()))
    }

    /// The same, sharing `llm`'s handles with the transport that counts the calls.
    pub fn with_llm(llm: Arc<LlmMetrics>) -> JobMetrics {
        JobMetrics { cells: Mutex::new(HashMap::new()), in_flight: metrics::gauge!(JOBS_IN_FLIGHT), llm }
    }

    /// Counts a job in flight until the guard drops.
    pub(crate) fn in_flight(&self) -> InFlight {
        self.in_flight.increment(1.0);
        InFlight(self.in_flight.clone())
    }

    /// A job delivered more than once.
    pub(crate) fn redelivered(&self, game: &str) {
        metrics::counter!(JOB_REDELIVERIES_TOTAL, "game" => game_label(game)).increment(1);
    }

    /// A job answered with an error of `kind` (`game` as the job says, if it says).
    pub(crate) fn job_failed(&self, game: &str, kind: JobErrorKind) {
        metrics::counter!(JOBS_TOTAL, "game" => game_label(game), "status" => "error", "error_kind" => kind.as_str())
            .increment(1);
    }

    /// A job played: its episodes, rewards, lengths and duration, aggregated per job.
    pub fn job_played(&self, job: &Job, result: &JobResult) {
        let game = game_label(&job.game);
        metrics::histogram!(JOB_DURATION_SECONDS, "game" => game).record(result.elapsed_seconds);
        if let Some(e) = &result.error {
            self.job_failed(&job.game, e.kind);
            return;
        }
        metrics::counter!(JOBS_TOTAL, "game" => game, "status" => "ok").increment(1);
        // Once per job, not per episode: the sweep's handle is looked up here. The job's seed
        // count, not its records: a job that collects a summary carries no records.
        metrics::counter!(SWEEP_EPISODES_TOTAL, "sweep" => job.sweep.clone()).increment(job.seeds.count);
        let Ok(kind) = job.game.parse::<GameKind>() else {
            return;
        };
        let key = (kind, job.scenario.clone(), job.policy_set.name.clone());
        let cell = {
            // Poisoning would need a panic while holding the lock, and nothing in here panics.
            let mut cells = self.cells.lock().expect("metrics cache lock");
            cells.entry(key).or_insert_with(|| Arc::new(Mutex::new(Cell::new(kind, job)))).clone()
        };
        let mut cell = cell.lock().expect("metrics cell lock");
        let (mut team, mut length) = (cell.team_reward.tally(), cell.length.tally());
        let mut agents: Vec<_> = cell.agent_reward.iter().map(|s| s.tally()).collect();
        let mut outcomes: Vec<(&str, u64)> = Vec::new();
        for r in &result.records {
            team.record(cell.team_reward.bounds(), r.team_reward);
            length.record(cell.length.bounds(), f64::from(r.length));
            for ((tally, series), reward) in agents.iter_mut().zip(&cell.agent_reward).zip(&r.agent_rewards) {
                tally.record(series.bounds(), *reward);
            }
            match outcomes.iter_mut().find(|(o, _)| *o == r.outcome) {
                Some((_, n)) => *n += 1,
                None => outcomes.push((&r.outcome, 1)),
            }
        }
        cell.team_reward.merge(&team);
        cell.length.merge(&length);
        for (series, tally) in cell.agent_reward.iter().zip(&agents) {
            series.merge(tally);
        }
        for (outcome, n) in outcomes {
            cell.outcome(outcome).increment(n);
        }
        drop(cell);
        if has_llm_seats(job) {
            self.llm_outcomes(kind.as_str(), job, result);
        }
    }

    /// Counts, per `llm` seat, the answers the game refused and the fallbacks of a job's records.
    fn llm_outcomes(&self, game: &'static str, job: &Job, result: &JobResult) {
        for (seat, spec) in job.policy_set.seats.iter().enumerate().filter(|(_, s)| is_llm_spec(s)) {
            let Ok(spec) = Spec::parse(spec) else { continue };
            let (model, endpoint) = (spec.get("model").unwrap_or(""), spec.get("endpoint").unwrap_or(""));
            let key = seat.to_string();
            let (mut refused, mut fell_back) = (0, 0);
            for r in &result.records {
                let stats = r.stats.get("llm").and_then(|l| l.get(&key));
                let count = |k: &str| stats.and_then(|s| s.get(k)).and_then(serde_json::Value::as_u64).unwrap_or(0);
                refused += count("invalid_outputs");
                fell_back += count("fallbacks");
            }
            self.llm.refused(game, model, endpoint, "invalid_output", refused);
            self.llm.fell_back(game, model, endpoint, fell_back);
        }
    }
}

/// Decrements [`JOBS_IN_FLIGHT`] when dropped, whichever way the job ends.
pub(crate) struct InFlight(Gauge);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}
