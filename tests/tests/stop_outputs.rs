//! What a stopping sweep's outputs say of its decisions, through the CLI: `coordinator run` of a
//! `[stop]` sweep writes `<stem>.stop.json`; `summary --out` then carries each cell's
//! `question`, `decision`, `interval_low`, `interval_high` and `decisions` in every format (the
//! values of the stop file, the comparison first), `compare` shows the decisions of the
//! comparisons the sweep asked (table and `--out`), `report` a decisions table and the
//! decisions on its forest plots; a sweep without `[stop]` gets none of it.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;
use std::process::Output;

use coordinator::records::summary_file::read_cells;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::record::Field;
use serde_json::Value;

/// Three questions of three sets on one scenario; a cap of 1,000 seeds.
const SWEEP: &str = r#"
name = "stop-outputs"
seeds = { start = 0, count = 1000 }
collect = "summary"

[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
free_riders = ["free_rider", "free_rider", "free_rider", "free_rider"]
random = ["random", "random", "random", "random"]

[stop]
confidence = 0.95
metric = "team_reward"
half_width = 4.0
baseline = "random"
margin = 1.0
best = true
"#;

const STOP_COLUMNS: [&str; 5] = ["question", "decision", "interval_low", "interval_high", "decisions"];

fn coordinator(args: &[&str]) -> Output {
    simfleet_tests::coordinator_output(args)
}

fn ok(args: &[&str]) -> String {
    let out = coordinator(args);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{args:?}\n{stdout}\n{stderr}");
    stdout.into_owned()
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

/// The answer a cell's row must carry, worked out from the stop file's rows: the comparison with
/// the baseline when the cell has one, else the race for best, else precision; every answer
/// joined. (policy set) -> (question, decision, low, high, decisions).
type Expected = BTreeMap<String, (String, String, Option<f64>, Option<f64>, String)>;

fn expected(stop_json: &str) -> Expected {
    let stop: Value = serde_json::from_str(&std::fs::read_to_string(stop_json).unwrap()).unwrap();
    let mut by_set: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for row in stop["decisions"].as_array().unwrap() {
        by_set.entry(row["policy_set"].as_str().unwrap().into()).or_default().push(row);
    }
    let mut out = Expected::new();
    for (set, rows) in by_set {
        let first =
            ["baseline", "best", "precision"].iter().find_map(|q| rows.iter().find(|r| r["question"] == *q)).unwrap();
        let all: Vec<String> = rows
            .iter()
            .map(|r| format!("{}={}", r["question"].as_str().unwrap(), r["decision"].as_str().unwrap()))
            .collect();
        out.insert(
            set,
            (
                first["question"].as_str().unwrap().into(),
                first["decision"].as_str().unwrap().into(),
                first["interval_low"].as_f64(),
                first["interval_high"].as_f64(),
                all.join(";"),
            ),
        );
    }
    out
}

/// Each row's decision columns as the project's reader gives them.
fn read_back(file: &str) -> Expected {
    read_cells(Path::new(file))
        .unwrap()
        .into_iter()
        .map(|r| {
            let (q, d) = (r.question.unwrap_or_default(), r.decision.unwrap_or_default());
            (r.policy_set, (q, d, r.interval_low, r.interval_high, r.decisions.unwrap_or_default()))
        })
        .collect()
}

/// The same from the Parquet file itself: its schema and each row's fields by name.
fn parquet_columns(file: &str) -> (Vec<String>, Expected) {
    let reader = SerializedFileReader::new(File::open(file).unwrap()).unwrap();
    let names = reader.metadata().file_metadata().schema_descr().columns().iter().map(|c| c.name().into()).collect();
    let mut rows = Expected::new();
    for row in reader.get_row_iter(None).unwrap() {
        let row = row.unwrap();
        let get = |k: &str| row.get_column_iter().find(|(n, _)| n.as_str() == k).map(|(_, f)| f.clone());
        let text = |k: &str| match get(k) {
            Some(Field::Str(s)) => s,
            _ => String::new(),
        };
        let float = |k: &str| match get(k) {
            Some(Field::Double(x)) => Some(x),
            _ => None,
        };
        let value =
            (text("question"), text("decision"), float("interval_low"), float("interval_high"), text("decisions"));
        rows.insert(text("policy_set"), value);
    }
    (names, rows)
}

fn csv_header(file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines().next().unwrap().split(',').map(String::from).collect()
}

#[test]
fn summary_out_carries_the_decisions_of_the_stop_file_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = path(d, "stop.toml");
    std::fs::write(&sweep, SWEEP).unwrap();
    ok(&["run", &sweep, "--out", &path(d, "s.csv"), "--quiet"]);
    let want = expected(&path(d, "s.stop.json"));
    assert_eq!(want.len(), 3, "every set answers a question: {want:?}");
    // Every set but the baseline shows its comparison; the baseline its race for best.
    for set in ["firefighters", "free_riders"] {
        let (q, decision, low, high, all) = &want[set];
        assert_eq!(q, "baseline", "{set}: {want:?}");
        assert!(["better", "worse", "equivalent", "capped"].contains(&decision.as_str()), "{decision}");
        assert!(low.is_some() && high.is_some() && all.contains("precision=") && all.contains("best="), "{all}");
    }
    assert_eq!(want["random"].0, "best", "{want:?}");

    for ext in ["csv", "parquet", "jsonl", "msgpack"] {
        let out = path(d, &format!("cells.{ext}"));
        ok(&["summary", &path(d, "s.csv"), "--out", &out]);
        assert_eq!(read_back(&out), want, "{ext}");
    }
    let header = csv_header(&path(d, "cells.csv"));
    let at = header.iter().position(|h| h == "win_share").unwrap();
    assert_eq!(header[at + 1..at + 6], STOP_COLUMNS.map(String::from), "{header:?}");
    let (names, rows) = parquet_columns(&path(d, "cells.parquet"));
    assert!(STOP_COLUMNS.iter().all(|c| names.iter().any(|n| n == c)), "{names:?}");
    assert_eq!(rows, want);
    let line: Value =
        serde_json::from_str(std::fs::read_to_string(path(d, "cells.jsonl")).unwrap().lines().next().unwrap()).unwrap();
    let first = &want[line["policy_set"].as_str().unwrap()];
    assert_eq!((line["decision"].as_str().unwrap(), line["interval_low"].as_f64()), (first.1.as_str(), first.2));

    // Moved away from the results, the stop file is named with --stop.
    std::fs::rename(path(d, "s.stop.json"), path(d, "elsewhere.json")).unwrap();
    // `run` wrote the decisions into its summary file: they stay without the stop file.
    ok(&["summary", &path(d, "s.csv"), "--out", &path(d, "bare.csv")]);
    assert_eq!(read_back(&path(d, "bare.csv")), want);
    ok(&["summary", &path(d, "s.csv"), "--out", &path(d, "named.parquet"), "--stop", &path(d, "elsewhere.json")]);
    assert_eq!(read_back(&path(d, "named.parquet")), want);
    // A summary file that carries the decisions keeps them when read again.
    ok(&["summary", &path(d, "named.parquet"), "--out", &path(d, "again.jsonl")]);
    assert_eq!(read_back(&path(d, "again.jsonl")), want);

    // compare of the summary file: the comparisons, each with its decision from the stop file.
    let stop = path(d, "elsewhere.json");
    let table = ok(&["compare", &path(d, "s.csv"), "--stop", &stop, "--out", &path(d, "cmp.json")]);
    let cmp: Value = serde_json::from_str(&std::fs::read_to_string(path(d, "cmp.json")).unwrap()).unwrap();
    assert_eq!(cmp.as_array().unwrap().len(), 2, "{cmp}");
    for row in cmp.as_array().unwrap() {
        let set = row["policy_set"].as_str().unwrap();
        assert_eq!(
            (row["decision"].as_str().unwrap(), row["interval_low"].as_f64()),
            (want[set].1.as_str(), want[set].2)
        );
        assert!(table.lines().any(|l| l.contains(set) && l.contains(&want[set].1)), "{table}");
    }
    // Without the stop file, the paired differences the file carries are compared still (no
    // decision column).
    let plain = ok(&["compare", &path(d, "s.csv"), "--baseline", "random"]);
    assert!(!plain.contains("decision"), "{plain}");
    assert!(want.keys().all(|set| plain.lines().any(|l| l.contains(&format!(" {set} ")))), "{plain}");
}

#[test]
fn compare_and_report_show_the_decisions_of_a_records_stopping_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = path(d, "stop.toml");
    std::fs::write(&sweep, SWEEP).unwrap();
    let records = path(d, "r.jsonl");
    ok(&["run", &sweep, "--out", &records, "--quiet", "--collect", "records"]);
    let stop: Value = serde_json::from_str(&std::fs::read_to_string(path(d, "r.stop.json")).unwrap()).unwrap();
    let decisions = stop["decisions"].as_array().unwrap();
    let compared: Vec<&Value> = decisions.iter().filter(|r| r["question"] == "baseline").collect();
    assert_eq!(compared.len(), 2, "{stop}");

    // summary --out of the records: the same columns.
    ok(&["summary", &records, "--out", &path(d, "cells.parquet")]);
    assert_eq!(parquet_columns(&path(d, "cells.parquet")).1, expected(&path(d, "r.stop.json")));

    // compare: random is the default baseline; its comparisons carry the decisions.
    let table = ok(&["compare", &records, "--out", &path(d, "cmp.json")]);
    assert!(table.contains("baseline: random") && table.contains("anytime-valid Δ"), "{table}");
    let cmp: Value = serde_json::from_str(&std::fs::read_to_string(path(d, "cmp.json")).unwrap()).unwrap();
    for want in &compared {
        let set = want["policy_set"].as_str().unwrap();
        let line = table.lines().find(|l| l.contains(set)).unwrap_or_else(|| panic!("{table}"));
        assert!(line.contains(&format!(" {} ", want["decision"].as_str().unwrap())), "{line}");
        let got = cmp.as_array().unwrap().iter().find(|r| r["policy_set"] == set).unwrap();
        assert_eq!(got["decision"], want["decision"]);
        assert_eq!(got["interval_low"], want["interval_low"]);
        assert_eq!(got["interval_high"], want["interval_high"]);
    }
    // Against another baseline the sweep decided nothing: it says which baseline it used.
    let other = ok(&["compare", &records, "--baseline", "free_riders", "--out", &path(d, "other.json")]);
    assert!(!other.contains("anytime-valid") && other.contains("`--baseline random`"), "{other}");
    let other: Value = serde_json::from_str(&std::fs::read_to_string(path(d, "other.json")).unwrap()).unwrap();
    assert!(other[0].get("decision").is_none(), "{other}");

    // report: the decisions table, and the decisions on the forest plot.
    ok(&["report", &records, "--out", &path(d, "r.html")]);
    let html = std::fs::read_to_string(path(d, "r.html")).unwrap();
    assert!(html.contains("<h2>Stopping decisions</h2>"), "no decisions section");
    let section = &html[html.find("<h2>Stopping decisions</h2>").unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    assert_eq!(section.matches("<tr>").count(), 1 + decisions.len(), "a row per (cell, question)");
    for want in &compared {
        let mark = format!(" · {}", want["decision"].as_str().unwrap());
        assert!(html.contains(&format!("{}<tspan class=\"m\">{mark}</tspan>", want["policy_set"].as_str().unwrap())));
    }
}

#[test]
fn a_sweep_without_stop_gets_no_decision_columns() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = path(d, "plain.toml");
    let plain = SWEEP.split("[stop]").next().unwrap().replace("count = 1000", "count = 64");
    std::fs::write(&sweep, plain).unwrap();
    ok(&["run", &sweep, "--out", &path(d, "s.csv"), "--quiet"]);
    assert!(!d.join("s.stop.json").exists());
    ok(&["summary", &path(d, "s.csv"), "--out", &path(d, "cells.csv")]);
    // The summary file read and written again is the run's, byte for byte: no new column.
    assert_eq!(std::fs::read(path(d, "cells.csv")).unwrap(), std::fs::read(path(d, "s.csv")).unwrap());
    assert!(!csv_header(&path(d, "cells.csv")).iter().any(|h| STOP_COLUMNS.contains(&h.as_str())));
    ok(&["summary", &path(d, "s.csv"), "--out", &path(d, "cells.parquet")]);
    let (names, _) = parquet_columns(&path(d, "cells.parquet"));
    assert!(!names.iter().any(|n| STOP_COLUMNS.contains(&n.as_str())), "{names:?}");
    let table = ok(&["compare", &path(d, "s.csv"), "--out", &path(d, "cmp.json")]);
    assert!(!table.contains("decision"), "{table}");
    let cmp: Value = serde_json::from_str(&std::fs::read_to_string(path(d, "cmp.json")).unwrap()).unwrap();
    assert!(cmp[0].get("reward_diff").is_some() && cmp[0].get("decision").is_none(), "{cmp}");
    ok(&["report", &path(d, "s.csv"), "--out", &path(d, "r.html")]);
    assert!(!std::fs::read_to_string(path(d, "r.html")).unwrap().contains("Stopping decisions"));
}

/// `run` of a summary stopping sweep writes the decision columns into its summary file itself:
/// the file is the one `summary --out` makes of it from `<stem>.stop.json`, byte for byte.
#[test]
fn run_of_a_summary_stopping_sweep_writes_the_decision_columns() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = path(d, "stop.toml");
    std::fs::write(&sweep, SWEEP).unwrap();
    for ext in ["csv", "parquet"] {
        let (cells, again) = (path(d, &format!("cells.{ext}")), path(d, &format!("again.{ext}")));
        ok(&["run", &sweep, "--out", &cells, "--quiet", "--threads", "2"]);
        let rows = read_cells(Path::new(&cells)).unwrap();
        assert!(!rows.is_empty() && rows.iter().all(|r| r.decision.is_some()), "{ext}: every cell has its decision");
        ok(&["summary", &cells, "--out", &again]);
        assert!(
            std::fs::read(&cells).unwrap() == std::fs::read(&again).unwrap(),
            "{ext}: run wrote summary --out's file"
        );
    }
}

/// A summary-mode stopping sweep's rows carry their paired differences (merged in job order,
/// each pair on the seeds both sets played), so `compare` of its file answers any baseline,
/// not only the comparisons the sweep decided.
#[test]
fn a_summary_stopping_sweeps_file_compares_against_any_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (sweep, cells) = (path(d, "stop.toml"), path(d, "cells.csv"));
    std::fs::write(&sweep, SWEEP).unwrap();
    ok(&["run", &sweep, "--out", &cells, "--quiet"]);
    let rows = read_cells(Path::new(&cells)).unwrap();
    // A set's differences from the later sets of its (game, scenario), as a summary sweep's.
    let pairs: Vec<usize> = rows.iter().map(|r| r.paired.len()).collect();
    assert_eq!(pairs, [2, 1, 0], "firefighters - (free_riders, random), free_riders - random");
    let table = ok(&["compare", &cells, "--baseline", "firefighters"]);
    for set in ["free_riders", "random"] {
        let line = table.lines().find(|l| l.contains(&format!(" {set} "))).unwrap_or_else(|| panic!("{set}:\n{table}"));
        assert!(line.contains("+") || line.contains("-"), "{set} has a difference: {line}");
    }
}
