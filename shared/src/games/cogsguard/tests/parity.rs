//! Pinky against the baselines on junction control (the agent reward = time-averaged cogs
//! share of junctions) on the arena scenario. The always-on test plays 8 seeds; the 100-seed
//! comparison is `#[ignore]`d (run with `--ignored --nocapture`) and prints the margin.

use super::{game, PINKY8};
use crate::games::Game;

fn mean_control(team: &str, seeds: std::ops::Range<u64>) -> f64 {
    let mut g = game("arena", &[team; 8]);
    let n = seeds.end - seeds.start;
    seeds.map(|s| g.play(s, false).record.agent_rewards[0]).sum::<f64>() / n as f64
}

fn compare(seeds: std::ops::Range<u64>) -> (f64, f64, f64) {
    let p = mean_control(PINKY8, seeds.clone());
    let r = mean_control("random", seeds.clone());
    let n = mean_control("noop", seeds);
    eprintln!("junction control: pinky {p:.4}, random {r:.4}, noop {n:.4}, margin {:.4}", p - r.max(n));
    (p, r, n)
}

#[test]
fn pinky_beats_random_and_noop_on_junction_control() {
    let (p, r, n) = compare(100..108);
    assert_eq!(n, 0.0, "noop never holds a junction");
    assert!(p - r.max(n) >= 0.1, "pinky {p} random {r} noop {n}");
}

#[test]
#[ignore = "100 arena episodes per team: run with --ignored --nocapture"]
fn pinky_beats_random_and_noop_over_100_seeds() {
    let (p, r, n) = compare(0..100);
    assert!(p - r.max(n) >= 0.15, "pinky {p} random {r} noop {n}");
}

#[test]
#[ignore = "diagnostics"]
fn pinky_diagnostics() {
    let mut g = game("arena", &[PINKY8; 8]);
    for s in 100..108 {
        let r = g.play(s, false).record;
        eprintln!("{s} {:.3} {}", r.agent_rewards[0], serde_json::to_string(&r.stats).unwrap());
    }
}

#[test]
#[ignore = "timing"]
fn pinky_timing() {
    for sc in ["arena", "machina?max_steps=2000"] {
        let mut g = game(sc, &[PINKY8; 8]);
        let t = std::time::Instant::now();
        let mut steps = 0;
        for s in 0..3 {
            steps += u64::from(g.play(s, false).record.length) * 8;
        }
        eprintln!("{sc}: {:.0} agent-steps/s", steps as f64 / t.elapsed().as_secs_f64());
    }
}
