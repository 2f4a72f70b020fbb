//! Golden fixtures: `shared/tests/golden/deception.csv` pins outcome, length and trajectory
//! hash per (scenario, policy set, seed). Any change to rules, draw order or policies shows here
//! and must come with a new rules version.
//!
//! Regenerate deliberately with
//! `SIMFLEET_BLESS=1 cargo test -p simfleet --lib games::deception::tests::golden`
//! (or run the ignored test `bless_golden`), then review the diff.

use super::*;
use crate::games::Game;

const GOLDEN: &str = include_str!("../../../../tests/golden/deception.csv");

/// The cases: seeds 1..3 of the spec's fixtures plus every other named scenario.
fn cases() -> Vec<(String, Vec<String>, u64)> {
    let mut out = Vec::new();
    let sets = [
        ("classic_5p1i", 5),
        ("crowded_8p2i", 8),
        ("quick_4p1i", 4),
        ("strict_majority_7p2i", 7),
        ("tiebreak_6p1i", 6),
    ];
    for (scenario, n) in sets {
        for policy in ["heuristic", "random"] {
            for seed in 1..=3 {
                out.push((scenario.to_string(), vec![policy.to_string(); n], seed));
            }
        }
    }
    let mixed = ["heuristic?aggression=0.8", "random", "heuristic", "random?abstain=0", "heuristic?deflection=0.1"];
    out.push(("classic_5p1i?tie_policy=random&max_ticks=8".into(), mixed.iter().map(|s| s.to_string()).collect(), 7));
    out
}

fn render() -> String {
    let mut s = String::from(
        "# deception golden fixtures (deception-rules-1): scenario,policies,seed,outcome,length,trajectory_hash\n\
         # Regenerate only deliberately: SIMFLEET_BLESS=1 cargo test -p simfleet --lib games::deception::tests::golden\n",
    );
    for (scenario, team, seed) in cases() {
        let refs: Vec<&str> = team.iter().map(String::as_str).collect();
        let r = prepare(&scenario, &refs).unwrap().play(seed, false).record;
        s.push_str(&format!("{scenario},{},{seed},{},{},{}\n", team.join("|"), r.outcome, r.length, r.trajectory_hash));
    }
    s
}

fn path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/deception.csv")
}

#[test]
fn golden_fixtures_hold() {
    if std::env::var("SIMFLEET_BLESS").as_deref() == Ok("1") {
        std::fs::write(path(), render()).unwrap();
        return;
    }
    let mut rows = 0;
    for (i, line) in GOLDEN.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 6, "line {}: {line}", i + 1);
        let team: Vec<&str> = f[1].split('|').collect();
        let r = prepare(f[0], &team).unwrap().play(f[2].parse().unwrap(), false).record;
        assert_eq!(
            (r.outcome.as_str(), r.length.to_string().as_str(), r.trajectory_hash.as_str()),
            (f[3], f[4], f[5]),
            "golden line {}: {line}",
            i + 1
        );
        rows += 1;
    }
    assert_eq!(rows, cases().len(), "every case has a golden row");
}

#[test]
#[ignore = "rewrites the golden file; run deliberately"]
fn bless_golden() {
    std::fs::write(path(), render()).unwrap();
}
