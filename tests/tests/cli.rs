//! The coordinator's command line as a person meets it, through the binary: `list` shows every
//! overridable field and the histogram buckets (and as JSON); tables come in the sweep's order
//! whichever way the sweep was played (`submit --watch` on a fleet of worker processes prints
//! `run`'s table byte for byte, and `summary` and `compare` of its file print what they print of
//! `run`'s); a closed stdout ends a command quietly; an OS error is named once; each command's
//! `--help` lists only its own flags; `summary RECORDS --out CELLS --sweep SWEEP` writes the
//! summary sweep's file.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use coordinator::records::summary_file::read_cells;
use simfleet_tests::{coordinator_binary, CoordinatorProcess, NatsServer, WorkerProcess};

const TIMEOUT: Duration = Duration::from_secs(300);

/// Runs `coordinator ARGS` to its end: (exit code, stdout, stderr).
async fn coordinator(args: &[&str]) -> (i32, String, String) {
    let mut c = CoordinatorProcess::spawn(args, &[]);
    let status = c.wait_exit(TIMEOUT).await;
    (status.code().unwrap_or(-1), c.stdout(), c.stderr().join("\n"))
}

/// `coordinator ARGS`'s stdout, failing on a non-zero exit.
async fn ok(args: &[&str]) -> String {
    let (code, out, err) = coordinator(args).await;
    assert_eq!(code, 0, "coordinator {args:?}\n{out}\n{err}");
    out
}

/// The first table of a command's stdout: its lines up to the first blank one.
fn first_table(stdout: &str) -> String {
    stdout.lines().take_while(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_shows_every_field_with_its_default_and_the_buckets() {
    let text = ok(&["list", "deception"]).await;
    assert!(text.contains("num_agents=5 num_imposters=1 max_ticks=20"), "{text}");
    assert!(text.contains("histogram buckets"), "{text}");
    assert!(!text.contains("prob_fire_spreads_to_neighbor"), "only the game asked for");
    let json: serde_json::Value = serde_json::from_str(&ok(&["list", "--format", "json"]).await).unwrap();
    let games: Vec<&str> = json.as_array().unwrap().iter().map(|g| g["game"].as_str().unwrap()).collect();
    let all: Vec<&str> = simfleet::GameKind::ALL.iter().map(|g| g.as_str()).collect();
    assert_eq!(games, all);
    let bb = &json[0];
    let default = &bb["scenarios"][0];
    assert_eq!(default["name"], "default");
    let field = |name: &str| default["fields"].as_array().unwrap().iter().find(|f| f["name"] == name).cloned();
    assert_eq!(field("prob_fire_spreads_to_neighbor").unwrap()["default"], "0.25");
    assert_eq!(field("reward_model").unwrap()["default"], "seed");
    let buckets = bb["buckets"]["length"].as_array().unwrap();
    assert_eq!(buckets.first().unwrap().as_f64(), Some(11.0));
    // An unknown game names every game there is.
    let (code, _, err) = coordinator(&["list", "chess"]).await;
    assert_eq!(code, 2);
    assert!(all.iter().all(|g| err.contains(g)), "{err}");
}

#[test]
fn a_closed_stdout_ends_a_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("r.jsonl");
    std::fs::write(dir.path().join("s.toml"), SMALL).unwrap();
    let run = Command::new(coordinator_binary())
        .args(["run", "s.toml", "--out", "r.jsonl", "--quiet"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let server = NatsServer::start();
    let url = server.client_url();
    for args in [
        vec!["list"],
        vec!["list", "bucket_brigade", "--format", "json"],
        vec!["summary", records.to_str().unwrap()],
        vec!["compare", records.to_str().unwrap()],
        vec!["status", "--nats-url", &url],
        vec!["--help"],
    ] {
        // The reading end is closed before the command starts: every write to stdout fails.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(coordinator_binary())
            .args(&args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_os_error_is_named_once() {
    let (code, _, err) = coordinator(&["summary", "no-such-file.csv"]).await;
    assert_eq!(code, 2);
    assert_eq!(err.matches("(os error 2)").count(), 1, "{err}");
    assert!(err.contains("no-such-file.csv"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_lists_only_the_flags_a_command_uses() {
    for command in ["run", "summary", "compare", "report", "list", "rank", "records", "replay"] {
        let help = ok(&[command, "--help"]).await;
        for flag in ["--nats-url", "--config", "--metrics-listen"] {
            assert!(!help.contains(flag), "`{command} --help` lists {flag}:\n{help}");
        }
    }
    for command in ["submit", "watch", "status", "results", "cancel", "priority", "setup"] {
        let help = ok(&[command, "--help"]).await;
        assert!(help.contains("--nats-url") && help.contains("--config"), "`{command} --help`:\n{help}");
        let metrics = ["submit", "watch"].contains(&command);
        assert_eq!(help.contains("--metrics-listen"), metrics, "`{command} --help`:\n{help}");
    }
}

/// A small sweep: a paired group of two policy sets and a cell of its own, each cell in several
/// jobs of records and in one summary job.
const SMALL: &str = r#"
name = "cli small"
seeds = { start = 0, count = 2500 }

[[cells]]
game = "bucket_brigade"
scenarios = ["hard"]
[cells.policy_sets]
heroes = ["hero", "hero", "hero", "hero"]
random = ["random", "random", "random", "random"]

[[cells]]
game = "bucket_brigade"
scenarios = ["easy"]
[cells.policy_sets]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summary_out_of_records_with_the_sweep_is_the_summary_sweeps_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(dir.path().join("s.toml"), SMALL).unwrap();
    ok(&["run", &p("s.toml"), "--out", &p("records.jsonl"), "--quiet"]).await;
    ok(&["run", &p("s.toml"), "--collect", "summary", "--out", &p("summary.csv"), "--quiet"]).await;
    ok(&["summary", &p("records.jsonl"), "--out", &p("from-records.csv"), "--sweep", &p("s.toml")]).await;
    let want = read_cells(Path::new(&p("summary.csv"))).unwrap();
    let got = read_cells(Path::new(&p("from-records.csv"))).unwrap();
    let columns = |rows: &[coordinator::records::summary_file::CellRow]| -> Vec<(String, String, u64, u64)> {
        rows.iter().map(|r| (r.sweep.clone(), r.policy_set.clone(), r.jobs, r.episodes)).collect()
    };
    assert_eq!(columns(&got), columns(&want));
    // The paired differences too, from the records' per-seed values, byte for byte: `compare`
    // of the rebuilt file is `compare` of the summary sweep's, for any baseline.
    let paired = |rows: &[coordinator::records::summary_file::CellRow]| -> Vec<String> {
        rows.iter().map(|r| serde_json::to_string(&r.paired).unwrap()).collect()
    };
    assert_eq!(paired(&got), paired(&want));
    assert!(want[0].paired.len() == 1 && want[2].paired.is_empty(), "heroes - random; firefighters alone");
    for baseline in ["random", "heroes"] {
        let rebuilt = ok(&["compare", &p("from-records.csv"), "--baseline", baseline]).await;
        assert_eq!(rebuilt, ok(&["compare", &p("summary.csv"), "--baseline", baseline]).await, "{baseline}");
    }
    // 2500 seeds: three records jobs of a cell, one summary job.
    assert_eq!(want.iter().map(|r| r.jobs).collect::<Vec<_>>(), [1, 1, 1]);
    // Without the sweep file the rows keep the records' sweep and jobs.
    ok(&["summary", &p("records.jsonl"), "--out", &p("plain.csv")]).await;
    let plain = read_cells(Path::new(&p("plain.csv"))).unwrap();
    assert_eq!(plain.iter().map(|r| r.jobs).collect::<Vec<_>>(), [3, 3, 3]);
    assert_ne!(plain[0].sweep, want[0].sweep);
    // Records of another sweep are refused, naming both.
    std::fs::write(dir.path().join("other.toml"), SMALL.replace("cli small", "cli other")).unwrap();
    let (code, _, err) =
        coordinator(&["summary", &p("records.jsonl"), "--out", &p("x.csv"), "--sweep", &p("other.toml")]).await;
    assert_eq!(code, 2);
    assert!(err.contains("cli-small-") && err.contains("cli-other-"), "{err}");
}

/// Cells whose jobs take very different times, so that a fleet's results arrive out of the
/// sweep's order: the first cell is one job of CogsGuard episodes (tenths of a second each in a
/// debug build), the others sixteen jobs of one Bucket Brigade episode each, which the other
/// job slots finish long before.
const UNEVEN: &str = r#"
name = "cli order"
seeds = { start = 0, count = 4 }
episodes_per_job = 1

[[cells]]
game = "cogsguard"
scenarios = ["arena"]
episodes_per_job = 4
[cells.policy_sets]
pinky = ["pinky", "pinky", "pinky", "pinky", "pinky", "pinky", "pinky", "pinky"]

[[cells]]
game = "bucket_brigade"
scenarios = ["easy", "hard"]
[cells.policy_sets]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
random = ["random", "random", "random", "random"]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_prints_and_writes_cells_in_the_sweeps_order() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(dir.path().join("s.toml"), UNEVEN).unwrap();
    let run = ok(&["run", &p("s.toml"), "--out", &p("run.jsonl"), "--quiet"]).await;
    let server = NatsServer::start();
    let url = server.client_url();
    let _workers: Vec<WorkerProcess> = (0..2)
        .map(|_| {
            WorkerProcess::spawn(&["--nats-url", &url, "--metrics-listen", "127.0.0.1:0", "--concurrency", "2"], &[])
        })
        .collect();
    let watched =
        ok(&["submit", &p("s.toml"), "--watch", "--out", &p("fleet.jsonl"), "--quiet", "--nats-url", &url]).await;
    // stdout: the sweep id, then the table.
    let (_, watched) = watched.split_once('\n').unwrap();
    let table = first_table(&run);
    assert_eq!(table.lines().count(), 2 + 5, "{run}");
    assert_eq!(first_table(watched), table, "`submit --watch` prints `run`'s table");
    let jobs = |path: &str| -> Vec<u64> {
        let text = std::fs::read_to_string(path).unwrap();
        let mut jobs: Vec<u64> = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["job"].as_u64().unwrap())
            .collect();
        jobs.dedup();
        jobs
    };
    let arrival = jobs(&p("fleet.jsonl"));
    let mut sorted = arrival.clone();
    sorted.sort();
    assert_ne!(arrival, sorted, "the fleet's results came in job order: this test shows nothing");
    // The file in arrival order reads back in the sweep's order.
    assert_eq!(ok(&["summary", &p("fleet.jsonl")]).await, ok(&["summary", &p("run.jsonl")]).await);
    assert_eq!(first_table(&ok(&["summary", &p("fleet.jsonl")]).await), table);
    assert_eq!(ok(&["compare", &p("fleet.jsonl")]).await, ok(&["compare", &p("run.jsonl")]).await);
    // Without `random`, the default baseline is the sweep's first policy set, not the file's.
    for name in ["fleet", "run"] {
        let text = std::fs::read_to_string(p(&format!("{name}.jsonl"))).unwrap();
        let kept: String =
            text.lines().filter(|l| !l.contains(r#""policy_set":"random""#)).map(|l| format!("{l}\n")).collect();
        std::fs::write(p(&format!("{name}-no-random.jsonl")), kept).unwrap();
    }
    let head = std::fs::read_to_string(p("fleet-no-random.jsonl")).unwrap();
    assert!(!head.lines().next().unwrap().contains("pinky"), "the fleet's file starts with the sweep's first cell");
    let fleet_first = ok(&["compare", &p("fleet-no-random.jsonl")]).await;
    assert_eq!(fleet_first, ok(&["compare", &p("run-no-random.jsonl")]).await);
    assert!(fleet_first.contains("pinky"), "{fleet_first}");
    ok(&["summary", &p("fleet.jsonl"), "--out", &p("fleet-cells.csv")]).await;
    let cells = read_cells(Path::new(&p("fleet-cells.csv"))).unwrap();
    let order: Vec<(&str, &str)> = cells.iter().map(|c| (c.scenario.as_str(), c.policy_set.as_str())).collect();
    assert_eq!(
        order,
        [
            ("arena", "pinky"),
            ("easy", "firefighters"),
            ("easy", "random"),
            ("hard", "firefighters"),
            ("hard", "random")
        ]
    );
}
