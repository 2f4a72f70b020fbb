//! §9: the same job gives the same records and replays, however it is split or ordered (the
//! games' determinism driver), and policy sets on one seed face the same roles. Also: warm
//! episodes do not grow buffers.

use super::*;
use crate::games::testing::same_job_same_bytes;
use crate::games::{Game, GameKind};
use crate::protocol::encode;

#[test]
fn same_job_same_bytes_however_run() {
    for (scenario, n) in [("classic_5p1i", 5), ("crowded_8p2i", 8), ("tiebreak_6p1i", 6)] {
        let mixed: Vec<&str> = (0..n).map(|i| if i % 2 == 0 { "heuristic" } else { "random" }).collect();
        same_job_same_bytes(GameKind::Deception, scenario, &mixed, 0, 20);
    }
    let seats = ["heuristic", "random", "heuristic?aggression=0.9", "random?propose=0.2", "heuristic"];
    same_job_same_bytes(GameKind::Deception, "classic_5p1i", &seats, 100, 40);
}

#[test]
fn the_largest_seed_plays_the_same_twice() {
    let mixed = all("heuristic", 5);
    let (mut a, mut b) = (prepare("classic_5p1i", &mixed).unwrap(), prepare("classic_5p1i", &mixed).unwrap());
    let x = a.play(u64::MAX, true);
    b.play(7, true);
    let y = b.play(u64::MAX, true);
    assert_eq!(encode(&x.record), encode(&y.record));
    assert_eq!(x.replay, y.replay);
}

#[test]
fn other_policies_face_the_same_roles() {
    let mut h = prepare("crowded_8p2i", &all("heuristic", 8)).unwrap();
    let mut r = prepare("crowded_8p2i", &all("random", 8)).unwrap();
    for seed in 0..50 {
        assert_eq!(
            h.play(seed, false).record.stats.as_map()["roles"],
            r.play(seed, false).record.stats.as_map()["roles"]
        );
    }
}

#[test]
fn warm_episodes_do_not_grow_buffers() {
    // The hot path allocates nothing per step: every buffer lives in the prepared game and is
    // reused. Replaying a seed after it warmed the buffers must not grow any of them.
    for (scenario, n) in [("classic_5p1i", 5), ("crowded_8p2i", 8)] {
        let mut g = prepare(scenario, &all("heuristic", n)).unwrap();
        for seed in 0..50 {
            g.play(seed, false);
            let warm = g.buffer_capacities();
            g.play(seed, false);
            assert_eq!(g.buffer_capacities(), warm, "{scenario} seed {seed}");
        }
    }
}

/// Nanoseconds this thread has spent on a CPU (Linux `schedstat`), so a throughput figure does
/// not depend on how loaded the machine is.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

#[test]
#[ignore = "a measurement, not a check: cargo test --release … cpu_throughput -- --ignored --nocapture"]
fn cpu_throughput() {
    for (scenario, n) in
        [("classic_5p1i", 5), ("crowded_8p2i", 8), ("quick_4p1i", 4), ("strict_majority_7p2i", 7), ("tiebreak_6p1i", 6)]
    {
        for policy in ["heuristic", "random"] {
            let mut g = prepare(scenario, &all(policy, n)).unwrap();
            let episodes = 20_000;
            let start = thread_cpu_ns().expect("Linux schedstat");
            for seed in 0..episodes {
                std::hint::black_box(g.play(seed, false));
            }
            let ns = (thread_cpu_ns().unwrap() - start) as f64;
            let per_job = Deception::default_episodes_per_job(&Spec::parse(scenario).unwrap()) as f64;
            eprintln!(
                "{scenario}/{policy}: {:.0} episodes per CPU-second ({:.2} µs each; default job {:.1} ms)",
                episodes as f64 * 1e9 / ns,
                ns / episodes as f64 / 1e3,
                per_job * ns / episodes as f64 / 1e6,
            );
        }
    }
}
