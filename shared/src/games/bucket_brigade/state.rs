//! The town between nights: houses, where agents stand, what they did, and the running
//! totals. [`Town::step`] plays one night once the agents have signalled and acted (§4 steps
//! 3 to 10): validation, the physics of rules.rs, rewards, bookkeeping and termination.
//!
//! `Town` is `Copy`: it owns no heap buffer, so stepping never allocates. The policy loop
//! (episode.rs) is a thin layer on top; tests drive `step` directly with scripted signals,
//! actions and injected draws.

use crate::seeding::Fnv64;

use super::action::{Action, LastAction, Mode};
use super::draws::NightDraws;
use super::house::{Houses, NUM_HOUSES};
use super::house_set::{Fires, HouseSet};
use super::observation::Observation;
use super::rewards::{self, Rewards};
use super::rules::{self, NightPhases, PhaseFires};
use super::scenario::{Scenario, MAX_AGENTS, MAX_NIGHTS};

/// Why an episode ended (§5); the `termination_reason` stat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// Quiet town with at least one house not Ruined.
    NoFires,
    /// Quiet because all ten houses are Ruined.
    AllRuined,
    /// Night 100 ended with a house still Burning (`truncated`).
    MaxNights,
}

impl Termination {
    /// The stat value: `no_fires`, `all_ruined` or `max_nights`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Termination::NoFires => "no_fires",
            Termination::AllRuined => "all_ruined",
            Termination::MaxNights => "max_nights",
        }
    }

    /// Whether the episode was cut by the night limit.
    pub const fn truncated(self) -> bool {
        matches!(self, Termination::MaxNights)
    }
}

/// Why [`Town::step`] refused a night. The town is unchanged when it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    /// The episode has already ended.
    #[error("the episode is over")]
    Finished,
    /// Not exactly one signal and one action per agent.
    #[error("expected {expected} signals and actions, got {signals} and {actions}")]
    WrongCount {
        /// N.
        expected: usize,
        /// Signals given.
        signals: usize,
        /// Actions given.
        actions: usize,
    },
    /// The scenario passed to `step` is for another number of agents than the town's.
    #[error("the town has {town} agents but the scenario has {scenario}")]
    ScenarioMismatch {
        /// The town's N.
        town: usize,
        /// The scenario's `num_agents`.
        scenario: usize,
    },
    /// An action names a house outside 0..9 (an engine error, never repaired).
    #[error("agent {seat} chose house {house}, outside 0..9")]
    HouseOutOfRange {
        /// The agent.
        seat: usize,
        /// The house it chose.
        house: u8,
    },
}

/// What one night did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NightReport {
    /// t, 1-based.
    pub night: u32,
    /// S_t^start.
    pub houses_before: Houses,
    /// The houses after each phase (`phases.end` = S_t^end).
    pub phases: NightPhases,
    /// r_i(t) as credited: in the `seed` model night T includes the terminal payout E_i.
    pub rewards: Rewards,
    /// Set when this night ended the episode.
    pub end: Option<Termination>,
}

/// What one night did, as the night loop computes it: the town as sets before and after each
/// phase. [`Night::report`] turns it into the [`NightReport`] a replay or a test reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Night {
    /// t, 1-based.
    pub night: u32,
    /// S_t^start.
    pub before: Fires,
    /// The town after each phase.
    pub phases: PhaseFires,
    /// r_i(t) as credited.
    pub rewards: Rewards,
    /// Set when this night ended the episode.
    pub end: Option<Termination>,
}

impl Night {
    /// The night as house states.
    pub fn report(&self) -> NightReport {
        NightReport {
            night: self.night,
            houses_before: self.before.houses(),
            phases: self.phases.houses(),
            rewards: self.rewards,
            end: self.end,
        }
    }
}

/// The state of an episode between nights.
#[derive(Clone, Copy, Debug)]
pub struct Town {
    agents: usize,
    night: u32,
    initial: Houses,
    /// The current houses, as agents observe them…
    houses: Houses,
    /// …and as the rules compute with them.
    fires: Fires,
    locations: [u8; MAX_AGENTS],
    last: Option<[LastAction; MAX_AGENTS]>,
    work_nights: [u32; MAX_AGENTS],
    lies: [u32; MAX_AGENTS],
    totals: Rewards,
    hash: Fnv64,
    end: Option<Termination>,
}

impl Town {
    /// A town before night 1 (§3): `initial` houses, agent i at house i, no previous night.
    /// The trajectory hash starts with the ten initial states.
    ///
    /// # Panics
    ///
    /// If `agents` is outside 4..=10 (a validated scenario never is).
    pub fn new(agents: usize, initial: Houses) -> Town {
        assert!((4..=MAX_AGENTS).contains(&agents), "num_agents {agents} outside 4..=10");
        let mut hash = Fnv64::new();
        for s in initial {
            hash.u8(s.code());
        }
        Town {
            agents,
            night: 0,
            initial,
            houses: initial,
            fires: Fires::of(&initial),
            locations: std::array::from_fn(|i| i as u8),
            last: None,
            work_nights: [0; MAX_AGENTS],
            lies: [0; MAX_AGENTS],
            totals: [0.0; MAX_AGENTS],
            hash,
            end: None,
        }
    }

    /// Plays one night with these signals and actions (one per agent, in seat order) and
    /// environment draws: steps 3 to 10 of §4. Everything is checked before anything changes.
    pub fn step(
        &mut self,
        sc: &Scenario,
        draws: &NightDraws,
        signals: &[Mode],
        actions: &[Action],
    ) -> Result<NightReport, StepError> {
        self.advance(sc, draws, signals, actions).map(|night| night.report())
    }

    /// [`Town::step`] without building the report's house arrays: what the policy loop runs.
    #[inline]
    pub fn advance(
        &mut self,
        sc: &Scenario,
        draws: &NightDraws,
        signals: &[Mode],
        actions: &[Action],
    ) -> Result<Night, StepError> {
        let n = self.agents;
        if self.end.is_some() {
            return Err(StepError::Finished);
        }
        if sc.num_agents != n {
            return Err(StepError::ScenarioMismatch { town: n, scenario: sc.num_agents });
        }
        if signals.len() != n || actions.len() != n {
            return Err(StepError::WrongCount { expected: n, signals: signals.len(), actions: actions.len() });
        }
        if let Some((seat, a)) = actions.iter().enumerate().find(|(_, a)| usize::from(a.house) >= NUM_HOUSES) {
            return Err(StepError::HouseOutOfRange { seat, house: a.house });
        }

        let t = self.night + 1;
        let before = self.fires;
        let phases = rules::resolve_fires(sc, before, actions, draws);
        let mut rewards = rewards::nightly_fires(sc, before, phases.end, actions);
        let end = termination_fires(sc, t, phases.end);
        if end.is_some() {
            // E_i is credited on night T so that each agent's nightly rewards sum to R_i.
            let e = rewards::terminal_fires(sc, phases.end);
            for i in 0..n {
                rewards[i] += e[i];
            }
        }

        // The hash is a chain of dependent multiplications: kept in a local so that it stays in
        // a register through the loops below (as a field it was stored and reloaded for every
        // agent, a store-to-load delay on the chain).
        let mut hash = self.hash;
        hash.u32(t);
        let mut last = [LastAction { house: 0, mode: Mode::Rest, signal: Mode::Rest }; MAX_AGENTS];
        for i in 0..n {
            let (s, a) = (signals[i], actions[i]);
            hash.u8(s.code());
            hash.u8(a.house);
            hash.u8(a.mode.code());
            self.lies[i] += u32::from(s != a.mode);
            self.work_nights[i] += u32::from(a.mode == Mode::Work);
            self.totals[i] += rewards[i];
            self.locations[i] = a.house;
            last[i] = LastAction { house: a.house, mode: a.mode, signal: s };
        }
        // Only the houses whose state changed are rewritten: most nights, none or one.
        let (now, was) = (phases.end, before);
        for h in ((now.burning ^ was.burning) | (now.ruined ^ was.ruined)).iter() {
            self.houses[h] = now.state(h);
        }
        // The ten end states: a Safe house's code is 0, so each run of Safe houses is fed as
        // one multiplication and only the others (most nights a few) byte by byte.
        let mut next = 0;
        for h in (now.burning | now.ruined).iter() {
            hash.zeros(h - next);
            hash.u8(self.houses[h].code());
            next = h + 1;
        }
        hash.zeros(NUM_HOUSES - next);
        self.hash = hash;
        self.last = Some(last);
        self.fires = phases.end;
        self.night = t;
        self.end = end;
        Ok(Night { night: t, before, phases, rewards, end })
    }

    /// What agent `agent` observes before the coming night (§7); `signals` is `None` in the
    /// signal phase and this night's N signals in the action phase.
    #[inline]
    pub fn observation<'a>(&'a self, sc: &'a Scenario, agent: usize, signals: Option<&'a [Mode]>) -> Observation<'a> {
        Observation {
            night: self.night + 1,
            agent_id: agent,
            houses: &self.houses,
            locations: &self.locations[..self.agents],
            last_actions: self.last.as_ref().map(|l| &l[..self.agents]),
            signals,
            scenario: sc,
        }
    }

    /// N.
    pub fn agents(&self) -> usize {
        self.agents
    }
    /// Nights played so far (T once the episode has ended).
    pub fn nights(&self) -> u32 {
        self.night
    }
    /// The houses before night 1.
    pub fn initial(&self) -> &Houses {
        &self.initial
    }
    /// The current houses (S^fin once the episode has ended).
    pub fn houses(&self) -> &Houses {
        &self.houses
    }
    /// Why the episode ended, once it has.
    pub fn end(&self) -> Option<Termination> {
        self.end
    }
    /// R_i so far, one per agent.
    pub fn totals(&self) -> &[f64] {
        &self.totals[..self.agents]
    }
    /// Nights each agent worked.
    pub fn work_nights(&self) -> &[u32] {
        &self.work_nights[..self.agents]
    }
    /// Nights each agent's signal differed from its mode.
    pub fn lies(&self) -> &[u32] {
        &self.lies[..self.agents]
    }
    /// The trajectory hash so far.
    pub fn hash(&self) -> Fnv64 {
        self.hash
    }
    /// R_team of the active model (meaningful once the episode has ended).
    pub fn team_reward(&self, sc: &Scenario) -> f64 {
        rewards::team(sc, &self.houses, self.work_nights().iter().sum(), self.totals())
    }
}

/// §5: after night t, whether and why the episode ends.
pub fn termination(sc: &Scenario, t: u32, end: &Houses) -> Option<Termination> {
    termination_fires(sc, t, Fires::of(end))
}

#[inline]
fn termination_fires(sc: &Scenario, t: u32, end: Fires) -> Option<Termination> {
    let quiet = end.burning.is_empty();
    if quiet && (t > sc.min_nights || t == MAX_NIGHTS) {
        Some(if end.ruined == HouseSet::ALL { Termination::AllRuined } else { Termination::NoFires })
    } else if t == MAX_NIGHTS {
        Some(Termination::MaxNights)
    } else {
        None
    }
}
