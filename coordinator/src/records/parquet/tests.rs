use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};
use simfleet::protocol::Stats;

use super::writer::ParquetSink;
use crate::records::reader::for_each_row;
use crate::records::row::{Row, RowRef};

/// Two games, so the stats columns of both appear (and deception's JSON-text columns).
const SWEEP: &str = r#"
name = "parquet-test"
seeds = { start = 5, count = 60 }
episodes_per_job = 25

[[cells]]
game = "bucket_brigade"
scenarios = ["default", "rest_trap?reward_model=reference"]
[cells.policy_sets]
mixed = ["firefighter", "free_rider", "hero", "liar"]
tuned = ["heuristic?work_tendency=0.9", "random", "coordinator", "liar"]

[[cells]]
game = "deception"
scenarios = ["classic_5p1i"]
[cells.policy_sets]
heuristic = ["heuristic", "heuristic", "heuristic", "random", "heuristic"]
"#;

/// Runs [`SWEEP`] to `name.parquet` and `name.jsonl` in `dir`.
fn export_both(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let sweep = dir.join("sweep.toml");
    std::fs::write(&sweep, SWEEP).unwrap();
    let pq = dir.join("out.parquet");
    let jl = dir.join("out.jsonl");
    let a = crate::embedded::play(&sweep, &pq, Some(2), false, None).unwrap();
    let b = crate::embedded::play(&sweep, &jl, Some(2), false, None).unwrap();
    assert!(a.failures.is_empty() && b.failures.is_empty(), "{:?} {:?}", a.failures, b.failures);
    assert_eq!(a.records, 300);
    assert_eq!(b.records, 300);
    (pq, jl)
}

fn read(path: &Path) -> Vec<Row> {
    let mut rows = Vec::new();
    let cut = for_each_row(path, |_, mut row| {
        // Parquet (like CSV) has no "present but null": drop JSON nulls before comparing.
        row.stats.retain(|_, v| !v.is_null());
        rows.push(row);
    })
    .unwrap();
    assert_eq!(cut, None);
    rows
}

#[test]
fn parquet_reads_back_equal_to_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let (pq, jl) = export_both(dir.path());
    let (a, b) = (read(&pq), read(&jl));
    assert_eq!(a.len(), 300);
    assert_eq!(a, b);
    assert!(a.iter().any(|r| r.stats.contains_key("ejections")), "deception's JSON-text stats came back");
}

const PYTHON: &str = r#"
import json, sys
try:
    import pyarrow.parquet as pq
except ImportError as e:
    print("pyarrow is missing (%s): pip install pyarrow" % e)
    sys.exit(3)
pf = pq.ParquetFile(sys.argv[1])
meta = pf.schema_arrow.metadata or {}
json_cols = {c for c in meta.get(b"simfleet.json_columns", b"").decode().split(",") if c}
rows = pf.read().to_pylist()
lines = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(lines), (len(rows), len(lines))
names = pf.schema_arrow.names
stat_cols = [c for c in names if c.startswith("stats.")]
types = {f.name: str(f.type) for f in pf.schema_arrow}
for col, want in [("job", "uint64"), ("seed", "uint64"), ("length", "uint32"), ("team_reward", "double"),
                  ("agent_rewards", "list<element: double not null>"), ("stats.houses_saved", "int64"),
                  ("stats.agent_lies", "list<element: int64>"), ("stats.termination_reason", "string"),
                  ("stats.vote_accuracy", "double")]:
    assert types[col] == want, (col, types[col], want)
fixed = ["sweep", "job", "game", "engine_version", "scenario", "policy_set", "seed", "outcome", "length",
         "truncated", "team_reward", "agent_rewards", "trajectory_hash"]
checked = 0
for i, (r, j) in enumerate(zip(rows, lines)):
    for k in fixed:
        assert type(r[k]) is type(j[k]) and r[k] == j[k], (i, k, r[k], j[k])
        checked += 1
    for key in j["stats"]:
        assert "stats." + key in stat_cols, ("no column for stats key", key)
    for c in stat_cols:
        want, got = j["stats"].get(c[6:]), r[c]
        if c in json_cols and got is not None:
            got = json.loads(got)
        assert got == want and isinstance(got, bool) == isinstance(want, bool), (i, c, got, want)
        checked += 1
print("checked", len(rows), "rows", checked, "values")
"#;

#[test]
fn pyarrow_reads_every_value_of_the_jsonl_export() {
    let dir = tempfile::tempdir().unwrap();
    let (pq, jl) = export_both(dir.path());
    let out = Command::new("python3").arg("-c").arg(PYTHON).arg(&pq).arg(&jl).output().unwrap_or_else(|e| {
        panic!("cannot run python3 ({e}): install Python 3 and then `pip install pyarrow` to run this test")
    });
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "pyarrow check failed (pip install pyarrow if it is missing):\n{stdout}\n{stderr}");
    assert!(stdout.contains("checked 300 rows"), "{stdout}");
}

fn row<'a>(rewards: &'a [f64], stats: &'a Stats, seed: u64) -> RowRef<'a> {
    RowRef {
        sweep: "s-000000000000",
        job: seed / 10,
        game: "bucket_brigade",
        engine_version: "v",
        scenario: "default",
        policy_set: "p",
        seed,
        outcome: "success",
        length: 13,
        truncated: false,
        team_reward: seed as f64 * 0.5,
        agent_rewards: rewards,
        trajectory_hash: "0123456789abcdef",
        stats,
    }
}

fn stats(v: Value) -> Stats {
    Stats::from(v.as_object().unwrap().clone())
}

#[test]
fn several_row_groups_and_keys_first_seen_late() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("groups.parquet");
    let mut sink = ParquetSink::new(std::fs::File::create(&path).unwrap(), vec!["n", "late", "xs"]);
    sink.set_row_group_rows(100);
    let n = 250u64;
    for seed in 0..n {
        // `late` has no value in the first row group and `xs` only empty lists, so both are
        // written as JSON text.
        let s = if seed < 100 {
            stats(json!({"n": seed, "xs": []}))
        } else {
            stats(json!({"n": seed, "late": {"k": seed}, "xs": [seed, null]}))
        };
        sink.write(&row(&[1.0, seed as f64], &s, seed)).unwrap();
    }
    sink.finish().unwrap();
    let mut rows = Vec::new();
    super::reader::for_each_row(&path, None, |_, r| rows.push(r)).unwrap();
    assert_eq!(rows.len(), n as usize);
    for (i, r) in rows.iter().enumerate() {
        let seed = i as u64;
        assert_eq!(r.seed, seed);
        assert_eq!(r.agent_rewards, vec![1.0, seed as f64]);
        assert_eq!(r.stats["n"], json!(seed));
        if seed < 100 {
            assert_eq!(r.stats.get("late"), None);
            assert_eq!(r.stats["xs"], json!([]));
        } else {
            assert_eq!(r.stats["late"], json!({"k": seed}));
            assert_eq!(r.stats["xs"], json!([seed, null]));
        }
    }
    let file = std::fs::File::open(&path).unwrap();
    let meta = parquet::file::serialized_reader::SerializedFileReader::new(file).unwrap();
    assert_eq!(parquet::file::reader::FileReader::metadata(&meta).num_row_groups(), 3);
}

#[test]
fn a_value_that_no_longer_fits_its_column_is_an_error_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("misfit.parquet");
    let mut sink = ParquetSink::new(std::fs::File::create(&path).unwrap(), vec!["n"]);
    sink.set_row_group_rows(10);
    for seed in 0..10 {
        sink.write(&row(&[], &stats(json!({"n": 1})), seed)).unwrap();
    }
    let e = sink.write(&row(&[], &stats(json!({"n": 2.5})), 10)).unwrap_err().to_string();
    assert!(e.contains("\"n\"") && e.contains("integers") && e.contains("2.5") && e.contains(".jsonl"), "{e}");
    assert!(sink.finish().is_err(), "a failed writer must not pretend the file is complete");
}

#[test]
fn parquet_cannot_be_appended_to_or_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.parquet");
    std::fs::write(&path, b"").unwrap();
    let e = crate::records::RecordWriter::append(&path, &[]).err().expect("append must fail");
    assert!(e.to_string().contains("cannot append to a Parquet file"), "{e}");
    let e = crate::records::resume(&path, "s", |_| 1).expect_err("resume must refuse to cut a Parquet file");
    assert!(e.to_string().contains("cannot append to a Parquet file"), "{e}");
}

#[test]
fn a_projection_reads_only_its_columns() {
    let dir = tempfile::tempdir().unwrap();
    let (pq, _) = export_both(dir.path());
    let full = read(&pq);
    let columns = ["game", "seed", "team_reward", "stats.invalid_by_kind", "stats.no_such_key", "no_such_column"];
    let mut rows = Vec::new();
    super::reader::for_each_row(&pq, Some(&columns), |_, r| rows.push(r)).unwrap();
    assert_eq!(rows.len(), full.len());
    for (got, all) in rows.iter().zip(&full) {
        assert_eq!((&got.game, got.seed, got.team_reward), (&all.game, all.seed, all.team_reward));
        assert_eq!(got.stats.get("invalid_by_kind"), all.stats.get("invalid_by_kind"));
        // The columns left out are not read: their fields keep the defaults.
        assert_eq!((got.sweep.as_str(), got.scenario.as_str(), got.length), ("", "", 0));
        assert!(got.agent_rewards.is_empty() && got.stats.len() <= 1, "{got:?}");
    }
    assert!(full.iter().any(|r| r.stats.contains_key("invalid_by_kind")), "deception rows carry the stat read");
}
