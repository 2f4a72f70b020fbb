//! Golden fixtures (§16): scenario + policy set + seed → outcome, length and trajectory hash,
//! read from `shared/tests/golden/cogsguard.csv` by the games' golden driver. A failure names
//! the CSV line. Regenerate deliberately (with a new rules version) with `SIMFLEET_BLESS=1 cargo
//! test -p simfleet --lib games::cogsguard::tests::golden`.

use super::PINKY8;
use crate::games::testing::{golden, Case};
use crate::games::GameKind;

#[test]
fn golden_fixtures_match() {
    let mut cases = Vec::new();
    for team in [PINKY8, "random", "noop"] {
        cases.push(Case::new("arena", &[team; 8], 1..=3));
    }
    for team in ["pinky?miner=1&aligner=1&scrambler=1", "random"] {
        cases.push(Case::new("ascii?map=tiny_3p", &[team; 3], [42]));
    }
    golden(GameKind::Cogsguard, &cases);
}
