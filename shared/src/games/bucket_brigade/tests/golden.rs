//! Golden fixtures: pinned (scenario, policy set, seed) → outcome, length and trajectory hash,
//! from `shared/tests/golden/bucket_brigade.csv`. Regenerate with `SIMFLEET_BLESS=1` (see the
//! file's header) only for a deliberate rules change.

use crate::games::testing::{golden, Case};
use crate::games::GameKind;

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

#[test]
fn golden_episodes_are_unchanged() {
    let cases: Vec<Case> = CASES.iter().map(|(sc, team, seeds)| Case::new(sc, team, seeds.iter().copied())).collect();
    golden(GameKind::BucketBrigade, &cases);
}
