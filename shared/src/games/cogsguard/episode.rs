//! [`Cogsguard`]: a validated job (scenario + team) that plays episodes by seed.
//!
//! Every buffer (world, layout, observations, actions, streams, policies) lives here and is
//! reused across ticks and episodes; policies are reset per episode, so a seed gives the same
//! record whatever ran before it.

use serde_json::{json, Value};

use crate::games::Episode;
use crate::protocol::{EpisodeRecord, JobError};
use crate::seeding::Stream;
use crate::spec::Spec;

use super::layout::Layout;
use super::mapgen::MapGen;
use super::obs::Observation;
use super::pinky;
use super::policies::{OutsideSeat, Policy, PolicySpec, Roster};
use super::record::Tally;
use super::replay::Replay;
use super::scenario::{MapSource, Scenario};
use super::state::World;

/// The `cogsguard` game, prepared for one job: a boxed [`Engine`] (so that `AnyGame` stays
/// small); every [`Engine`] method is available through `Deref`.
#[derive(Debug)]
pub struct Cogsguard(Box<Engine>);

impl std::ops::Deref for Cogsguard {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.0
    }
}

impl std::ops::DerefMut for Cogsguard {
    fn deref_mut(&mut self) -> &mut Engine {
        &mut self.0
    }
}

impl Cogsguard {
    /// Validates a scenario and a team (one spec per agent); outside seats (`python:…`, an
    /// environment's `agent`) take their transports from `env`.
    pub fn new(scenario: &Spec, team: &[Spec], env: &crate::RunEnv) -> Result<Cogsguard, JobError> {
        Engine::new(scenario, team, env).map(|e| Cogsguard(Box::new(e)))
    }
}

/// The prepared job's state: scenario, policies and every reused buffer.
#[derive(Debug)]
pub struct Engine {
    /// The resolved scenario.
    pub scenario: Scenario,
    seats: Vec<String>,
    policies: Vec<Policy>,
    world: World,
    layout: Layout,
    mapgen: MapGen,
    obs: Vec<Observation>,
    actions: Vec<u8>,
    rngs: Vec<Stream>,
    env: Stream,
    tally: Tally,
    replay: Option<Replay>,
}

impl Engine {
    /// Validates a scenario and a team (one spec per agent).
    pub fn new(scenario: &Spec, team: &[Spec], env: &crate::RunEnv) -> Result<Engine, JobError> {
        let scenario = Scenario::parse(scenario)?;
        let mut transports = Vec::new();
        let mut specs = Vec::new();
        for (i, s) in team.iter().enumerate() {
            match crate::outside::transport_for("cogsguard", i, s, env) {
                Some(t) => {
                    transports.push(Some(t?));
                    specs.push(None);
                }
                None => {
                    transports.push(None);
                    specs.push(Some(PolicySpec::parse(i, s)?));
                }
            }
        }
        if specs.len() != scenario.num_agents {
            return Err(JobError::invalid(
                "policy_set",
                specs.len(),
                format!("the scenario has {} agents: give one policy per agent", scenario.num_agents),
            ));
        }
        // Rank: earlier seats with an identical spec after parsing (§13.3).
        let roster: Roster = std::sync::Arc::new(std::sync::Mutex::new(specs.clone()));
        let policies = transports
            .into_iter()
            .enumerate()
            .map(|(i, t)| match (t, &specs[i]) {
                (Some(t), _) => Policy::Outside(Box::new(OutsideSeat::new(i, &team[i], t, roster.clone()))),
                (None, Some(spec)) => {
                    Policy::new(spec, i, specs[..i].iter().filter(|s| s.as_ref() == Some(spec)).count())
                }
                (None, None) => unreachable!("a seat without a transport has a spec"),
            })
            .collect();
        let n = scenario.num_agents;
        let layout = match &scenario.source {
            MapSource::Ascii(l) => l.clone(),
            MapSource::Generated(_) => Layout::default(),
        };
        Ok(Engine {
            seats: team.iter().map(|s| s.to_string()).collect(),
            policies,
            world: World::default(),
            layout,
            mapgen: MapGen::default(),
            obs: vec![Observation::default(); n],
            actions: vec![0; n],
            rngs: (0..n).map(|i| Stream::agent(0, i)).collect(),
            env: Stream::env(0),
            tally: Tally::default(),
            replay: None,
            scenario,
        })
    }

    /// The world (read-only), e.g. for tests and benches.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The policies by seat.
    pub fn policies(&self) -> &[Policy] {
        &self.policies
    }

    /// The observations of the last tick by seat (only seats whose policy reads them are built).
    pub fn observations(&self) -> &[Observation] {
        &self.obs
    }

    /// (address, capacity) of every buffer the engine and the policies hold: equal before and
    /// after a run of ticks ⇔ nothing was (re)allocated by those ticks.
    pub fn buffer_fingerprint(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        self.world.buffers(&mut out);
        out.push((self.obs.as_ptr() as usize, self.obs.capacity()));
        out.push((self.actions.as_ptr() as usize, self.actions.capacity()));
        for p in &self.policies {
            if let Policy::Pinky(p) = p {
                p.buffers(&mut out);
            }
        }
        out
    }

    /// Starts episode `seed`: map, world, streams, policies, first observations.
    pub fn begin(&mut self, seed: u64, replay: bool) {
        if let MapSource::Generated(p) = &self.scenario.source {
            self.mapgen.generate(&mut self.layout, seed, p);
        }
        self.world.load(&self.layout, self.scenario.max_steps, self.scenario.clips);
        self.world.log_events = replay;
        self.env = Stream::env(seed);
        for (i, rng) in self.rngs.iter_mut().enumerate() {
            *rng = Stream::agent(seed, i);
        }
        for p in &mut self.policies {
            p.begin(seed);
        }
        self.tally = Tally::default();
        self.replay = replay.then(|| Replay::new(&self.world));
        self.observe();
    }

    fn observe(&mut self) {
        if !self.policies.iter().any(Policy::needs_obs) {
            return;
        }
        let vibes = self.world.team_vibes();
        for (i, p) in self.policies.iter().enumerate() {
            if p.needs_obs() {
                self.world.observe(i, vibes, &mut self.obs[i]);
            }
        }
    }

    /// Plays one tick (policies act, the world steps, the tally is fed); false once the episode
    /// is over.
    pub fn advance(&mut self) -> bool {
        if self.world.done() {
            return false;
        }
        let debug = self.replay.is_some();
        for i in 0..self.policies.len() {
            self.actions[i] = self.policies[i].act(&self.obs[i], &mut self.rngs[i], debug);
        }
        // Policies only return ids in 0..=11, so the step cannot be refused.
        self.world.step(&self.actions, &mut self.env).expect("policies return legal action ids");
        self.tally.tick(&self.world);
        if let Some(r) = &mut self.replay {
            r.tick(&self.world, &self.policies);
        }
        if !self.world.done() {
            self.observe();
        }
        !self.world.done()
    }

    /// The record of the episode played so far (complete once [`Engine::advance`] is false).
    pub fn record(&self, seed: u64) -> EpisodeRecord {
        let pinkies = self.policies.iter().filter_map(|p| match p {
            Policy::Pinky(p) => Some(&**p),
            Policy::Outside(o) => match o.builtin_policy() {
                Some(Policy::Pinky(p)) => Some(&**p),
                _ => None,
            },
            _ => None,
        });
        let mut record = self.tally.record(&self.world, seed, pinky::occupancy_json(pinkies));
        let outside = self.policies.iter().enumerate().filter_map(|(s, p)| p.outside_faults().map(|f| (s, f)));
        crate::outside::add_faults(&mut record, outside);
        record
    }

    /// Plays one whole episode.
    pub fn play_episode(&mut self, seed: u64, replay: bool) -> Episode {
        self.begin(seed, replay);
        while self.advance() {}
        let record = self.record(seed);
        let replay = self.replay.take().map(|r| {
            let policies: Vec<Value> = self.seats.iter().map(|s| json!(s)).collect();
            r.finish(seed, &self.scenario, policies, &record)
        });
        Episode { record, replay }
    }
}
