//! §12 statistical targets: crewmate win rates over 10 000 seeds per scenario (all `random`,
//! ±0.02; all `heuristic`, ±0.04), mean `vote_accuracy`, and that heuristic play leaves both
//! teams a chance in every named scenario.

use super::*;
use crate::games::Game;

struct Summary {
    crew_rate: f64,
    mean_accuracy: f64,
}

fn run(scenario: &str, policy: &str, seeds: u64) -> Summary {
    let n = cfg(scenario).num_agents as usize;
    let mut g = prepare(scenario, &all(policy, n)).unwrap();
    let (mut wins, mut acc, mut acc_n) = (0u64, 0.0, 0u64);
    for seed in 0..seeds {
        let r = g.play(seed, false).record;
        wins += u64::from(r.outcome == "crewmates");
        if let Some(a) = r.stats.as_map()["vote_accuracy"].as_f64() {
            acc += a;
            acc_n += 1;
        }
    }
    Summary { crew_rate: wins as f64 / seeds as f64, mean_accuracy: acc / acc_n.max(1) as f64 }
}

#[test]
fn random_play_matches_the_parity_targets() {
    for (scenario, target) in [
        ("classic_5p1i", 0.60),
        ("quick_4p1i", 0.50),
        ("crowded_8p2i", 0.50),
        ("strict_majority_7p2i", 0.024),
        ("tiebreak_6p1i", 0.67),
    ] {
        let s = run(scenario, "random", 10_000);
        eprintln!("random {scenario}: crewmates {:.4}, vote_accuracy {:.4}", s.crew_rate, s.mean_accuracy);
        assert!((s.crew_rate - target).abs() <= 0.02, "{scenario}: crewmate win rate {} vs {target}", s.crew_rate);
        if scenario == "classic_5p1i" {
            assert!((s.mean_accuracy - 0.35).abs() <= 0.02, "vote_accuracy {}", s.mean_accuracy);
        }
    }
}

#[test]
fn heuristic_play_matches_the_parity_targets() {
    for (scenario, target) in [("classic_5p1i", 0.95), ("crowded_8p2i", 0.71)] {
        let s = run(scenario, "heuristic", 10_000);
        eprintln!("heuristic {scenario}: crewmates {:.4}", s.crew_rate);
        assert!((s.crew_rate - target).abs() <= 0.04, "{scenario}: crewmate win rate {} vs {target}", s.crew_rate);
    }
}

#[test]
fn heuristic_play_lets_both_teams_win_in_every_scenario() {
    for e in Deception::INFO.scenarios {
        let s = run(e.name, "heuristic", 300);
        eprintln!("heuristic {} (300 seeds): crewmates {:.3}", e.name, s.crew_rate);
        assert!(s.crew_rate > 0.0 && s.crew_rate < 1.0, "{}: crewmate win rate {}", e.name, s.crew_rate);
    }
}
