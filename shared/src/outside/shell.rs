//! [`SeatShell`]: one outside seat's shell: its transport, the fallback's counts, and the
//! seat's per-episode faults.

use serde::Serialize;
use serde_json::{json, Value};

use super::{fail, policy_error, Transport};
use crate::protocol::{EpisodeRecord, JobError};
use crate::spec::Spec;

/// What went wrong with one seat's answers in an episode (the record's `outside` stat).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SeatFaults {
    /// Decisions asked of the seat.
    pub decisions: u64,
    /// Answers the game refused as illegal; the fallback decided instead.
    pub illegal: u64,
    /// Decisions the fallback made because the agent had faulted (a `wasm:` seat; written
    /// only when there were some).
    #[serde(skip_serializing_if = "is_zero")]
    pub faulted: u64,
    /// The kind of the episode's fault (`out_of_fuel`, `memory`, `stack_overflow`, `trap`,
    /// `bad_answer`, `bad_buffer`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<&'static str>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// An outside seat: its transport `T` and the episode's faults.
#[derive(Clone, Debug)]
pub struct SeatShell<T> {
    /// The seat.
    pub seat: usize,
    /// The transport that answers for it.
    pub transport: T,
    faults: SeatFaults,
}

impl<T> SeatShell<T> {
    /// A shell over `transport` for seat `seat`.
    pub fn new(seat: usize, transport: T) -> SeatShell<T> {
        SeatShell { seat, transport, faults: SeatFaults::default() }
    }

    /// Forgets the episode's faults.
    pub fn reset(&mut self) {
        self.faults = SeatFaults::default();
    }

    /// The episode's faults.
    pub fn faults(&self) -> SeatFaults {
        self.faults
    }

    /// One decision: `ask` the transport, keep the answer if `legal` accepts it, else count it
    /// and take `fallback`'s. (A faulted agent's decisions are counted by
    /// [`SeatShell::decide_after`].)
    pub fn decide<A, R>(
        &mut self,
        ask: impl FnOnce(&mut T) -> R,
        legal: impl FnOnce(R) -> Option<A>,
        fallback: impl FnOnce() -> A,
    ) -> A {
        self.faults.decisions += 1;
        match legal(ask(&mut self.transport)) {
            Some(a) => a,
            None => {
                self.faults.illegal += 1;
                fallback()
            }
        }
    }
}

impl SeatShell<Box<dyn Transport>> {
    /// Starts the episode of `seed`: forgets the last one's faults and gives the agent the
    /// seat's seed ([`seat_seed`]). A transport that fails fails the job ([`fail`]).
    pub fn start(&mut self, seed: u64) {
        self.reset();
        self.transport.start(seed, self.seat).unwrap_or_else(|e| fail(e));
    }

    /// One decision on an answer already asked for ([`SeatShell::ask`]): if the agent faulted,
    /// the fallback decides and the fault is counted; else as [`SeatShell::decide`].
    pub fn decide_after<R, A>(
        &mut self,
        answer: R,
        legal: impl FnOnce(R) -> Option<A>,
        fallback: impl FnOnce() -> A,
    ) -> A {
        if let Some(kind) = self.transport.fault() {
            self.faults.decisions += 1;
            self.faults.faulted += 1;
            self.faults.fault = Some(kind);
            return fallback();
        }
        self.decide(|_| answer, legal, fallback)
    }

    /// The agent's answer to `obs` (the game's contract JSON). A Python environment may first
    /// ask what a built-in policy would choose (`{"builtin": "<spec>"}`): `builtin(spec)` gives
    /// that choice as the contract's action JSON, the agent gets it as
    /// `{"policy_action": ...}` and then answers for real. A transport that fails fails the job.
    pub fn ask(&mut self, obs: Value, builtin: impl FnOnce(&str) -> Value) -> Value {
        let answer = self.transport.act(obs).unwrap_or_else(|e| fail(e));
        self.builtin_round(answer, builtin)
    }

    /// [`SeatShell::ask`] with the observation already MessagePack (a game that writes it
    /// directly: what a `wasm:` module reads, without a JSON value in between).
    pub fn ask_encoded(&mut self, obs: &[u8], builtin: impl FnOnce(&str) -> Value) -> Value {
        let answer = self.transport.act_encoded(obs).unwrap_or_else(|e| fail(e));
        self.builtin_round(answer, builtin)
    }

    /// A Python environment's request for a built-in's choice answered, then its real answer.
    fn builtin_round(&mut self, answer: Value, builtin: impl FnOnce(&str) -> Value) -> Value {
        if !self.transport.environment() {
            return answer;
        }
        match answer.get("builtin").and_then(Value::as_str) {
            Some(spec) => {
                let reply = json!({"policy_action": builtin(spec)});
                self.transport.act(reply).unwrap_or_else(|e| fail(e))
            }
            None => answer,
        }
    }

    /// The episode's faults as the record counts them: a `python:` seat's; a `wasm:` seat's
    /// when it faulted or answered outside the space; none for a Python environment's seat.
    pub fn recorded_faults(&self) -> Option<SeatFaults> {
        let f = self.faults;
        let some = f.illegal > 0 || f.faulted > 0 || self.transport.records_every_episode();
        (!self.transport.environment() && some).then_some(f)
    }
}

/// The built-in policies `P` a Python environment asked one outside seat to decide with, by
/// spec, each kept for the job (their memory is the episode's, as in a sweep: reset them with
/// the episode).
#[derive(Debug)]
pub struct Builtins<P> {
    seat: usize,
    /// The seat's own spec, for errors.
    owner: String,
    made: Vec<(String, P)>,
}

impl<P> Builtins<P> {
    /// None yet, for seat `seat` whose spec is `owner`.
    pub fn new(seat: usize, owner: &Spec) -> Builtins<P> {
        Builtins { seat, owner: owner.to_string(), made: Vec::new() }
    }

    /// The built-in of `spec`, made by `make` on first use; a spec that does not parse or make
    /// a policy fails the job with a `policy_error` naming the seat.
    pub fn get(&mut self, spec: &str, make: impl FnOnce(usize, &Spec) -> Result<P, JobError>) -> &mut P {
        let i = match self.made.iter().position(|(s, _)| s == spec) {
            Some(i) => i,
            None => {
                let made = Spec::parse(spec)
                    .map_err(|e| e.to_string())
                    .and_then(|parsed| make(self.seat, &parsed).map_err(|e| e.to_string()));
                let p = made
                    .unwrap_or_else(|e| fail(policy_error(self.seat, &self.owner, format!("builtin {spec:?}: {e}"))));
                self.made.push((spec.to_string(), p));
                self.made.len() - 1
            }
        };
        &mut self.made[i].1
    }

    /// Every built-in made so far, in order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut P> {
        self.made.iter_mut().map(|(_, p)| p)
    }

    /// Every built-in made so far, in order.
    pub fn iter(&self) -> impl Iterator<Item = &P> {
        self.made.iter().map(|(_, p)| p)
    }
}

/// Adds the `outside` stat to `record`: per outside seat, its faults (`{"<seat>": {"decisions":
/// D, "illegal": I}}`). Without outside seats the record is left as it is.
pub fn add_faults(record: &mut EpisodeRecord, seats: impl IntoIterator<Item = (usize, SeatFaults)>) {
    let seats: serde_json::Map<String, Value> =
        seats.into_iter().map(|(seat, f)| (seat.to_string(), serde_json::to_value(f).expect("plain counts"))).collect();
    if seats.is_empty() {
        return;
    }
    record.stats.add("outside", Value::Object(seats));
}
