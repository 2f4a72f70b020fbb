//! Bucket Brigade one decision phase at a time, for agents outside the engine (the Python
//! environments): the same draws, seat streams and [`Town::advance`] as episode.rs, with the
//! choices of some seats given by the caller.
//!
//! A night is two phases, as in episode.rs: every seat signals (seeing no signal of the
//! night), then every seat acts (seeing all N signals). An outside seat therefore decides
//! twice a night, so that it sees exactly what a scripted policy sees. The invariant the
//! Python tests hold: with the actions the scripted policies would choose, a stepped episode
//! is the episode `play` gives for that seed, record for record.

use crate::protocol::EpisodeRecord;
use crate::seeding::{agent_stream, Stream};

use super::action::{Action, Mode};
use super::draws::{self, NightDraws};
use super::episode::{NightLog, Seat};
use super::house::NUM_HOUSES;
use super::policies::{AnyPolicy, Policy};
use super::record;
use super::scenario::{Scenario, MAX_AGENTS};
use super::state::{Night, StepError, Town};
use super::view::{CodesMut, View};

/// Which decision the seats make next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Every seat says REST or WORK.
    Signal = 0,
    /// Every seat picks a house and a mode, having seen the night's signals.
    Act = 1,
}

/// What one seat decides in a phase: in the signal phase only `signal` is read, in the act
/// phase only `house` and `mode` (the action space is the same in both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// REST 0 or WORK 1.
    pub signal: Mode,
    /// 0..9.
    pub house: u8,
    /// REST 0 or WORK 1.
    pub mode: Mode,
}

/// What a phase did: the rewards of the night (zero after a signal phase) and the end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseOutcome {
    /// r_i(t) of every seat, credited when a night ends (the act phase).
    pub rewards: [f64; MAX_AGENTS],
    /// The episode ended with this phase (a quiet town: terminated).
    pub terminated: bool,
    /// The episode was cut at the night limit (truncated).
    pub truncated: bool,
}

/// An episode stepped from outside: scripted seats decide inside, outside seats are given.
#[derive(Clone, Debug)]
pub struct Stepper {
    sc: Scenario,
    /// One per seat; `None` is an outside seat.
    seats: Vec<Option<Seat>>,
    /// How many seats are outside seats.
    outside: usize,
    town: Town,
    env: Stream,
    draws: NightDraws,
    phase: Phase,
    signals: [Mode; MAX_AGENTS],
    seed: u64,
    /// The last night played and its actions, for a replay's log (kept only when asked).
    last: Option<(Night, [Action; MAX_AGENTS])>,
    keep_last: bool,
}

impl Stepper {
    /// A stepper over a validated scenario, one entry per seat (`None`: an outside seat).
    ///
    /// # Panics
    ///
    /// If `team.len()` differs from `num_agents` (the callers check it with a typed error).
    pub fn new(sc: Scenario, team: &[Option<AnyPolicy>]) -> Stepper {
        assert_eq!(team.len(), sc.num_agents, "one entry per seat");
        let mut stepper = Stepper {
            seats: team.iter().map(|p| p.map(Seat::new)).collect(),
            outside: team.iter().filter(|p| p.is_none()).count(),
            town: Town::new(sc.num_agents, super::house::ALL_SAFE),
            env: Stream::env(0),
            draws: NightDraws::QUIET,
            phase: Phase::Signal,
            signals: [Mode::Rest; MAX_AGENTS],
            seed: 0,
            last: None,
            keep_last: false,
            sc,
        };
        stepper.reset(0);
        stepper
    }

    /// Starts the episode of `seed`, exactly as `play` starts it.
    pub fn reset(&mut self, seed: u64) {
        let sc = &self.sc;
        self.seed = seed;
        self.env = Stream::env(seed);
        self.town = Town::new(sc.num_agents, draws::initial_houses(&mut self.env, sc.prob_house_catches_fire));
        for (i, seat) in self.seats.iter_mut().enumerate() {
            if let Some(seat) = seat {
                seat.rng.reset(seed, agent_stream(i));
                seat.policy.reset(i, sc);
            }
        }
        self.draws.fill(&mut self.env, sc.spread_before_burnout);
        self.phase = Phase::Signal;
        self.last = None;
    }

    /// Whether [`Stepper::last_night`] is kept (a replay's log); off, a batch of environments
    /// does not copy every night.
    pub fn keep_last_night(&mut self, keep: bool) {
        self.keep_last = keep;
    }

    /// The last night played, as the replay logs it (with [`Stepper::keep_last_night`]).
    pub fn last_night(&self) -> Option<NightLog> {
        self.last.map(|(night, actions)| NightLog { signals: self.signals, actions, report: night.report() })
    }

    /// The scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.sc
    }

    /// The phase the seats decide next.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The town (its houses, totals and end).
    pub fn town(&self) -> &Town {
        &self.town
    }

    /// The seats played from outside, in seat order.
    pub fn outside_seats(&self) -> impl Iterator<Item = usize> + '_ {
        self.seats.iter().enumerate().filter(|(_, s)| s.is_none()).map(|(i, _)| i)
    }

    /// What seat `seat` observes now.
    pub fn view(&self, seat: usize) -> View {
        let signals = (self.phase == Phase::Act).then_some(&self.signals[..self.sc.num_agents]);
        View::of(&self.town.observation(&self.sc, seat, signals), self.phase)
    }

    /// Writes what seat `seat` observes now into `out` (the codes of [`Stepper::view`]).
    #[inline]
    pub fn write_view(&self, seat: usize, out: &mut CodesMut<'_>) {
        let signals = (self.phase == Phase::Act).then_some(&self.signals[..self.sc.num_agents]);
        super::view::write_codes(&self.town.observation(&self.sc, seat, signals), self.phase, out);
    }

    /// Plays the phase with `given`, one choice per outside seat in seat order; the scripted
    /// seats decide themselves. The town is unchanged on an error.
    pub fn step(&mut self, given: &[Choice]) -> Result<PhaseOutcome, StepError> {
        let n = self.sc.num_agents;
        if self.town.end().is_some() {
            return Err(StepError::Finished);
        }
        let outside = self.outside;
        if given.len() != outside {
            return Err(StepError::WrongCount { expected: outside, signals: given.len(), actions: given.len() });
        }
        if self.phase == Phase::Act {
            // Checked before any scripted seat draws, so a refused phase changes nothing.
            let outside = self.seats.iter().enumerate().filter(|(_, s)| s.is_none()).map(|(i, _)| i);
            if let Some((seat, c)) = outside.zip(given).find(|(_, c)| usize::from(c.house) >= NUM_HOUSES) {
                return Err(StepError::HouseOutOfRange { seat, house: c.house });
            }
        }
        let mut outcome = PhaseOutcome { rewards: [0.0; MAX_AGENTS], terminated: false, truncated: false };
        let mut given = given.iter();
        match self.phase {
            Phase::Signal => {
                let mut signals = [Mode::Rest; MAX_AGENTS];
                for (i, seat) in self.seats.iter_mut().enumerate() {
                    signals[i] = match seat {
                        Some(seat) => seat.policy.signal(&self.town.observation(&self.sc, i, None), &mut seat.rng),
                        None => given.next().expect("counted above").signal,
                    };
                }
                self.signals = signals;
                self.phase = Phase::Act;
            }
            Phase::Act => {
                let mut actions = [Action::new(0, Mode::Rest); MAX_AGENTS];
                let signals = &self.signals[..n];
                for (i, seat) in self.seats.iter_mut().enumerate() {
                    actions[i] = match seat {
                        Some(seat) => {
                            seat.policy.act(&self.town.observation(&self.sc, i, Some(signals)), &mut seat.rng)
                        }
                        None => given.next().map(|c| Action::new(c.house, c.mode)).expect("counted above"),
                    };
                }
                let night = self.town.advance(&self.sc, &self.draws, signals, &actions[..n])?;
                outcome.rewards = night.rewards;
                if self.keep_last {
                    self.last = Some((night, actions));
                }
                if let Some(end) = night.end {
                    outcome.truncated = end.truncated();
                    outcome.terminated = !outcome.truncated;
                } else {
                    self.draws.fill(&mut self.env, self.sc.spread_before_burnout);
                }
                self.phase = Phase::Signal;
            }
        }
        Ok(outcome)
    }

    /// The episode's record, once it has ended: the record `play` gives for the seed.
    pub fn record(&self) -> Option<EpisodeRecord> {
        self.town.end().map(|_| record::build(self.seed, &self.sc, &self.town))
    }
}

/// A scripted policy deciding for one seat from views: what `simfleet.policy(...)` is in
/// Python. It draws from the seat's own stream, re-keyed per episode as the engine keys it.
#[derive(Clone, Debug)]
pub struct ScriptedSeat {
    seat: usize,
    inner: Seat,
    sc: Scenario,
}

impl ScriptedSeat {
    /// `policy` playing seat `seat` of scenario `sc`.
    pub fn new(policy: AnyPolicy, seat: usize, sc: Scenario) -> ScriptedSeat {
        ScriptedSeat { seat, inner: Seat::new(policy), sc }
    }

    /// Starts the episode of `seed`.
    pub fn reset(&mut self, seed: u64) {
        self.inner.rng.reset(seed, agent_stream(self.seat));
        self.inner.policy.reset(self.seat, &self.sc);
    }

    /// The policy's choice for `view` (the other fields of the choice are REST / house 0).
    pub fn decide(&mut self, view: &View) -> Choice {
        let obs = view.observation(&self.sc);
        let mut choice = Choice { signal: Mode::Rest, house: 0, mode: Mode::Rest };
        match view.phase {
            Phase::Signal => choice.signal = self.inner.policy.signal(&obs, &mut self.inner.rng),
            Phase::Act => {
                let a = self.inner.policy.act(&obs, &mut self.inner.rng);
                (choice.house, choice.mode) = (a.house, a.mode);
            }
        }
        choice
    }
}
