//! Bucket Brigade with `python:` or `wasm:` seats: [`OutsideTeam`] plays an episode with the
//! [`Stepper`], asking each outside seat's transport for its choice in every phase.
//!
//! A seat answers `[signal, house, mode]` (docs/agents.md). An answer that is not three codes
//! in range is illegal, and a `wasm:` seat may fault: the seat's fallback, `random` on the
//! seat's own stream, decides instead, and the record's `outside` stat counts it, per seat. The
//! episode is otherwise the one the engine plays: the same draws, the same seat streams for the
//! scripted seats. The observation is written as MessagePack directly ([`write_observation`]),
//! the bytes a `wasm:` module reads, twice a night per seat, without a JSON value in between.

use serde_json::Value;

use crate::outside::{SeatShell, Transport};
use crate::protocol::EpisodeRecord;

use super::action::Mode;
use super::episode::NightLog;
use super::house::NUM_HOUSES;
use super::policies::{AnyPolicy, RandomPolicy};
use super::scenario::Scenario;
use super::stepper::{Choice, Phase, ScriptedSeat, Stepper};
use super::view::{CodesMut, View};

/// One outside seat: its shell over the transport, and its fallback.
#[derive(Debug)]
struct Outside {
    shell: SeatShell<Box<dyn Transport>>,
    fallback: ScriptedSeat,
}

/// A team with at least one outside seat.
#[derive(Debug)]
pub struct OutsideTeam {
    stepper: Stepper,
    seats: Vec<Outside>,
    /// The observation's bytes, reused.
    obs: Vec<u8>,
}

impl OutsideTeam {
    /// The team of `team`'s entries: a scripted policy, or an outside seat's transport.
    pub fn start(sc: Scenario, team: Vec<Result<AnyPolicy, Box<dyn Transport>>>) -> OutsideTeam {
        let mut seats = Vec::new();
        let mut entries = Vec::new();
        for (i, entry) in team.into_iter().enumerate() {
            match entry {
                Ok(p) => entries.push(Some(p)),
                Err(transport) => {
                    entries.push(None);
                    let fallback = ScriptedSeat::new(AnyPolicy::Random(RandomPolicy), i, sc);
                    seats.push(Outside { shell: SeatShell::new(i, transport), fallback });
                }
            }
        }
        OutsideTeam { stepper: Stepper::new(sc, &entries), seats, obs: Vec::with_capacity(128) }
    }

    /// Plays the episode of `seed`; fills `log` with every night when given. A transport that
    /// fails fails the job ([`crate::outside::fail`]).
    pub fn play(&mut self, seed: u64, mut log: Option<&mut Vec<NightLog>>) -> EpisodeRecord {
        self.stepper.keep_last_night(log.is_some());
        self.stepper.reset(seed);
        for o in &mut self.seats {
            o.fallback.reset(seed);
            o.shell.start(seed);
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
                write_observation(&mut self.obs, &view, self.stepper.scenario());
                let answer = o.shell.transport.act_encoded(&self.obs).unwrap_or_else(|e| crate::outside::fail(e));
                let fallback = &mut o.fallback;
                let c = o.shell.decide_after(answer, |answer| legal(&answer, phase), || fallback.decide(&view));
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

    /// The record, with the `outside` stat: per outside seat that the record counts, its
    /// decisions, illegal answers and faults.
    fn record(&self) -> EpisodeRecord {
        let mut record = self.stepper.record().expect("the episode has ended");
        let faults = self.seats.iter().filter_map(|o| o.shell.recorded_faults().map(|f| (o.shell.seat, f)));
        crate::outside::add_faults(&mut record, faults);
        record
    }

    /// The stepper (for the replay's first houses).
    pub fn stepper(&self) -> &Stepper {
        &self.stepper
    }
}

/// The keys of the observation, in the contract's order.
const KEYS: [&str; 8] =
    ["phase", "night", "houses", "locations", "last_houses", "last_modes", "last_signals", "signals"];

/// Writes the observation as MessagePack into `out`: a map of the contract's keys
/// (docs/agents.md), each a list of codes, every integer in its shortest form. The same bytes
/// as the JSON observation encoded by `rmp_serde` (`the_observation_is_its_json_in_messagepack`).
pub fn write_observation(out: &mut Vec<u8>, view: &View, sc: &Scenario) {
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
    out.clear();
    // fixmap of 8; fixstr keys; fixarrays (at most MAX_AGENTS = 10 codes) of uint codes.
    out.push(0x80 | KEYS.len() as u8);
    let values: [&[u8]; 8] = [&[phase], &[night], &b[0], &b[1][..n], &b[2][..n], &b[3][..n], &b[4][..n], &b[5][..n]];
    for (key, codes) in KEYS.iter().zip(values) {
        out.push(0xa0 | key.len() as u8);
        out.extend_from_slice(key.as_bytes());
        out.push(0x90 | codes.len() as u8);
        for &c in codes {
            if c >= 0x80 {
                out.push(0xcc);
            }
            out.push(c);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::super::stepper::Stepper;
    use super::*;

    /// The observation as JSON, as the contract writes it.
    fn json(view: &View, sc: &Scenario) -> Value {
        let mut bytes = Vec::new();
        write_observation(&mut bytes, view, sc);
        rmp_serde::from_slice(&bytes).unwrap()
    }

    #[test]
    fn the_observation_is_its_json_in_messagepack() {
        let sc = Scenario::from_spec(&crate::Spec::parse("default").unwrap()).unwrap();
        let mut stepper = Stepper::new(sc, &vec![None; sc.num_agents]);
        let mut seen = 0;
        for seed in 0..20 {
            stepper.reset(seed);
            loop {
                let view = stepper.view(1);
                let mut bytes = Vec::new();
                write_observation(&mut bytes, &view, &sc);
                let value = json(&view, &sc);
                assert_eq!(value.as_object().unwrap().keys().collect::<Vec<_>>(), KEYS.iter().collect::<Vec<_>>());
                assert_eq!(bytes, rmp_serde::to_vec(&value).unwrap(), "seed {seed}");
                seen += 1;
                let choice = Choice { signal: Mode::Work, house: (seed % 10) as u8, mode: Mode::Work };
                let out = stepper.step(&vec![choice; sc.num_agents]).unwrap();
                if out.terminated || out.truncated {
                    break;
                }
            }
        }
        assert!(seen > 40);
    }
}
