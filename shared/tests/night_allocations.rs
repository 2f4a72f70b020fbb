//! A Bucket Brigade night never touches the heap.
//!
//! A test binary of its own because it swaps the global allocator for a counting one
//! (the `allocation-counter` dev-dependency; the workspace forbids the `unsafe` a hand-made one
//! would need). The count is per thread, so tests running in parallel do not disturb it.
//!
//! Every night of every episode below is measured on its own: the policies' signals and
//! actions and `Town::advance`, which is all a night is. Whole episodes without a replay are
//! measured too (stream set-up, the first draws, every night), and a played record is measured
//! to show the counter sees the allocations there are.

use allocation_counter::measure;
use simfleet::games::bucket_brigade::{
    play_episode, Action, AnyPolicy, BucketBrigade, Mode, NightDraws, Policy, Scenario, Seat, Town, MAX_AGENTS,
};
use simfleet::seeding::{agent_stream, Stream};
use simfleet::{Game, Spec};

/// Scenarios and teams covering both reward models, the contagion variant, 4 to 10 agents,
/// long episodes and every policy form.
const CELLS: [(&str, &[&str]); 5] = [
    ("default", &["random", "random", "random", "random"]),
    ("default?min_nights=99", &["firefighter", "free_rider", "hero", "coordinator"]),
    (
        "chain_reaction?spread_before_burnout=true&reward_model=reference&num_agents=6",
        &["liar", "random", "heuristic", "hero", "coordinator", "heuristic:0.9,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9"],
    ),
    ("hard?num_agents=10&min_nights=40", &["firefighter"; 10]),
    ("easy?reward_model=reference", &["heuristic?exploration_rate=0.9&fatigue_memory=0.5"; 4]),
];

fn prepare(scenario: &str, team: &[&str]) -> (Scenario, Vec<Seat>) {
    let sc = Scenario::from_spec(&Spec::parse(scenario).unwrap()).unwrap();
    let seats = team
        .iter()
        .enumerate()
        .map(|(i, s)| Seat::new(AnyPolicy::from_spec(i, &Spec::parse(s).unwrap()).unwrap()))
        .collect();
    (sc, seats)
}

#[test]
fn no_night_allocates() {
    let mut nights = 0;
    for (scenario, team) in CELLS {
        let (sc, mut seats) = prepare(scenario, team);
        let n = sc.num_agents;
        for seed in 0..200 {
            // The episode loop of `play_episode`, a night at a time.
            let mut env = Stream::env(seed);
            let mut town =
                Town::new(n, simfleet::games::bucket_brigade::initial_houses(&mut env, sc.prob_house_catches_fire));
            for (i, seat) in seats.iter_mut().enumerate() {
                seat.rng.reset(seed, agent_stream(i));
                seat.policy.reset(i, &sc);
            }
            let mut signals = [Mode::Rest; MAX_AGENTS];
            let mut actions = [Action::new(0, Mode::Rest); MAX_AGENTS];
            let mut draws = NightDraws::QUIET;
            loop {
                let mut ended = false;
                let info = measure(|| {
                    draws.fill(&mut env, sc.spread_before_burnout);
                    for (i, seat) in seats.iter_mut().enumerate() {
                        signals[i] = seat.policy.signal(&town.observation(&sc, i, None), &mut seat.rng);
                    }
                    for (i, seat) in seats.iter_mut().enumerate() {
                        let obs = town.observation(&sc, i, Some(&signals[..n]));
                        actions[i] = seat.policy.act(&obs, &mut seat.rng);
                    }
                    let night = town.advance(&sc, &draws, &signals[..n], &actions[..n]).unwrap();
                    ended = night.end.is_some();
                });
                assert_eq!(info.count_total, 0, "{scenario} {team:?}, seed {seed}, night {}", town.nights());
                nights += 1;
                if ended {
                    break;
                }
            }
        }
    }
    // The cells above are long enough that this many nights were measured.
    assert!(nights > 30_000, "{nights} nights");
}

#[test]
fn no_episode_without_a_replay_allocates() {
    for (scenario, team) in CELLS {
        let (sc, mut seats) = prepare(scenario, team);
        for seed in 1000..1200 {
            let info = measure(|| {
                std::hint::black_box(play_episode(&sc, &mut seats, seed, None));
            });
            assert_eq!(info.count_total, 0, "{scenario} {team:?}, seed {seed}");
        }
    }
}

#[test]
fn the_counter_sees_a_records_allocations() {
    // A record holds two strings (outcome, trajectory hash), a vector (agent rewards) and its
    // typed stats, one allocation each: if the counter saw nothing here, the zeros above would
    // prove nothing. (Before the stats were typed, the map's clone was 14 more.)
    let mut game = BucketBrigade::from_strs("default", &["random"; 4]).unwrap();
    let info = measure(|| {
        std::hint::black_box(game.play(7, false));
    });
    assert_eq!(info.count_total, 4, "{info:?}");
    // And a replay's log grows: a played episode with a replay allocates more.
    let with_replay = measure(|| {
        std::hint::black_box(game.play(7, true));
    });
    assert!(with_replay.count_total > info.count_total, "{with_replay:?} vs {info:?}");
}
