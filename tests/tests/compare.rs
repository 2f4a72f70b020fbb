//! `coordinator compare` and the report's first section from the command line: `run` a sweep
//! in every export format, `compare` each (the same table), a planted zero difference (the
//! baseline again under another name), seeds one side lacks, an unknown baseline, and `report
//! --baseline` leading with the heatmap and the forest plots.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

const SWEEP: &str = r#"
name = "compare-cli"
seeds = { start = 0, count = 60 }
episodes_per_job = 30

[[cells]]
game = "bucket_brigade"
scenarios = ["default", "hard"]
[cells.policy_sets]
heroes = ["hero", "hero", "hero", "hero"]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
random = ["random", "random", "random", "random"]
random_again = ["random", "random", "random", "random"]
"#;

fn coordinator(args: &[&str]) -> Output {
    simfleet_tests::coordinator_output(args)
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "coordinator failed ({}):\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The table row of `scenario` / `policy_set`, split on whitespace.
fn row<'a>(table: &'a str, scenario: &str, policy_set: &str) -> Vec<&'a str> {
    table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|w| w.len() > 3 && w[1] == scenario && w[2] == policy_set)
        .unwrap_or_else(|| panic!("no row {scenario} / {policy_set} in\n{table}"))
}

#[test]
fn compare_and_report_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("sweep.toml");
    std::fs::write(&sweep, SWEEP).unwrap();

    // Every export format gives the same comparisons.
    let mut tables = Vec::new();
    for ext in ["jsonl", "csv", "msgpack", "parquet"] {
        let results = dir.path().join(format!("r.{ext}"));
        ok(&coordinator(&["run", path(&sweep), "--out", path(&results), "--quiet"]));
        tables.push(ok(&coordinator(&["compare", path(&results)])));
    }
    let table = &tables[0];
    assert!(tables.iter().all(|t| t == table), "formats differ:\n{}", tables.join("\n"));
    assert!(table.starts_with("baseline: random "), "random is the default baseline:\n{table}");
    assert!(table.contains("Holm-corrected across the 6 comparisons"), "{table}");

    // The same seats under another name play the same episodes: a planted difference of 0.
    let same = row(table, "default", "random_again");
    assert_eq!(&same[3..=6], ["60", "0", "+0.00", "0.00"], "{table}");
    assert_eq!(same[same.len() - 2..], ["1.0000", "1.0000"], "p and p (Holm) of no difference");
    // Firefighters beat heroes on `default` (the README's example), and pairing narrows it.
    let results = dir.path().join("r.jsonl");
    let out = dir.path().join("cmp.json");
    let text = ok(&coordinator(&["compare", path(&results), "--baseline", "heroes", "--out", path(&out)]));
    assert!(text.starts_with("baseline: heroes "), "{text}");
    let records: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(records.len(), 6, "three policy sets against heroes in two scenarios");
    for r in &records {
        let (low, diff, high) = (r["reward_low"].as_f64(), r["reward_diff"].as_f64(), r["reward_high"].as_f64());
        assert!(low <= diff && diff <= high, "{r}");
        assert!(r["p_holm"].as_f64() >= r["p"].as_f64(), "{r}");
        assert_eq!(r["pairs"], 60);
    }
    let ff = records.iter().find(|r| r["scenario"] == "default" && r["policy_set"] == "firefighters").unwrap();
    assert!(ff["reward_low"].as_f64() > Some(0.0), "firefighters beat heroes on default: {ff}");
    assert!(ff["narrower"].as_f64() > Some(1.3), "paired narrower than unpaired: {ff}");

    // Seeds one side lacks are left out and counted.
    let partial = dir.path().join("partial.jsonl");
    let all = std::fs::read_to_string(&results).unwrap();
    let kept: Vec<&str> = all
        .lines()
        .filter(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            !(v["policy_set"] == "heroes" && v["scenario"] == "hard" && v["seed"].as_u64() >= Some(50))
        })
        .collect();
    std::fs::write(&partial, kept.join("\n") + "\n").unwrap();
    let text = ok(&coordinator(&["compare", path(&partial), "--baseline", "heroes"]));
    assert_eq!(&row(&text, "hard", "random")[3..5], ["50", "10"], "{text}");
    assert_eq!(&row(&text, "default", "random")[3..5], ["60", "0"], "{text}");
    assert!(text.contains("30 episode(s) had no partner"), "10 seeds of heroes against three sets:\n{text}");

    // An unknown baseline is refused, naming the choices.
    let out = coordinator(&["compare", path(&results), "--baseline", "herose"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\"herose\"") && err.contains("heroes, firefighters, random, random_again"), "{err}");

    // The report opens with the answer.
    let html_path = dir.path().join("report.html");
    ok(&coordinator(&["report", path(&results), "--baseline", "heroes", "--out", path(&html_path)]));
    let html = std::fs::read_to_string(&html_path).unwrap();
    let glance = html.find("<h2>At a glance</h2>").expect("an At a glance section");
    assert!(glance < html.find("<h2>Summary</h2>").unwrap(), "At a glance comes first");
    assert_eq!(html.matches("<svg class=\"heatmap\"").count(), 1, "one heatmap per game");
    assert_eq!(html.matches("<svg class=\"forest\"").count(), 2, "one forest panel per scenario");
    assert_eq!(html.matches("Δ team reward vs heroes").count(), 2);
    assert!(html.contains(">baseline</text>"), "the baseline column is marked");
    assert!(html.contains("default / firefighters: win "), "each heatmap cell says its win rate");
}
