//! Stopping sweeps (`[stop]`) through the CLI: `coordinator run` plays each (game, scenario)
//! in blocks up to deterministic checkpoints and stops each cell when its questions are
//! answered; the decisions, the seeds played and the output files are the same whatever the
//! thread count, in both collect modes; a `[stop]` the cells contradict is refused with the
//! file, the line and the field.

use std::path::Path;
use std::time::Duration;

use simfleet_tests::CoordinatorProcess;

const TIMEOUT: Duration = Duration::from_secs(300);

/// Clear differences against `random` and a close pair, on two scenarios; a cap of 1,000 seeds.
const SWEEP: &str = r#"
name = "stopping"
seeds = { start = 0, count = 1000 }
collect = "summary"

[[cells]]
game = "bucket_brigade"
scenarios = ["default", "easy"]
[cells.policy_sets]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
free_riders = ["free_rider", "free_rider", "free_rider", "free_rider"]
random = ["random", "random", "random", "random"]

[stop]
confidence = 0.95
metric = "team_reward"
baseline = "random"
margin = 1.0
"#;

/// Runs `coordinator ARGS` to its end: (exit code, stdout, stderr).
async fn coordinator(args: &[&str]) -> (i32, String, String) {
    let mut c = CoordinatorProcess::spawn(args, &[]);
    let status = c.wait_exit(TIMEOUT).await;
    (status.code().unwrap_or(-1), c.stdout(), c.stderr().join("\n"))
}

/// `run`'s stdout without what measures time (throughput, core-seconds).
fn decided(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|l| !l.starts_with("core-seconds:") && !l.contains(" episodes/s)"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

#[tokio::test]
async fn run_stops_each_cell_when_decided_the_same_for_any_thread_count_in_both_modes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = path(d, "stopping.toml");
    std::fs::write(&sweep, SWEEP).unwrap();
    let mut tables = Vec::new();
    for (mode, ext) in [("summary", "csv"), ("records", "jsonl")] {
        let mut outputs = Vec::new();
        for threads in ["1", "2"] {
            let out = path(d, &format!("{mode}-{threads}.{ext}"));
            let args = ["run", &sweep, "--out", &out, "--quiet", "--threads", threads, "--collect", mode];
            let (code, stdout, stderr) = coordinator(&args).await;
            assert_eq!(code, 0, "{args:?}\n{stdout}\n{stderr}");
            let log = std::fs::read_to_string(path(d, &format!("{mode}-{threads}.stop.json"))).unwrap();
            outputs.push((
                decided(&stdout).replace(&format!("{mode}-{threads}."), ""),
                std::fs::read(&out).unwrap(),
                log,
            ));
        }
        assert_eq!(outputs[0].0, outputs[1].0, "{mode}: the same decisions for 1 and 2 threads");
        assert!(outputs[0].1 == outputs[1].1, "{mode}: the same output file for 1 and 2 threads");
        assert_eq!(outputs[0].2, outputs[1].2, "{mode}: the same decisions and log of every look");
        let log: serde_json::Value = serde_json::from_str(&outputs[0].2).unwrap();
        assert_eq!(log["decisions"].as_array().unwrap().len(), 4);
        assert!(log["log"]["folds"].as_array().unwrap().len() >= 2, "a fold per group and look");
        let text = &outputs[0].0;
        // Every set against random, on each scenario: decided well before the cap.
        let rows: Vec<&str> = text.lines().filter(|l| l.contains(" baseline ")).collect();
        assert_eq!(rows.len(), 4, "{text}");
        for row in &rows {
            let cols: Vec<&str> = row.split_whitespace().collect();
            assert!(["better", "worse", "equivalent"].contains(&cols[4]), "{row}");
            let (at, played): (u64, u64) = (cols[5].parse().unwrap(), cols[6].parse().unwrap());
            assert!(at < 1000 && played == at, "{row}");
        }
        let line = text.lines().find(|l| l.starts_with("stopping: ")).unwrap_or_else(|| panic!("{text}"));
        assert!(line.contains("at the cap") && line.contains("fixed design"), "{line}");
        let played: u64 = line["stopping: ".len()..].split(' ').next().unwrap().parse().unwrap();
        assert!(played < 6 * 1000 / 2, "{line}");
        let from = text.rfind("\ngame ").expect("the decisions table");
        tables.push(text[from..].to_string());
    }
    // Pairs counted from the records or by the summary jobs: the same decisions and intervals.
    assert_eq!(tables[0], tables[1]);
}

#[tokio::test]
async fn a_stop_table_the_cells_contradict_is_refused_with_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (from, to, says) in [
        (
            "baseline = \"random\"",
            "baseline = \"randomm\"",
            "stopping.toml:17: stop.baseline: no policy set \"randomm\" plays (bucket_brigade, \"default\")",
        ),
        ("margin = 1.0", "margin = -1.0", "stopping.toml:18: stop.margin: -1 must be 0 or more"),
        ("confidence = 0.95", "confidence = 95", "stopping.toml:15: stop.confidence: 95 must be between 0 and 1"),
    ] {
        let sweep = path(d, "stopping.toml");
        std::fs::write(&sweep, SWEEP.replace(from, to)).unwrap();
        let (code, stdout, stderr) = coordinator(&["run", &sweep, "--out", &path(d, "x.csv"), "--quiet"]).await;
        assert_eq!(code, 2, "{stdout}\n{stderr}");
        assert!(stderr.contains(says), "{stderr}");
    }
    let trolley = "name = \"t\"\nseeds = { start = 0, count = 100 }\n[[cells]]\ngame = \"trolley\"\nscenarios = [\"balanced_5p\"]\n[cells.policy_sets]\np = [\"persuadable\", \"persuadable\", \"persuadable\", \"persuadable\", \"persuadable\"]\n[stop]\nmetric = \"win\"\nhalf_width = 0.1\n";
    let sweep = path(d, "trolley.toml");
    std::fs::write(&sweep, trolley).unwrap();
    let (code, _, stderr) = coordinator(&["run", &sweep, "--out", &path(d, "x.csv"), "--quiet"]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("trolley.toml:9: stop.metric: trolley has no win outcome"), "{stderr}");
}

/// The fleet cannot stop a sweep yet: `submit` says so and publishes nothing, rather than play
/// every cell to the cap (checked before connecting: no server is needed to be refused).
#[tokio::test]
async fn submit_refuses_a_stopping_sweep_and_publishes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = path(dir.path(), "stopping.toml");
    std::fs::write(&sweep, SWEEP).unwrap();
    let (code, stdout, stderr) = coordinator(&["submit", &sweep, "--nats-url", "nats://127.0.0.1:1"]).await;
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("has a [stop] table") && stderr.contains("coordinator run"), "{stderr}");
    assert!(stderr.contains("Nothing was published"), "{stderr}");
}
