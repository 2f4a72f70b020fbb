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
use simfleet::policy::is_llm_spec;
use simfleet::runner::has_llm_seats;
use simfleet::{EpisodeRecord, GameKind, Job, JobErrorKind, JobResult, Spec};

use crate::histograms::{self, Series, Tally};
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
        let tally = if result.error.is_none() { self.tally_of(job, &result.records) } else { None };
        self.job_done(job, result, tally.into_iter().collect());
    }

    /// [`JobMetrics::tally`] fed `records`.
    pub(crate) fn tally_of(&self, job: &Job, records: &[EpisodeRecord]) -> Option<JobTally> {
        let mut tally = self.tally(job)?;
        for r in records {
            tally.add(r);
        }
        Some(tally)
    }

    /// An empty tally of `job`'s episodes, to be fed record by record ([`JobTally::add`]) while
    /// it plays and recorded by [`JobMetrics::job_done`]; `None` for a game this build does not
    /// know.
    pub fn tally(&self, job: &Job) -> Option<JobTally> {
        let kind = job.game.parse::<GameKind>().ok()?;
        let key = (kind, job.scenario.clone(), job.policy_set.name.clone());
        let cell = {
            // Poisoning would need a panic while holding the lock, and nothing in here panics.
            let mut cells = self.cells.lock().expect("metrics cache lock");
            cells.entry(key).or_insert_with(|| Arc::new(Mutex::new(Cell::new(kind, job)))).clone()
        };
        let (team_reward, length, agent_reward) = {
            let c = cell.lock().expect("metrics cell lock");
            (Arc::clone(&c.team_reward), Arc::clone(&c.length), c.agent_reward.clone())
        };
        let llm_seats = if has_llm_seats(job) { LlmSeat::of(job) } else { Vec::new() };
        Some(JobTally {
            team: team_reward.tally(),
            length: length.tally(),
            agents: agent_reward.iter().map(|s| s.tally()).collect(),
            team_reward,
            length_series: length,
            agent_reward,
            outcomes: Vec::new(),
            llm_seats,
            kind,
            cell,
        })
    }

    /// Records a job that played (or failed): its duration, and for a played job its count and
    /// `tallies` (one per policy set it played), made by [`JobMetrics::tally`] and fed the job's
    /// records.
    pub fn job_done(&self, job: &Job, result: &JobResult, tallies: Vec<JobTally>) {
        let game = game_label(&job.game);
        metrics::histogram!(JOB_DURATION_SECONDS, "game" => game).record(result.elapsed_seconds);
        if let Some(e) = &result.error {
            self.job_failed(&job.game, e.kind);
            return;
        }
        metrics::counter!(JOBS_TOTAL, "game" => game, "status" => "ok").increment(1);
        // Once per job, not per episode: the sweep's handle is looked up here. The job's seed
        // count, not its records: a job that collects a summary carries no records.
        let sets = job.policy_sets().count() as u64;
        metrics::counter!(SWEEP_EPISODES_TOTAL, "sweep" => job.sweep.clone()).increment(job.seeds.count * sets);
        for t in tallies {
            self.record_tally(t);
        }
    }

    /// Adds one policy set's tally of a played job to its series.
    fn record_tally(&self, t: JobTally) {
        t.team_reward.merge(&t.team);
        t.length_series.merge(&t.length);
        for (series, tally) in t.agent_reward.iter().zip(&t.agents) {
            series.merge(tally);
        }
        let mut cell = t.cell.lock().expect("metrics cell lock");
        for (outcome, n) in &t.outcomes {
            cell.outcome(outcome).increment(*n);
        }
        drop(cell);
        for seat in &t.llm_seats {
            self.llm.refused(t.kind.as_str(), &seat.model, &seat.endpoint, "invalid_output", seat.refused);
            self.llm.fell_back(t.kind.as_str(), &seat.model, &seat.endpoint, seat.fell_back);
        }
    }
}

/// One job's per-episode metrics, counted record by record and recorded once
/// ([`JobMetrics::job_done`]): histogram tallies, episodes per outcome and, for jobs with `llm`
/// seats, the answers the game refused and the fallbacks, read from the records' `llm` stats.
pub struct JobTally {
    team: Tally,
    length: Tally,
    agents: Vec<Tally>,
    team_reward: Arc<Series>,
    length_series: Arc<Series>,
    /// One per seat.
    agent_reward: Vec<Arc<Series>>,
    /// Episodes by outcome label, in first-seen order (a game has a handful).
    outcomes: Vec<(String, u64)>,
    llm_seats: Vec<LlmSeat>,
    kind: GameKind,
    cell: Arc<Mutex<Cell>>,
}

impl JobTally {
    /// Counts one episode.
    pub fn add(&mut self, r: &EpisodeRecord) {
        self.team.record(self.team_reward.bounds(), r.team_reward);
        self.length.record(self.length_series.bounds(), f64::from(r.length));
        for ((tally, series), reward) in self.agents.iter_mut().zip(&self.agent_reward).zip(&r.agent_rewards) {
            tally.record(series.bounds(), *reward);
        }
        match self.outcomes.iter_mut().find(|(o, _)| *o == r.outcome) {
            Some((_, n)) => *n += 1,
            None => self.outcomes.push((r.outcome.clone(), 1)),
        }
        for seat in &mut self.llm_seats {
            let stats = r.stats.as_map().get("llm").and_then(|l| l.get(&seat.key));
            let count = |k: &str| stats.and_then(|s| s.get(k)).and_then(serde_json::Value::as_u64).unwrap_or(0);
            seat.refused += count("invalid_outputs");
            seat.fell_back += count("fallbacks");
        }
    }
}

/// An `llm` seat of a job, and what its answers cost so far.
struct LlmSeat {
    /// The seat, as the records' `llm` stats key it.
    key: String,
    model: String,
    endpoint: String,
    refused: u64,
    fell_back: u64,
}

impl LlmSeat {
    /// The `llm` seats of `job`.
    fn of(job: &Job) -> Vec<LlmSeat> {
        let seats = job.policy_set.seats.iter().enumerate().filter(|(_, s)| is_llm_spec(s));
        seats
            .filter_map(|(seat, spec)| {
                let spec = Spec::parse(spec).ok()?;
                Some(LlmSeat {
                    key: seat.to_string(),
                    model: spec.get("model").unwrap_or("").to_string(),
                    endpoint: spec.get("endpoint").unwrap_or("").to_string(),
                    refused: 0,
                    fell_back: 0,
                })
            })
            .collect()
    }
}

/// Decrements [`JOBS_IN_FLIGHT`] when dropped, whichever way the job ends.
pub(crate) struct InFlight(Gauge);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}
