//! Golden fixtures (§13): seeds 1..3 of `balanced_5p` and `trio_3p`, all seats `persuadable`
//! and all seats `random`. Rows are `scenario,policies,seed,outcome,length,trajectory_hash`
//! with policies joined by `|`. Regenerate with `SIMFLEET_BLESS=1` (or the ignored `bless`
//! test) only for a deliberate behaviour change.

use super::*;

const GOLDEN: &str = include_str!("../../../../tests/golden/trolley.csv");
const HEADER: &str = "scenario,policies,seed,outcome,length,trajectory_hash";

/// The rows the fixture must hold, computed by the current engine.
fn rows() -> Vec<String> {
    let mut out = Vec::new();
    for (scenario, n) in [("balanced_5p", 5), ("trio_3p", 3)] {
        for policy in ["persuadable", "random"] {
            let team = team(policy, n);
            let mut g = prepare(scenario, &team).unwrap();
            for seed in 1..=3 {
                let r = g.play(seed, false).record;
                out.push(format!(
                    "{scenario},{},{seed},{},{},{}",
                    team.join("|"),
                    r.outcome,
                    r.length,
                    r.trajectory_hash
                ));
            }
        }
    }
    out
}

fn write_fixture() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/trolley.csv");
    let comments: Vec<&str> = GOLDEN.lines().take_while(|l| l.starts_with('#')).collect();
    let text = format!("{}\n{HEADER}\n{}\n", comments.join("\n"), rows().join("\n"));
    std::fs::write(path, text).expect("write the golden fixture");
}

#[test]
fn golden_fixtures_match() {
    if std::env::var_os("SIMFLEET_BLESS").is_some_and(|v| v == "1") {
        write_fixture();
        return;
    }
    let mut lines = GOLDEN.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty());
    assert_eq!(lines.next().map(|(_, l)| l), Some(HEADER), "golden header");
    let expected = rows();
    let mut seen = 0;
    for (i, line) in lines {
        let cols: Vec<&str> = line.split(',').collect();
        assert_eq!(cols.len(), 6, "line {}: {line}", i + 1);
        let team: Vec<&str> = cols[1].split('|').collect();
        let mut g = prepare(cols[0], &team).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        let r = g.play(cols[2].parse().unwrap(), false).record;
        let got = format!("{},{},{}", r.outcome, r.length, r.trajectory_hash);
        assert_eq!(got, cols[3..].join(","), "golden line {} ({line})", i + 1);
        assert!(expected.iter().any(|e| e == line), "line {} is not one of the spec's fixtures", i + 1);
        seen += 1;
    }
    assert_eq!(seen, expected.len(), "the fixture must hold every spec row");
}

#[test]
#[ignore = "rewrites shared/tests/golden/trolley.csv"]
fn bless() {
    write_fixture();
}
