//! Fingerprints of every engine's output: one FNV-1a 64 digest per game over the MessagePack
//! bytes of many records (and the JSON of every seventh episode's replay), across scenarios,
//! policy forms and team sizes.
//!
//! The golden fixtures pin a handful of episodes each; these pin thousands, so that a speed-up
//! which changes any record, even one in a rarely taken branch, fails here. The digests were
//! computed by the engines as they were before the speed work of issue 17 and never change
//! unless a rules version does.

use crate::games::{AnyGame, GameKind};
use crate::protocol::encode;
use crate::seeding::Fnv64;
use crate::spec::Spec;
use crate::RunEnv;

/// One cell: a scenario, a team (one spec per seat) and a number of seeds from 0.
type Cell<'a> = (&'a str, &'a [&'a str], u64);

/// The digest of `cells` of `kind`: every record's bytes, and every seventh episode's replay.
fn digest(kind: GameKind, cells: &[Cell<'_>]) -> u64 {
    let mut h = Fnv64::new();
    for &(scenario, team, seeds) in cells {
        let scenario = Spec::parse(scenario).unwrap();
        let team: Vec<Spec> = team.iter().map(|s| Spec::parse(s).unwrap()).collect();
        let mut game = AnyGame::prepare(kind, &scenario, &team, &RunEnv::default())
            .unwrap_or_else(|e| panic!("{kind} {scenario} {team:?}: {e}"));
        for seed in 0..seeds {
            let ep = game.play(seed, seed % 7 == 3);
            h.bytes(&encode(&ep.record));
            if let Some(replay) = ep.replay {
                h.bytes(replay.as_bytes());
            }
        }
    }
    h.finish()
}

#[test]
fn bucket_brigade_records_are_unchanged() {
    const MIXED: &[&str] = &["firefighter", "free_rider", "hero", "coordinator"];
    let mut cells: Vec<Cell<'_>> = vec![
        ("default", &["random"; 4], 2000),
        ("default", &["firefighter"; 4], 2000),
        ("default?reward_model=reference", &["liar", "random", "heuristic", "hero"], 500),
        ("chain_reaction?spread_before_burnout=true", &["coordinator", "random", "heuristic", "liar"], 500),
        (
            "hard?num_agents=6&spread_before_burnout=true&reward_model=reference",
            &[
                "random",
                "firefighter",
                "liar",
                "hero",
                "free_rider",
                "heuristic:0.9,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9",
            ],
            300,
        ),
        ("asym_b09_k09_c05?num_agents=10&prob_house_catches_fire=0.2", &["random"; 10], 200),
        ("default?num_agents=10&min_nights=30", &["heuristic?exploration_rate=0.5&fatigue_memory=0.5"; 10], 200),
        ("hard?prob_house_catches_fire=0.4&prob_solo_agent_extinguishes_fire=0.05", &["hero"; 4], 100),
    ];
    for name in crate::games::bucket_brigade::SCENARIO_NAMES {
        cells.push((name, MIXED, 100));
    }
    assert_eq!(digest(GameKind::BucketBrigade, &cells), 0x829a12b9d662db4b);
}

#[test]
fn deception_records_are_unchanged() {
    let cells: Vec<Cell<'_>> = vec![
        ("classic_5p1i", &["heuristic"; 5], 1000),
        ("classic_5p1i", &["random"; 5], 300),
        ("quick_4p1i", &["heuristic", "random", "heuristic?aggression=0.9&bandwagon=0.1", "random?propose=0.5"], 300),
        ("crowded_8p2i", &["heuristic"; 8], 200),
        (
            "strict_majority_7p2i",
            &["heuristic", "random", "heuristic", "random", "heuristic", "random", "heuristic"],
            200,
        ),
    ];
    assert_eq!(digest(GameKind::Deception, &cells), 0x97b85141a1341fe8);
}

#[test]
fn trolley_records_are_unchanged() {
    let cells: Vec<Cell<'_>> = vec![
        ("balanced_5p", &["persuadable"; 5], 1000),
        ("balanced_5p", &["random"; 5], 300),
        ("trio_3p", &["utilitarian", "contrarian", "persuadable"], 300),
        ("balanced_6p", &["contrarian", "random", "persuadable", "utilitarian", "random", "persuadable"], 200),
        ("classic_7p_5v1", &["persuadable"; 7], 200),
        (
            "large_10p",
            &[
                "persuadable",
                "random",
                "utilitarian",
                "contrarian",
                "persuadable",
                "persuadable",
                "random",
                "utilitarian",
                "contrarian",
                "persuadable",
            ],
            100,
        ),
    ];
    assert_eq!(digest(GameKind::Trolley, &cells), 0xde21249dd64b108f);
}

#[test]
fn cogsguard_records_are_unchanged() {
    const PINKY: &str = "pinky?miner=2&scout=1&aligner=2&scrambler=1";
    let cells: Vec<Cell<'_>> = vec![
        ("arena", &["noop"; 8], 2),
        ("arena", &["random"; 8], 3),
        ("arena", &[PINKY; 8], 6),
        ("arena?max_steps=3000&num_agents=6", &["pinky?miner=2&scout=0&aligner=3&scrambler=1"; 6], 2),
        ("machina", &[PINKY; 8], 1),
    ];
    assert_eq!(digest(GameKind::Cogsguard, &cells), 0x43f97791e9c6eba9);
}
