//! Bucket Brigade (`bucket_brigade-rules-1`): cooperative firefighting on a ring of ten
//! houses, with cheap talk. The rules are the files of this folder, pinned by the golden
//! fixtures (`shared/tests/golden/`); section marks (§) below number the rules `bucket_brigade-rules-1`.
//!
//! # Layout (one noun per file)
//!
//! - `house.rs`: house states and the ring (§1); `house_set.rs`: sets of houses as bits.
//! - `action.rs`: modes (REST/WORK), actions, last actions.
//! - `scenario.rs`: the scenario, its overrides and validation (§2); `named.rs`: the fifteen
//!   named scenarios (§11).
//! - `draws.rs`: the environment's draws, a fixed 20 (or 40) per night (§9).
//! - `rules.rs`: one night's physics: extinguish, burn-out, spread, ignition (§4 steps 4–7).
//! - `rewards.rs`: the `seed` and `reference` reward models (§6).
//! - `state.rs`: [`Town`], one night at a time ([`Town::advance`]), termination (§5), the
//!   trajectory hash.
//! - `observation.rs`: what agents see (§7).
//! - `policies/`: `random`, `heuristic`, the archetypes and their spec strings (§8).
//! - `episode.rs`: the policy loop on top of `Town::advance`.
//! - `stepper.rs`: the same loop one phase at a time, with some seats' choices given from
//!   outside (the Python environments); `view.rs`: an observation as owned data and codes.
//! - `record.rs`, `replay.rs`: the outputs (§10).
//!
//! A job's episodes are played by [`BucketBrigade`]: `prepare` validates the scenario and the
//! team once, `play(seed, replay)` is then a pure function of the seed.

use crate::games::{Buckets, Episode, Game, GameInfo, GameKind, LlmDecisions};
use crate::protocol::JobError;
use crate::spec::Spec;
use crate::RunEnv;

mod action;
mod draws;
mod episode;
mod house;
mod house_set;
mod named;
mod observation;
mod outside;
pub mod policies;
mod record;
mod replay;
mod rewards;
mod rules;
mod scenario;
mod state;
mod stats;
mod stepper;
mod view;

#[cfg(test)]
mod tests;

pub use action::{Action, LastAction, Mode};
pub use draws::{initial_houses, NightDraws, LEFT, RIGHT};
pub use episode::{play as play_episode, NightLog, Seat};
pub use house::{distance, House, Houses, ALL_SAFE, NUM_HOUSES};
pub use house_set::{Fires, HouseSet};
pub use named::NAMES as SCENARIO_NAMES;
pub use observation::Observation;
pub use policies::{AnyPolicy, Archetype, HeuristicPolicy, Params, Policy, RandomPolicy};
pub use record::{outcome, STAT_KEYS};
pub use rewards::Rewards;
pub use rules::{resolve, save_probability, NightPhases, PhaseFires};
pub use scenario::{field_defaults, FieldValue, RewardModel, Scenario, FIELDS, MAX_AGENTS, MAX_NIGHTS, MIN_AGENTS};
pub use state::{termination, Night, NightReport, StepError, Termination, Town};
pub use stepper::{Choice, Phase, PhaseOutcome, ScriptedSeat, Stepper};
pub use view::{Codes, CodesMut, View, ViewError};

/// The game id.
pub const GAME_ID: &str = "bucket_brigade";
/// The rules version of this engine.
pub const RULES_VERSION: &str = "bucket_brigade-rules-1";
/// Episodes per job when a sweep does not say: a job of random `default` episodes (about 13
/// nights each) then takes a few milliseconds, long enough to amortise a message.
pub const DEFAULT_EPISODES_PER_JOB: u64 = 1000;

/// The `bucket_brigade` game, prepared for one job: a validated scenario and team.
#[derive(Debug)]
pub struct BucketBrigade {
    /// Boxed to keep `AnyGame`'s variants of similar size.
    scenario: Box<Scenario>,
    seats: Vec<Seat>,
    /// The team's spec strings by seat, for replays.
    policies: Vec<String>,
    /// Reused by every replayed episode.
    log: Vec<NightLog>,
    /// The team when it has `python:` seats: then it plays instead of `seats`.
    outside: Option<Box<outside::OutsideTeam>>,
}

/// A team must have exactly `num_agents` seats.
fn check_team_size(sc: &Scenario, seats: usize) -> Result<(), JobError> {
    if seats == sc.num_agents {
        return Ok(());
    }
    let reason = format!("the team has {seats} seats but scenario.num_agents = {}", sc.num_agents);
    Err(JobError::invalid("policy_set", seats, reason))
}

impl BucketBrigade {
    /// Seats `team` (one policy per agent) in a validated scenario.
    pub fn new(scenario: Scenario, team: &[(AnyPolicy, String)]) -> Result<BucketBrigade, JobError> {
        scenario.validate()?;
        check_team_size(&scenario, team.len())?;
        Ok(BucketBrigade {
            scenario: Box::new(scenario),
            seats: team.iter().map(|(p, _)| Seat::new(*p)).collect(),
            policies: team.iter().map(|(_, s)| s.clone()).collect(),
            log: Vec::new(),
            outside: None,
        })
    }

    /// Parses and validates a scenario spec and one policy spec string per seat.
    pub fn from_strs(scenario: &str, team: &[&str]) -> Result<BucketBrigade, JobError> {
        let sc = Spec::parse(scenario).map_err(|e| JobError::invalid("scenario", scenario, e.message))?;
        let team = team
            .iter()
            .enumerate()
            .map(|(seat, s)| Spec::parse(s).map_err(|e| JobError::invalid(format!("policy_set[{seat}]"), s, e.message)))
            .collect::<Result<Vec<_>, _>>()?;
        BucketBrigade::prepare(&sc, &team, &RunEnv::default())
    }

    /// A team with outside seats (`python:`, `wasm:`): each seat's transport is started now (a
    /// host process, its class loaded; a module instantiated), so one that cannot be is refused
    /// here, before any episode.
    fn with_outside(sc: Scenario, team: &[Spec], env: &RunEnv) -> Result<BucketBrigade, JobError> {
        let entries = team
            .iter()
            .enumerate()
            .map(|(seat, spec)| match crate::outside::transport_for("bucket_brigade", seat, spec, env) {
                Some(t) => t.map(Err),
                None => AnyPolicy::from_spec(seat, spec).map(Ok),
            })
            .collect::<Result<Vec<_>, JobError>>()?;
        let placeholders: Vec<_> =
            team.iter().map(|spec| (AnyPolicy::Random(RandomPolicy), spec.to_string())).collect();
        let mut game = BucketBrigade::new(sc, &placeholders)?;
        game.outside = Some(Box::new(outside::OutsideTeam::start(sc, entries)));
        Ok(game)
    }

    /// The resolved scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Plays the episode of `seed` and returns the finished town, without building a record:
    /// the engine alone, as the bench measures it.
    pub fn play_town(&mut self, seed: u64) -> Town {
        episode::play(&self.scenario, &mut self.seats, seed, None)
    }
}

impl Game for BucketBrigade {
    const INFO: GameInfo = GameInfo {
        kind: GameKind::BucketBrigade,
        rules_version: RULES_VERSION,
        scenarios: &named::ENTRIES,
        policies: &policies::ENTRIES,
        stat_keys: &record::STAT_KEYS,
        win_outcome: Some(record::SUCCESS),
        outcomes: &[record::SUCCESS, record::FAILURE],
        buckets: Buckets {
            team_reward: &[
                -3000.0, -1000.0, -300.0, -100.0, 0.0, 50.0, 75.0, 90.0, 100.0, 300.0, 1000.0, 2000.0, 3000.0, 4000.0,
                5000.0, 10000.0,
            ],
            length: &[11.0, 13.0, 14.0, 15.0, 16.0, 18.0, 21.0, 25.0, 30.0, 40.0, 60.0, 100.0],
            agent_reward: &[
                -1000.0, -300.0, -100.0, 0.0, 50.0, 100.0, 125.0, 150.0, 200.0, 300.0, 500.0, 1000.0, 2000.0, 5000.0,
            ],
        },
        summary_scale: 100,
        llm_decisions: LlmDecisions::fixed(5.0),
    };

    /// Resolves the scenario (§2), checks the team size, then parses each seat's policy (§8.4).
    fn prepare(scenario: &Spec, team: &[Spec], env: &RunEnv) -> Result<BucketBrigade, JobError> {
        let sc = Scenario::from_spec(scenario)?;
        // Before any seat is parsed, so a wrong-sized team is reported as such.
        check_team_size(&sc, team.len())?;
        if team.iter().any(crate::outside::is_outside) {
            return BucketBrigade::with_outside(sc, team, env);
        }
        let seated = team
            .iter()
            .enumerate()
            .map(|(seat, spec)| Ok((AnyPolicy::from_spec(seat, spec)?, spec.to_string())))
            .collect::<Result<Vec<_>, JobError>>()?;
        BucketBrigade::new(sc, &seated)
    }

    fn default_episodes_per_job(_scenario: &Spec) -> u64 {
        DEFAULT_EPISODES_PER_JOB
    }

    fn play(&mut self, seed: u64, replay: bool) -> Episode {
        let sc = *self.scenario;
        if let Some(team) = &mut self.outside {
            let record = team.play(seed, replay.then_some(&mut self.log));
            let initial = team.stepper().town().initial();
            let replay = replay.then(|| replay::render(seed, &sc, &self.policies, initial, &self.log, &record));
            return Episode { record, replay };
        }
        let town = episode::play(&sc, &mut self.seats, seed, replay.then_some(&mut self.log));
        let record = record::build(seed, &sc, &town);
        let replay = replay.then(|| replay::render(seed, &sc, &self.policies, town.initial(), &self.log, &record));
        Episode { record, replay }
    }
}
