//! A tournament of `wasm:` entries: a `[[rankings]]` roster mixing built-in policies and
//! modules, named by their labels in team names, `rank` (from team names, and with `--sweep`,
//! where a hand-written cell's module seat is named by its label) and `report`.

use super::{ok, sweep_dir};

#[test]
fn rank_and_report_name_wasm_entries_by_their_labels() {
    let dir = sweep_dir(
        &["bb_archetype", "illegal"],
        r#"name = "wasm-tournament"
seeds = { start = 0, count = 40 }
[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
solo = ["wasm:bb_archetype.wasm?label=port_liar&archetype=liar", "liar", "liar", "liar"]
[[rankings]]
game = "bucket_brigade"
scenarios = ["default"]
roster = [
    "firefighter",
    "free_rider",
    { name = "port_hero", spec = "wasm:bb_archetype.wasm?archetype=hero" },
    "wasm:illegal.wasm",
    "coordinator",
]
team_size = 4
teams = 10
"#,
    );
    ok(dir.path(), &["run", "s.toml", "--out", "r.jsonl", "--quiet"]);
    let rows = super::rows(&dir.path().join("r.jsonl"));
    // Team names list the entries by roster name: a module without one by its label (its stem).
    assert!(rows.iter().any(|r| r["policy_set"].as_str().unwrap().contains("port_hero")));
    assert!(rows.iter().any(|r| r["policy_set"].as_str().unwrap().contains("illegal")));
    let r = dir.path().join("r.jsonl").display().to_string();
    let s = dir.path().join("s.toml").display().to_string();
    let rank = |extra: &[&str]| {
        let mut args = vec!["rank", r.as_str()];
        args.extend_from_slice(extra);
        let out = simfleet_tests::coordinator_output(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let by_names = rank(&[]);
    for entry in ["port_hero", "illegal", "firefighter"] {
        assert!(by_names.contains(entry), "rank names {entry}:\n{by_names}");
    }
    assert!(!by_names.contains("wasm:"), "no hash or spec in the table:\n{by_names}");
    // With the sweep, the hand-written cell's module seat counts too, by its label.
    let by_sweep = rank(&["--sweep", s.as_str()]);
    assert!(by_sweep.contains("wasm:port_liar"), "{by_sweep}");
    let sha = simfleet::outside::wasm::sha256_hex(&std::fs::read(dir.path().join("bb_archetype.wasm")).unwrap());
    assert!(!by_sweep.contains(&sha[..12]), "labels, not hashes:\n{by_sweep}");
    let html = dir.path().join("report.html");
    ok(dir.path(), &["report", r.as_str(), "--out", html.to_str().unwrap()]);
    let report = std::fs::read_to_string(&html).unwrap();
    assert!(report.contains("port_hero") && report.contains("illegal"), "the report names the entries");
}
