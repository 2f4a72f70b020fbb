//! Several results files read as one table, through the CLI: a directory of shards in three
//! formats (the same sweep's rows split by seed ranges with `coordinator records`) gives the
//! same `summary`, `compare` and `report` as one file holding all their rows; summary files read
//! together merge their cells; records mixed with summaries, and a directory without results
//! files, are refused with the files named.

use std::path::Path;
use std::process::Output;

const SWEEP: &str = r#"
name = "shards"
seeds = { start = 0, count = 60 }
episodes_per_job = 10

[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
random = ["random", "random", "random", "random"]
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

/// The stderr of a run that must fail.
fn refused(out: &Output) -> String {
    assert!(!out.status.success(), "coordinator succeeded:\n{}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_directory_of_shards_reads_as_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("sweep.toml");
    std::fs::write(&sweep, SWEEP).unwrap();
    let all = dir.path().join("all.parquet");
    ok(&coordinator(&["run", path(&sweep), "--out", path(&all), "--quiet"]));

    // Each policy set's seeds in three ranges, each range in a format of its own; names sort
    // as the rows of `all` run (range by range, firefighters before random within a range).
    let shards = dir.path().join("shards");
    std::fs::create_dir(&shards).unwrap();
    for (i, (seeds, ext)) in [("0..20", "jsonl"), ("20..40", "csv"), ("40..60", "msgpack")].into_iter().enumerate() {
        for (k, set) in ["firefighters", "random"].into_iter().enumerate() {
            let out = shards.join(format!("{i}-{k}-{set}.{ext}"));
            let args = ["records", path(&sweep), "--scenario", "default", "--policy-set", set, "--seeds", seeds];
            ok(&coordinator(&[&args[..], &["--out", path(&out)]].concat()));
        }
    }
    // Not a results file: left alone.
    std::fs::write(shards.join("notes.txt"), "not a results file\n").unwrap();

    let whole = ok(&coordinator(&["summary", path(&all)]));
    assert!(whole.contains("firefighters") && whole.contains("random"), "{whole}");
    assert_eq!(ok(&coordinator(&["summary", path(&shards)])), whole, "a directory of shards is one table");
    let listed: Vec<String> = {
        let mut files: Vec<_> = std::fs::read_dir(&shards).unwrap().map(|e| e.unwrap().path()).collect();
        files.retain(|f| f.extension().is_some_and(|e| e != "txt"));
        files.sort();
        files.iter().map(|f| f.display().to_string()).collect()
    };
    assert_eq!(listed.len(), 6);
    let args: Vec<&str> = ["summary"].into_iter().chain(listed.iter().map(String::as_str)).collect();
    assert_eq!(ok(&coordinator(&args)), whole, "files named one by one are one table");

    // Pairing sees every seed of both policy sets across the shards.
    let compared = ok(&coordinator(&["compare", path(&shards)]));
    assert_eq!(compared, ok(&coordinator(&["compare", path(&all)])));
    assert!(compared.contains(" 60 "), "60 pairs:\n{compared}");
    let report = dir.path().join("report.html");
    let said = ok(&coordinator(&["report", path(&shards), "--out", path(&report)]));
    assert!(said.contains(": 120 episodes, 2 cells"), "{said}");

    // Summary files of two shards merge their cells: every episode counted once.
    let cells = dir.path().join("cells");
    std::fs::create_dir(&cells).unwrap();
    let first: Vec<&str> = listed[..2].iter().map(String::as_str).collect();
    let rest: Vec<&str> = listed[2..].iter().map(String::as_str).collect();
    ok(&coordinator(&[&["summary"], &first[..], &["--out", path(&cells.join("a.jsonl"))]].concat()));
    ok(&coordinator(&[&["summary"], &rest[..], &["--out", path(&cells.join("b.parquet"))]].concat()));
    let merged = ok(&coordinator(&["summary", path(&cells)]));
    for set in ["firefighters", "random"] {
        let line = merged.lines().find(|l| l.contains(set)).unwrap_or_else(|| panic!("no {set} row:\n{merged}"));
        assert_eq!(line.split_whitespace().nth(3), Some("60"), "{set}: 60 episodes\n{merged}");
    }

    // Records and summaries do not mix; the error names a file of each kind.
    let err = refused(&coordinator(&["summary", path(&all), path(&cells)]));
    assert!(err.contains("a.jsonl is a summary file") && err.contains("all.parquet holds episode records"), "{err}");
    std::fs::copy(cells.join("a.jsonl"), shards.join("9-cells.jsonl")).unwrap();
    for command in ["summary", "rank", "compare"] {
        let err = refused(&coordinator(&[command, path(&shards)]));
        assert!(err.contains("9-cells.jsonl is a summary file"), "{command}: {err}");
    }
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = refused(&coordinator(&["summary", path(&empty)]));
    assert!(err.contains("no results file in") && err.contains("empty"), "{err}");
}
