//! Bucket Brigade with `python:` or `wasm:` seats: [`OutsideTeam`] plays an episode with the
//! [`Stepper`], asking each outside seat's transport for its choice in every phase.
//!
//! A seat answers `[signal, house, mode]` (docs/agents.md). An answer that is not three codes
//! in range is illegal, and a `wasm:` seat may fault: the seat's fallback, `random` on the
//! seat's own stream, decides instead, and the record's `outside` stat counts it, per seat. The
//! episode is otherwise the one the engine plays: the same draws, the same seat streams for the
//! scripted seats. The observation is written as MessagePack directly ([`Layout`]), the bytes a
//! `wasm:` module reads, twice a night per seat, without a JSON value in between; the answer is
//! read as codes ([`Transport::act_codes`]).

use crate::outside::{SeatShell, Transport};
use crate::protocol::EpisodeRecord;

use super::action::Mode;
use super::episode::NightLog;
use super::house::NUM_HOUSES;
use super::policies::{AnyPolicy, RandomPolicy};
use super::scenario::Scenario;
use super::stepper::{Choice, Phase, ScriptedSeat, Stepper};
use super::view::CodesMut;

/// One outside seat: its shell over the transport, and its fallback.
#[derive(Debug)]
struct Outside {
    shell: SeatShell<Box<dyn Transport>>,
    fallback: ScriptedSeat,
    /// The episode the fallback is yet to be started for: started when first asked (most
    /// episodes never ask, and a start keys a ChaCha stream).
    fallback_pending: Option<u64>,
}

/// A team with at least one outside seat.
#[derive(Debug)]
pub struct OutsideTeam {
    stepper: Stepper,
    seats: Vec<Outside>,
    /// The observation's bytes, rewritten for every decision.
    obs: Layout,
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
                    seats.push(Outside { shell: SeatShell::new(i, transport), fallback, fallback_pending: None });
                }
            }
        }
        OutsideTeam { stepper: Stepper::new(sc, &entries), seats, obs: Layout::new(sc.num_agents) }
    }

    /// Plays the episode of `seed`; fills `log` with every night when given. A transport that
    /// fails fails the job ([`crate::outside::fail`]).
    pub fn play(&mut self, seed: u64, mut log: Option<&mut Vec<NightLog>>) -> EpisodeRecord {
        self.stepper.keep_last_night(log.is_some());
        self.stepper.reset(seed);
        for o in &mut self.seats {
            o.fallback_pending = Some(seed);
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
                let seat = o.shell.seat;
                let obs = self.obs.write(&self.stepper, seat);
                let mut codes = [None; 3];
                let answer = o.shell.transport.act_codes(obs, &mut codes).unwrap_or_else(|e| crate::outside::fail(e));
                let (fallback, pending, stepper) = (&mut o.fallback, &mut o.fallback_pending, &self.stepper);
                let c = o.shell.decide_after(
                    answer,
                    |n| legal(n.map(|n| &codes[..n]), phase),
                    || {
                        if let Some(seed) = pending.take() {
                            fallback.reset(seed);
                        }
                        fallback.decide(&stepper.view(seat))
                    },
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

/// The observation's MessagePack for `n` agents: a map of the contract's keys in order
/// (docs/agents.md), each a fixarray of codes. Every code is below 0x80 (a positive fixint: a
/// night is at most `MAX_NIGHTS` + 1 = 101, the others are states, houses and modes), so all
/// but the codes are the same bytes in every observation: they are written once, and each
/// observation writes its codes into them. The bytes of the JSON observation encoded by
/// `rmp_serde` (`the_observation_is_its_json_in_messagepack`).
#[derive(Clone, Debug)]
struct Layout {
    bytes: Vec<u8>,
    /// Where each key's codes start, and how many there are.
    fields: [(usize, usize); 8],
}

impl Layout {
    fn new(n: usize) -> Layout {
        let mut bytes = vec![0x80 | KEYS.len() as u8];
        let mut fields = [(0, 0); 8];
        for (k, key) in KEYS.iter().enumerate() {
            let len = match k {
                0 | 1 => 1,
                2 => NUM_HOUSES,
                _ => n,
            };
            bytes.push(0xa0 | key.len() as u8);
            bytes.extend_from_slice(key.as_bytes());
            bytes.push(0x90 | len as u8);
            fields[k] = (bytes.len(), len);
            bytes.resize(bytes.len() + len, 0);
        }
        Layout { bytes, fields }
    }

    /// Seat `seat`'s observation now, written by the stepper into the codes' places.
    fn write(&mut self, stepper: &Stepper, seat: usize) -> &[u8] {
        let mut rest: &mut [u8] = &mut self.bytes;
        let mut at = 0;
        let mut slots: [&mut [u8]; 8] = Default::default();
        for (slot, &(start, len)) in slots.iter_mut().zip(&self.fields) {
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(start - at);
            let (codes, tail) = tail.split_at_mut(len);
            (*slot, rest, at) = (codes, tail, start + len);
        }
        let [phase, night, houses, locations, last_houses, last_modes, last_signals, signals] = slots;
        let mut out = CodesMut {
            phase: &mut phase[0],
            night: &mut night[0],
            houses,
            locations,
            last_houses,
            last_modes,
            last_signals,
            signals,
        };
        stepper.write_view(seat, &mut out);
        &self.bytes
    }
}

/// `[signal, house, mode]` codes in range, or `None`: only the fields the phase reads are
/// checked, as the environments read only those.
fn legal(answer: Option<&[Option<u64>]>, phase: Phase) -> Option<Choice> {
    let a = answer.filter(|a| a.len() == 3)?;
    let code = |i: usize, below: u64| a[i].filter(|&v| v < below);
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
    use serde_json::{json, Value};

    use super::super::stepper::Stepper;
    use super::super::view::View;
    use super::*;

    /// The observation as the contract's JSON, from the view's codes.
    fn json(view: &View, sc: &Scenario) -> Value {
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
            "phase": [phase], "night": [night], "houses": b[0], "locations": b[1][..n],
            "last_houses": b[2][..n], "last_modes": b[3][..n], "last_signals": b[4][..n], "signals": b[5][..n],
        })
    }

    #[test]
    fn the_observation_is_its_json_in_messagepack() {
        for spec in ["default", "default?num_agents=10", "default?num_agents=7"] {
            let sc = Scenario::from_spec(&crate::Spec::parse(spec).unwrap()).unwrap();
            let mut stepper = Stepper::new(sc, &vec![None; sc.num_agents]);
            let mut layout = Layout::new(sc.num_agents);
            let mut seen = 0;
            for seed in 0..20 {
                stepper.reset(seed);
                loop {
                    for seat in [0, sc.num_agents - 1] {
                        let value = json(&stepper.view(seat), &sc);
                        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
                        assert_eq!(keys, KEYS.iter().collect::<Vec<_>>());
                        assert_eq!(
                            layout.write(&stepper, seat),
                            rmp_serde::to_vec(&value).unwrap(),
                            "{spec} seed {seed}"
                        );
                        seen += 1;
                    }
                    let choice = Choice { signal: Mode::Work, house: (seed % 10) as u8, mode: Mode::Work };
                    let out = stepper.step(&vec![choice; sc.num_agents]).unwrap();
                    if out.terminated || out.truncated {
                        break;
                    }
                }
            }
            assert!(seen > 80, "{spec}");
        }
    }

    #[test]
    fn an_answer_is_legal_when_its_phase_fields_are_in_range() {
        assert!(legal(Some(&[Some(1), Some(99), None]), Phase::Signal).is_some(), "only the signal is read");
        assert!(legal(Some(&[Some(2), Some(0), Some(0)]), Phase::Signal).is_none());
        let act = legal(Some(&[None, Some(9), Some(1)]), Phase::Act);
        assert_eq!(act.map(|c| (c.house, c.mode)), Some((9, Mode::Work)));
        assert!(legal(Some(&[Some(0), Some(10), Some(0)]), Phase::Act).is_none());
        assert!(legal(Some(&[Some(0), Some(1), None]), Phase::Act).is_none());
        assert!(legal(Some(&[Some(0), Some(1)]), Phase::Act).is_none());
        assert!(legal(None, Phase::Act).is_none());
    }
}
