//! The policy loop (spec §3 and §4 steps 1–3): seats the team, draws the environment, asks
//! each policy for its signal and then its action, and hands them to [`Town::advance`].
//!
//! This is a thin layer: every rule lives in `Town::advance` and rules.rs, which tests drive
//! without policies. Nothing here allocates per night except the optional replay log.

use crate::seeding::{agent_stream, Stream};

use super::action::{Action, Mode};
use super::draws::{self, NightDraws};
use super::policies::{AnyPolicy, Policy};
use super::scenario::{Scenario, MAX_AGENTS};
use super::state::{NightReport, Town};

/// One agent seat: its policy and its random stream (agent i uses stream i + 1).
#[derive(Clone, Debug)]
pub struct Seat {
    /// The policy.
    pub policy: AnyPolicy,
    /// Its stream, re-keyed by every episode seed.
    pub rng: Stream,
}

impl Seat {
    /// A seat for `policy` (its stream is set at the start of each episode).
    pub fn new(policy: AnyPolicy) -> Seat {
        Seat { policy, rng: Stream::new(0, 0) }
    }
}

/// One night as the replay shows it: the signals, the actions and what they led to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NightLog {
    /// The N signals (entries past N unused).
    pub signals: [Mode; MAX_AGENTS],
    /// The N actions (entries past N unused).
    pub actions: [Action; MAX_AGENTS],
    /// What the night did.
    pub report: NightReport,
}

/// Plays one episode of `seed` with the team in `seats` (one per agent, in seat order) and
/// returns the finished town. When `log` is given, it is cleared and receives every night.
///
/// # Panics
///
/// If `seats.len()` differs from `num_agents` (`prepare` makes sure it does not).
pub fn play(sc: &Scenario, seats: &mut [Seat], seed: u64, mut log: Option<&mut Vec<NightLog>>) -> Town {
    let n = sc.num_agents;
    assert_eq!(seats.len(), n, "one seat per agent");
    let mut env = Stream::env(seed);
    let mut town = Town::new(n, draws::initial_houses(&mut env, sc.prob_house_catches_fire));
    for (i, seat) in seats.iter_mut().enumerate() {
        seat.rng.reset(seed, agent_stream(i));
        seat.policy.reset(i, sc);
    }
    if let Some(log) = log.as_deref_mut() {
        log.clear();
    }
    let mut signals = [Mode::Rest; MAX_AGENTS];
    let mut actions = [Action::new(0, Mode::Rest); MAX_AGENTS];
    let mut night_draws = NightDraws::QUIET;
    loop {
        // The environment stream is the engine's alone, so drawing the night's values before
        // the policies move changes nothing they see.
        night_draws.fill(&mut env, sc.spread_before_burnout);
        for (i, seat) in seats.iter_mut().enumerate() {
            signals[i] = seat.policy.signal(&town.observation(sc, i, None), &mut seat.rng);
        }
        for (i, seat) in seats.iter_mut().enumerate() {
            actions[i] = seat.policy.act(&town.observation(sc, i, Some(&signals[..n])), &mut seat.rng);
        }
        // Every scripted policy picks its house with index(10) or weighted over ten houses,
        // so a refusal here is a bug in a policy, which the runner reports as engine_panic.
        let night = town
            .advance(sc, &night_draws, &signals[..n], &actions[..n])
            .expect("scripted policies only choose houses 0..9");
        if let Some(log) = log.as_deref_mut() {
            log.push(NightLog { signals, actions, report: night.report() });
        }
        if night.end.is_some() {
            return town;
        }
    }
}
