//! Golden fixtures: pinned (scenario, policy set, seed) → outcome, length and trajectory hash,
//! from `shared/tests/golden/bucket_brigade.csv`. Regenerate with `SIMFLEET_BLESS=1` (see the
//! file's header) only for a deliberate rules change.

use super::*;
use crate::games::Game;

const GOLDEN: &str = include_str!("../../../../tests/golden/bucket_brigade.csv");

/// The episodes pinned by a bless: several scenarios, both reward models, the contagion
/// variant, truncation, 4 to 10 agents, and every policy form.
const CASES: &[(&str, &[&str], &[u64])] = &[
    ("default", &["random", "random", "random", "random"], &[0, 1, 2]),
    ("default?reward_model=reference", &["firefighter", "firefighter", "firefighter", "firefighter"], &[3, 4]),
    ("default?prob_house_catches_fire=0.5", &["random", "hero", "liar", "free_rider"], &[5]),
    ("easy", &["hero", "liar", "coordinator", "free_rider"], &[6]),
    ("hard?spread_before_burnout=true", &["firefighter", "random", "heuristic", "liar"], &[7, 8]),
    (
        "chain_reaction?spread_before_burnout=true&reward_model=reference",
        &["coordinator", "coordinator", "coordinator", "coordinator"],
        &[9],
    ),
    ("rest_trap?reward_model=reference", &["random", "random", "random", "random"], &[10]),
    ("trivial_cooperation", &["heuristic", "heuristic", "heuristic", "heuristic"], &[11]),
    (
        "deceptive_calm?num_agents=6",
        &["liar", "hero", "random", "coordinator", "free_rider", "heuristic:0.9,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9"],
        &[12],
    ),
    (
        "asym_b09_k09_c05?num_agents=10&prob_house_catches_fire=0.2&spread_before_burnout=true",
        &[
            "random",
            "random",
            "random",
            "random",
            "random",
            "firefighter",
            "firefighter",
            "firefighter",
            "firefighter",
            "firefighter",
        ],
        &[13],
    ),
    (
        "default?min_nights=100&prob_house_catches_fire=0.1",
        &["archetype:hero?fatigue_memory=0", "random", "archetype:liar", "firefighter?exploration_rate=0"],
        &[14],
    ),
    ("overcrowding", &["heuristic?work_tendency=0.9&altruism_factor=0", "random", "random", "hero"], &[15]),
    ("early_containment?reward_model=reference", &["firefighter", "free_rider", "firefighter", "free_rider"], &[16]),
    ("greedy_neighbor", &["free_rider", "free_rider", "hero", "random"], &[17]),
    ("sparse_heroics?num_agents=5", &["hero", "hero", "liar", "liar", "random"], &[18]),
    ("mixed_motivation?spread_before_burnout=true", &["coordinator", "liar", "hero", "firefighter"], &[19]),
    ("minimal_specialization", &["random", "firefighter", "random", "firefighter"], &[20]),
    ("asym_b05_k09_c05?reward_model=reference", &["liar", "liar", "liar", "liar"], &[21]),
    ("hard?prob_house_catches_fire=1", &["random", "random", "random", "random"], &[u64::MAX]),
];

fn row(scenario: &str, team: &[&str], seed: u64) -> String {
    let rec = game(scenario, team).play(seed, false).record;
    format!("{scenario},{},{seed},{},{},{}", team.join("|"), rec.outcome, rec.length, rec.trajectory_hash)
}

#[test]
fn golden_episodes_are_unchanged() {
    if std::env::var("SIMFLEET_BLESS").as_deref() == Ok("1") {
        let header: String = GOLDEN.lines().take_while(|l| l.starts_with('#')).map(|l| format!("{l}\n")).collect();
        let mut out = header + "scenario,policies,seed,outcome,length,trajectory_hash\n";
        for (sc, team, seeds) in CASES {
            for &seed in *seeds {
                out += &row(sc, team, seed);
                out.push('\n');
            }
        }
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/bucket_brigade.csv");
        std::fs::write(path, out).expect("write the golden file");
        return;
    }
    let mut checked = 0;
    for (i, line) in GOLDEN.lines().enumerate() {
        let lineno = i + 1;
        if line.starts_with('#') || line.starts_with("scenario,") || line.trim().is_empty() {
            continue;
        }
        let (scenario, rest) = line.split_once(',').unwrap_or_else(|| panic!("line {lineno}: too few columns"));
        let cols: Vec<&str> = rest.rsplitn(5, ',').collect();
        assert_eq!(cols.len(), 5, "line {lineno}: expected 6 columns");
        let (hash, length, outcome, seed, policies) = (cols[0], cols[1], cols[2], cols[3], cols[4]);
        let team: Vec<&str> = policies.split('|').collect();
        let seed: u64 = seed.parse().unwrap_or_else(|_| panic!("line {lineno}: bad seed {seed}"));
        let got = row(scenario, &team, seed);
        assert_eq!(
            got, line,
            "line {lineno}: {scenario} {policies} seed {seed} (expected {outcome}, {length}, {hash})"
        );
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} golden rows");
}
