//! Golden fixtures (§16): scenario + policy set + seed → outcome, length and trajectory hash,
//! read from `shared/tests/golden/cogsguard.csv`. A failure names the CSV line. Regenerate
//! deliberately (with a new rules version) with `SIMFLEET_BLESS=1 cargo test -p simfleet --lib
//! games::cogsguard::tests::golden` or the ignored test `bless_golden`.

use super::{record, PINKY8};

const GOLDEN: &str = include_str!("../../../../tests/golden/cogsguard.csv");
const HEADER: &str = "scenario,policies,seed,outcome,length,trajectory_hash";

/// The fixture cells: (scenario, team, seed).
fn cells() -> Vec<(String, Vec<String>, u64)> {
    let mut out = Vec::new();
    for team in [PINKY8, "random", "noop"] {
        for seed in 1..=3 {
            out.push(("arena".to_string(), vec![team.to_string(); 8], seed));
        }
    }
    for team in ["pinky?miner=1&aligner=1&scrambler=1", "random"] {
        out.push(("ascii?map=tiny_3p".to_string(), vec![team.to_string(); 3], 42));
    }
    out
}

fn render() -> String {
    let mut s = String::from(
        "# CogsGuard golden fixtures (cogsguard-rules-1): scenario,policies (joined with |),seed → outcome,length,trajectory_hash.\n\
         # Regenerate only deliberately: SIMFLEET_BLESS=1 cargo test -p simfleet --lib games::cogsguard::tests::golden\n",
    );
    s.push_str(HEADER);
    s.push('\n');
    for (scenario, team, seed) in cells() {
        let refs: Vec<&str> = team.iter().map(String::as_str).collect();
        let r = record(&scenario, &refs, seed);
        s.push_str(&format!("{scenario},{},{seed},{},{},{}\n", team.join("|"), r.outcome, r.length, r.trajectory_hash));
    }
    s
}

fn bless() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/cogsguard.csv");
    std::fs::write(path, render()).expect("write the golden file");
}

#[test]
fn golden_fixtures_match() {
    if std::env::var("SIMFLEET_BLESS").is_ok_and(|v| v == "1") {
        bless();
        return;
    }
    let mut rows = 0;
    for (n, line) in GOLDEN.lines().enumerate() {
        let lineno = n + 1;
        if line.starts_with('#') || line.is_empty() || line == HEADER {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 6, "line {lineno}: {line}");
        let team: Vec<&str> = f[1].split('|').collect();
        let seed: u64 = f[2].parse().unwrap_or_else(|_| panic!("line {lineno}: bad seed"));
        let r = record(f[0], &team, seed);
        assert_eq!(
            (r.outcome.as_str(), r.length.to_string().as_str(), r.trajectory_hash.as_str()),
            (f[3], f[4], f[5]),
            "golden line {lineno}: {line}"
        );
        rows += 1;
    }
    assert_eq!(rows, cells().len(), "every fixture cell has a golden line");
}

#[test]
#[ignore = "rewrites the golden file"]
fn bless_golden() {
    bless();
}
