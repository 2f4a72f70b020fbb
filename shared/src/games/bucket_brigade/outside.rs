//! Bucket Brigade with `python:` seats: [`OutsideTeam`] plays an episode with the
//! [`Stepper`], asking each outside seat's host for its choice in every phase.
//!
//! A seat answers `[signal, house, mode]` (docs/agents.md). An answer that is not three codes
//! in range is illegal: the seat's fallback, `random` on the seat's own stream, decides instead,
//! and the record's `outside` stat counts it, per seat. The episode is otherwise the one the
//! engine plays: the same draws, the same seat streams for the scripted seats.

use serde_json::{json, Value};

use crate::outside::{fail, PythonHost, PythonSeat, SeatShell};
use crate::protocol::EpisodeRecord;

use super::action::Mode;
use super::episode::NightLog;
use super::house::NUM_HOUSES;
use super::policies::{AnyPolicy, RandomPolicy};
use super::scenario::Scenario;
use super::stepper::{Choice, Phase, ScriptedSeat, Stepper};
use super::view::{CodesMut, View};

pub use crate::outside::seat_seed;

/// One outside seat: its shell over the host, and its fallback.
#[derive(Debug)]
struct Outside {
    shell: SeatShell<PythonHost>,
    fallback: ScriptedSeat,
}

/// A team with at least one `python:` seat.
#[derive(Debug)]
pub struct OutsideTeam {
    stepper: Stepper,
    seats: Vec<Outside>,
}

impl OutsideTeam {
    /// Starts a host per outside seat (`python` entries of `team`); the others are scripted.
    pub fn start(sc: Scenario, team: &[Result<AnyPolicy, PythonSeat>]) -> Result<OutsideTeam, crate::JobError> {
        let mut seats = Vec::new();
        let mut entries = Vec::new();
        for (i, entry) in team.iter().enumerate() {
            match entry {
                Ok(p) => entries.push(Some(*p)),
                Err(seat) => {
                    entries.push(None);
                    let fallback = ScriptedSeat::new(AnyPolicy::Random(RandomPolicy), i, sc);
                    seats.push(Outside { shell: SeatShell::new(i, PythonHost::start(seat)?), fallback });
                }
            }
        }
        Ok(OutsideTeam { stepper: Stepper::new(sc, &entries), seats })
    }

    /// Plays the episode of `seed`; fills `log` with every night when given. A host that fails
    /// fails the job ([`fail`]).
    pub fn play(&mut self, seed: u64, mut log: Option<&mut Vec<NightLog>>) -> EpisodeRecord {
        self.stepper.keep_last_night(log.is_some());
        self.stepper.reset(seed);
        for o in &mut self.seats {
            o.shell.reset();
            o.fallback.reset(seed);
            let s = seat_seed(seed, o.shell.seat);
            o.shell.transport.reset(s).unwrap_or_else(|e| fail(e));
        }
        if let Some(log) = log.as_deref_mut() {
            log.clear();
        }
        let mut choices = Vec::with_capacity(self.seats.len());
        loop {
            choices.clear();
            let phase = self.stepper.phase();
            for o in &mut self.seats {
                let view = self.stepper.view(o.shell.seat);
                let obs = observation(&view, self.stepper.scenario());
                let fallback = &mut o.fallback;
                let c = o.shell.decide(
                    |host| host.act(obs).unwrap_or_else(|e| fail(e)),
                    |answer| legal(&answer, phase),
                    || fallback.decide(&view),
                );
                choices.push(c);
            }
            let out = self.stepper.step(&choices).expect("legal choices, one per outside seat");
            if let (Some(log), Some(night)) = (log.as_deref_mut(), self.stepper.last_night()) {
                if phase == Phase::Act {
                    log.push(night);
                }
            }
            if out.terminated || out.truncated {
                return self.record();
            }
        }
    }

    /// The record, with the `outside` stat: per outside seat, its decisions and illegal answers.
    fn record(&self) -> EpisodeRecord {
        let mut record = self.stepper.record().expect("the episode has ended");
        crate::outside::add_faults(&mut record, self.seats.iter().map(|o| (o.shell.seat, o.shell.faults())));
        record
    }

    /// The stepper (for the replay's first houses).
    pub fn stepper(&self) -> &Stepper {
        &self.stepper
    }
}

/// The observation as the host sends it: the environment's keys, as lists.
fn observation(view: &View, sc: &Scenario) -> Value {
    let n = view.agents;
    let (mut phase, mut night) = (0u8, 0u8);
    let mut b = [[0u8; NUM_HOUSES]; 6];
    let [houses, locations, lh, lm, ls, signals] = &mut b;
    view.write_codes(
        sc,
        &mut CodesMut {
            phase: &mut phase,
            night: &mut night,
            houses,
            locations: &mut locations[..n],
            last_houses: &mut lh[..n],
            last_modes: &mut lm[..n],
            last_signals: &mut ls[..n],
            signals: &mut signals[..n],
        },
    );
    json!({
        "phase": [phase], "night": [night], "houses": b[0],
        "locations": &b[1][..n], "last_houses": &b[2][..n], "last_modes": &b[3][..n],
        "last_signals": &b[4][..n], "signals": &b[5][..n],
    })
}

/// `[signal, house, mode]` codes in range, or `None`: only the fields the phase reads are
/// checked, as the environments read only those.
fn legal(answer: &Value, phase: Phase) -> Option<Choice> {
    let a = answer.as_array().filter(|a| a.len() == 3)?;
    let code = |i: usize, below: u64| a[i].as_u64().filter(|&v| v < below);
    let mode = |v: u64| if v == 0 { Mode::Rest } else { Mode::Work };
    match phase {
        Phase::Signal => Some(Choice { signal: mode(code(0, 2)?), house: 0, mode: Mode::Rest }),
        Phase::Act => {
            Some(Choice { signal: Mode::Rest, house: code(1, NUM_HOUSES as u64)? as u8, mode: mode(code(2, 2)?) })
        }
    }
}
