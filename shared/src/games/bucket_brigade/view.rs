//! [`View`]: an agent's observation as owned data, the form it crosses to agents outside the
//! engine (docs/agents.md, "bucket_brigade"). It holds everything an [`Observation`] shows
//! except the scenario, which an outside agent is given once; [`View::observation`] turns it
//! back into the engine's form, so a scripted policy decides from a view exactly as it does
//! inside the engine.

use super::action::{LastAction, Mode};
use super::house::{House, Houses, NUM_HOUSES};
use super::observation::Observation;
use super::scenario::{Scenario, MAX_AGENTS};
use super::stepper::Phase;

/// One seat's observation of one phase, owned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Signal or act.
    pub phase: Phase,
    /// t, 1-based.
    pub night: u32,
    /// The observing seat.
    pub agent: usize,
    /// N.
    pub agents: usize,
    /// S_t^start.
    pub houses: Houses,
    /// Where every agent stood on night t−1 (agent j at house j before night 1).
    pub locations: [u8; MAX_AGENTS],
    /// What every agent did on night t−1 (`None` on night 1).
    pub last: Option<[LastAction; MAX_AGENTS]>,
    /// This night's signals in the act phase (REST in the signal phase).
    pub signals: [Mode; MAX_AGENTS],
}

/// Why a view cannot be rebuilt from codes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("observation field {field}: {reason}")]
pub struct ViewError {
    /// The observation key at fault.
    pub field: &'static str,
    /// What is wrong.
    pub reason: String,
}

fn mode(code: u8, field: &'static str) -> Result<Mode, ViewError> {
    match code {
        0 => Ok(Mode::Rest),
        1 => Ok(Mode::Work),
        v => Err(ViewError { field, reason: format!("{v} is not a mode (REST 0, WORK 1)") }),
    }
}

impl View {
    /// The view of an engine observation in `phase`.
    pub fn of(obs: &Observation<'_>, phase: Phase) -> View {
        let n = obs.locations.len();
        let mut locations = [0; MAX_AGENTS];
        locations[..n].copy_from_slice(obs.locations);
        let last = obs.last_actions.map(|l| {
            let mut last = [LastAction { house: 0, mode: Mode::Rest, signal: Mode::Rest }; MAX_AGENTS];
            last[..n].copy_from_slice(l);
            last
        });
        let mut signals = [Mode::Rest; MAX_AGENTS];
        if let Some(s) = obs.signals {
            signals[..n].copy_from_slice(s);
        }
        View { phase, night: obs.night, agent: obs.agent_id, agents: n, houses: *obs.houses, locations, last, signals }
    }

    /// The engine's observation of this view in scenario `sc`.
    pub fn observation<'a>(&'a self, sc: &'a Scenario) -> Observation<'a> {
        let n = self.agents;
        Observation {
            night: self.night,
            agent_id: self.agent,
            houses: &self.houses,
            locations: &self.locations[..n],
            last_actions: self.last.as_ref().map(|l| &l[..n]),
            signals: (self.phase == Phase::Act).then_some(&self.signals[..n]),
            scenario: sc,
        }
    }

    /// The view of the observation codes an outside agent holds (the keys of docs/agents.md):
    /// `last` is read only after night 1. Errors name the key.
    pub fn from_codes(agent: usize, codes: &Codes<'_>) -> Result<View, ViewError> {
        let n = codes.locations.len();
        let phase = match codes.phase {
            0 => Phase::Signal,
            1 => Phase::Act,
            v => return Err(ViewError { field: "phase", reason: format!("{v} is not a phase (signal 0, act 1)") }),
        };
        if !(1..=MAX_AGENTS).contains(&n) || agent >= n {
            return Err(ViewError { field: "locations", reason: format!("{n} agents, seat {agent}") });
        }
        if codes.houses.len() != NUM_HOUSES {
            return Err(ViewError {
                field: "houses",
                reason: format!("{} entries, not {NUM_HOUSES}", codes.houses.len()),
            });
        }
        for (field, v) in [
            ("last_houses", codes.last_houses),
            ("last_modes", codes.last_modes),
            ("last_signals", codes.last_signals),
            ("signals", codes.signals),
        ] {
            if v.len() != n {
                return Err(ViewError { field, reason: format!("{} entries, not one per agent ({n})", v.len()) });
            }
        }
        let mut houses = [House::Safe; NUM_HOUSES];
        for (h, &c) in houses.iter_mut().zip(codes.houses) {
            *h = match c {
                0 => House::Safe,
                1 => House::Burning,
                2 => House::Ruined,
                v => return Err(ViewError { field: "houses", reason: format!("{v} is not a house state") }),
            };
        }
        let mut view = View {
            phase,
            night: u32::from(codes.night),
            agent,
            agents: n,
            houses,
            locations: [0; MAX_AGENTS],
            last: None,
            signals: [Mode::Rest; MAX_AGENTS],
        };
        let mut last = [LastAction { house: 0, mode: Mode::Rest, signal: Mode::Rest }; MAX_AGENTS];
        for (i, l) in last.iter_mut().enumerate().take(n) {
            view.locations[i] = codes.locations[i];
            *l = LastAction {
                house: codes.last_houses[i],
                mode: mode(codes.last_modes[i], "last_modes")?,
                signal: mode(codes.last_signals[i], "last_signals")?,
            };
            view.signals[i] = mode(codes.signals[i], "signals")?;
        }
        view.last = (codes.night > 1).then_some(last);
        Ok(view)
    }

    /// Writes the view's codes into `out` (each slice as long as its key's shape).
    pub fn write_codes(&self, sc: &Scenario, out: &mut CodesMut<'_>) {
        write_codes(&self.observation(sc), self.phase, out);
    }
}

/// Writes the codes of an engine observation in `phase` into `out`, without an owned view
/// in between (what a batch of environments does every step).
#[inline]
pub fn write_codes(obs: &Observation<'_>, phase: Phase, out: &mut CodesMut<'_>) {
    *out.phase = phase as u8;
    // At most MAX_NIGHTS + 1 = 101: a u8.
    *out.night = obs.night as u8;
    for (o, h) in out.houses.iter_mut().zip(obs.houses) {
        *o = h.code();
    }
    out.locations.copy_from_slice(obs.locations);
    match obs.last_actions {
        Some(last) => {
            for (i, l) in last.iter().enumerate() {
                out.last_houses[i] = l.house;
                out.last_modes[i] = l.mode.code();
                out.last_signals[i] = l.signal.code();
            }
        }
        None => {
            out.last_houses.fill(0);
            out.last_modes.fill(0);
            out.last_signals.fill(0);
        }
    }
    match obs.signals {
        Some(signals) => {
            for (o, s) in out.signals.iter_mut().zip(signals) {
                *o = s.code();
            }
        }
        None => out.signals.fill(0),
    }
}

/// The observation as codes, borrowed (each slice N long, `houses` ten).
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub struct Codes<'a> {
    pub phase: u8,
    pub night: u8,
    pub houses: &'a [u8],
    pub locations: &'a [u8],
    pub last_houses: &'a [u8],
    pub last_modes: &'a [u8],
    pub last_signals: &'a [u8],
    pub signals: &'a [u8],
}

/// Where [`View::write_codes`] writes (each slice N long, `houses` ten).
#[derive(Debug)]
#[allow(missing_docs)]
pub struct CodesMut<'a> {
    pub phase: &'a mut u8,
    pub night: &'a mut u8,
    pub houses: &'a mut [u8],
    pub locations: &'a mut [u8],
    pub last_houses: &'a mut [u8],
    pub last_modes: &'a mut [u8],
    pub last_signals: &'a mut [u8],
    pub signals: &'a mut [u8],
}
