//! Golden fixtures: `shared/tests/golden/deception.csv` pins outcome, length and trajectory
//! hash per (scenario, policy set, seed), checked by the games' golden driver. Any change to
//! rules, draw order or policies shows here and must come with a new rules version.
//!
//! Regenerate deliberately with
//! `SIMFLEET_BLESS=1 cargo test -p simfleet --lib games::deception::tests::golden`, then review
//! the diff.

use crate::games::testing::{golden, Case};
use crate::games::GameKind;

#[test]
fn golden_fixtures_hold() {
    // Seeds 1..3 of the spec's fixtures plus every other named scenario.
    let sets = [
        ("classic_5p1i", 5),
        ("crowded_8p2i", 8),
        ("quick_4p1i", 4),
        ("strict_majority_7p2i", 7),
        ("tiebreak_6p1i", 6),
    ];
    let mut cases = Vec::new();
    for (scenario, n) in sets {
        for policy in ["heuristic", "random"] {
            cases.push(Case::new(scenario, &vec![policy; n], 1..=3));
        }
    }
    let mixed = ["heuristic?aggression=0.8", "random", "heuristic", "random?abstain=0", "heuristic?deflection=0.1"];
    cases.push(Case::new("classic_5p1i?tie_policy=random&max_ticks=8", &mixed, [7]));
    golden(GameKind::Deception, &cases);
}
