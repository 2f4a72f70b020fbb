//! Engine tests: rules on small ASCII maps (`rules.rs`, `events.rs`), map generation and the
//! ASCII format (`maps.rs`), scenarios and policy specs (`validation.rs`), property tests
//! (`props.rs`), determinism and allocation checks (`determinism.rs`), golden fixtures
//! (`golden.rs`) and the Pinky-vs-baselines comparison (`parity.rs`).

mod determinism;
mod events;
mod golden;
mod maps;
mod parity;
mod props;
mod rules;
mod validation;

use crate::games::Game;
use crate::protocol::EpisodeRecord;
use crate::seeding::Stream;
use crate::spec::Spec;
use crate::RunEnv;

use super::ascii;
use super::state::World;
use super::Cogsguard;

/// A world loaded from map text (headers apply; defaults otherwise).
pub(crate) fn world(text: &str) -> World {
    let l = ascii::parse(text).expect("test map parses");
    let mut w = World::default();
    w.load(&l, l.max_steps.unwrap_or(1000), l.clips.unwrap_or(true));
    w
}

/// Steps a world with the environment stream of seed 0.
pub(crate) fn step(w: &mut World, env: &mut Stream, actions: &[u8]) {
    w.step(actions, env).expect("legal actions");
}

/// A prepared game.
pub(crate) fn game(scenario: &str, team: &[&str]) -> Cogsguard {
    let sc = Spec::parse(scenario).expect("scenario parses");
    let team: Vec<Spec> = team.iter().map(|s| Spec::parse(s).expect("policy parses")).collect();
    Cogsguard::prepare(&sc, &team, &RunEnv::default()).expect("valid job")
}

/// One episode's record.
pub(crate) fn record(scenario: &str, team: &[&str], seed: u64) -> EpisodeRecord {
    game(scenario, team).play(seed, false).record
}

/// The Pinky team of the golden fixtures.
pub(crate) const PINKY8: &str = "pinky?miner=2&scout=1&aligner=2&scrambler=1";
