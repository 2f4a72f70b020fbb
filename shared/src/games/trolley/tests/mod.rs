//! Tests of the trolley game, one file per area:
//!
//! - `roles`: role assignment and the coverage guarantee (§3).
//! - `rules`: the round rules, scoring and the end condition (§4, §8).
//! - `errors`: every §6 error kind, in the §6 order, leaving the state unchanged.
//! - `arena`: the rules driven as the arena drives them, and the JSON views (§12).
//! - `engine`: the headless `reset` / `step` API and snapshots (§7).
//! - `policies`: spec parsing and the scripted policies' draws (§10).
//! - `answers`, `llm`: the `llm` policy (§11): answer mapping and prompts; whole episodes
//!   against a stub transport and the local test server.
//! - `determinism`: the same job gives the same bytes, by the games' driver (§13).
//! - `episodes`: records, statistics, replays, buffers (§13).
//! - `golden`: the golden fixtures in `shared/tests/golden/trolley.csv`.
//! - `props`: proptest invariants (§13's list).
//! - `stats`: typed stats serialize like the map they read as.

mod answers;
mod arena;
mod determinism;
mod engine;
mod episodes;
mod errors;
mod golden;
mod llm;
mod policies;
mod props;
mod roles;
mod rules;
mod stats;

use super::*;
use crate::games::Game;
use crate::spec::Spec;
use crate::RunEnv;

/// A started headless game of `n` agents (`agent_<seat>`), with its events.
pub(super) fn started(n: u8, minority: MinoritySize, max_rounds: Option<u32>, seed: u64) -> (TrolleyState, Vec<Event>) {
    let mut events = Vec::new();
    let config = TrolleyConfig::fixed(n, minority, max_rounds, Decision::SaveMajority);
    let mut s = TrolleyState::new_game(config, seed, 0, &mut events).unwrap();
    for seat in 0..usize::from(n) {
        let id = format!("agent_{seat}");
        s.register(&id, &id, &mut events).unwrap();
    }
    s.start(&mut events).unwrap();
    (s, events)
}

/// The current round (cloned).
pub(super) fn current(s: &TrolleyState) -> Round {
    s.current_round().unwrap().clone()
}

/// Every side agent that has not acted yet skips the current phase.
pub(super) fn all_skip(s: &mut TrolleyState) {
    let r = current(s);
    for seat in r.missing().iter() {
        s.skip(r.id, seat, SkipCause::Agent, &mut NoEvents).unwrap();
    }
}

/// Plays the current round to resolution with `decision` (all side agents skip).
pub(super) fn play_round(s: &mut TrolleyState, decision: Decision) -> Resolution {
    for _ in 0..3 {
        all_skip(s);
    }
    let r = current(s);
    s.submit_decision(r.id, usize::from(r.operator), decision.as_str(), &mut NoEvents).unwrap()
}

/// A prepared game from spec strings.
pub(super) fn prepare(scenario: &str, team: &[&str]) -> Result<Trolley, crate::protocol::JobError> {
    let scenario = Spec::parse(scenario).unwrap();
    let team: Vec<Spec> = team.iter().map(|s| Spec::parse(s).unwrap()).collect();
    Trolley::prepare(&scenario, &team, &RunEnv::default())
}

/// `n` copies of one policy spec.
pub(super) fn team(policy: &str, n: usize) -> Vec<&str> {
    vec![policy; n]
}
