//! Golden fixtures (§13): seeds 1..3 of `balanced_5p` and `trio_3p`, all seats `persuadable`
//! and all seats `random`, checked by the games' golden driver. Rows are
//! `scenario,policies,seed,outcome,length,trajectory_hash` with policies joined by `|`.
//! Regenerate with `SIMFLEET_BLESS=1` (or the ignored `bless` test, which the file's header
//! names) only for a deliberate behaviour change.

use crate::games::testing::{bless, golden, Case};
use crate::games::GameKind;

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (scenario, n) in [("balanced_5p", 5), ("trio_3p", 3)] {
        for policy in ["persuadable", "random"] {
            out.push(Case::new(scenario, &vec![policy; n], 1..=3));
        }
    }
    out
}

#[test]
fn golden_fixtures_match() {
    golden(GameKind::Trolley, &cases());
}

#[test]
#[ignore = "rewrites shared/tests/golden/trolley.csv"]
fn bless_golden() {
    bless(GameKind::Trolley, &cases());
}
