//! §12 parity with the reference's published uniform-random baselines: `reference` model,
//! four `random` seats, 1000 episodes, mean of team_reward / length.

use super::*;
use crate::games::Game;

fn mean_per_night(sc: &str) -> f64 {
    let mut g = game(&format!("{sc}?reward_model=reference"), &["random"; 4]);
    let total: f64 = (0..1000)
        .map(|seed| {
            let r = g.play(seed, false).record;
            r.team_reward / f64::from(r.length)
        })
        .sum();
    let mean = total / 1000.0;
    eprintln!("{sc}: mean team_reward / length over 1000 random episodes = {mean:.2}");
    mean
}

#[test]
fn default_within_15_of_251_23() {
    let m = mean_per_night("default");
    assert!((m - 251.23).abs() <= 15.0, "default: {m}");
}

#[test]
fn rest_trap_within_15_of_302_87() {
    let m = mean_per_night("rest_trap");
    assert!((m - 302.87).abs() <= 15.0, "rest_trap: {m}");
}

#[test]
fn trivial_cooperation_is_400_and_exact_per_episode() {
    let mut g = game("trivial_cooperation?reward_model=reference", &["random"; 4]);
    let mut sum = 0.0;
    for seed in 0..1000 {
        let r = g.play(seed, false).record;
        assert_eq!(r.length, 13);
        let work: u64 =
            r.stats.as_map()["agent_work_nights"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).sum();
        let rest = 4 * 13 - work;
        assert_eq!(r.team_reward, 5200.0 + 0.5 * (rest as f64 - work as f64), "seed {seed}");
        sum += r.team_reward / 13.0;
    }
    let m = sum / 1000.0;
    assert!((m - 400.0).abs() < 0.05, "trivial_cooperation: {m}");
}

#[test]
fn random_default_episodes_average_about_13_2_nights() {
    let mut g = game("default", &["random"; 4]);
    let mean = (0..1000).map(|s| f64::from(g.play(s, false).record.length)).sum::<f64>() / 1000.0;
    assert!((13.0..13.5).contains(&mean), "{mean}");
}
