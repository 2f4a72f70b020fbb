//! Stopping sweeps (`[stop]`) through the CLI: `coordinator run` plays each (game, scenario)
//! in blocks up to deterministic checkpoints and stops each cell when its questions are
//! answered; the decisions, the seeds played and the output files are the same whatever the
//! thread count, in both collect modes, and on a fleet (`submit --watch`) with a worker killed
//! or the watch killed and started again; a stopping sweep cancelled mid-way ends with the
//! decisions made so far; a `[stop]` the cells contradict is refused with the file, the line and
//! the field.

use std::path::Path;
use std::time::Duration;

use coordinator::fleet::watch::stop_log;
use coordinator::sweep::Sweep;
use simfleet::names::{SweepEntry, SweepStatus, RESULTS_STREAM, SWEEPS_BUCKET};
use simfleet_tests::results::result_messages;
use simfleet_tests::{wait_until, CoordinatorProcess, NatsServer, WorkerProcess};

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

/// [`SWEEP`] with each cell's mean asked to within ±2 too: every cell plays on past its
/// comparisons, up to the cap for some, so the fleet plays all seven rounds.
fn fleet_sweep() -> String {
    SWEEP.replace("margin = 1.0", "margin = 1.0\nhalf_width = 2.0")
}

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

/// A worker binary whose jobs come back 2 s after it dies (workers set the consumer's limits).
fn worker(url: &str) -> WorkerProcess {
    let args = ["--nats-url", url, "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
    WorkerProcess::spawn(&args, &[("SIMFLEET_WORKER__ACK_WAIT_SECONDS", "2")])
}

/// `coordinator run` of `sweep` in `mode` with 1 and 2 threads, checked equal: the output file,
/// `<stem>.stop.json`, and the decisions table with the episodes line.
async fn embedded(dir: &Path, sweep: &str, mode: &str, ext: &str) -> (Vec<u8>, String, String) {
    let mut runs = Vec::new();
    for threads in ["1", "2"] {
        let out = path(dir, &format!("run-{threads}.{ext}"));
        let args = ["run", sweep, "--out", &out, "--quiet", "--threads", threads, "--collect", mode];
        let (code, stdout, stderr) = coordinator(&args).await;
        assert_eq!(code, 0, "{args:?}\n{stdout}\n{stderr}");
        let stop = std::fs::read_to_string(path(dir, &format!("run-{threads}.stop.json"))).unwrap();
        runs.push((std::fs::read(&out).unwrap(), stop, decisions(&stdout)));
    }
    assert!(runs[0] == runs[1], "{mode}: run --threads 1 and --threads 2 agree");
    runs.swap_remove(0)
}

/// The decisions table and the episodes line of `run`'s or `watch`'s stdout.
fn decisions(stdout: &str) -> String {
    let from = stdout.rfind("\ngame ").unwrap_or_else(|| panic!("a decisions table in\n{stdout}"));
    let line = stdout.find("\nstopping: ").unwrap_or_else(|| panic!("an episodes line in\n{stdout}"));
    let end = stdout[line + 1..].find('\n').map_or(stdout.len(), |e| line + 1 + e);
    stdout[from..end].to_string()
}

/// The id `submit` gives [`fleet_sweep`] in `mode`.
fn sweep_id(mode: &str) -> String {
    Sweep::parse(&fleet_sweep(), "stopping.toml").unwrap().with_collect(Some(mode.parse().unwrap())).id
}

async fn jetstream(url: &str) -> async_nats::jetstream::Context {
    async_nats::jetstream::new(async_nats::connect(url).await.unwrap())
}

/// `submit --watch` of the stopping sweep on two worker processes, the first killed with
/// SIGKILL once results come (the second starts then): the output file and `.stop.json` equal `run`'s byte for byte, and the
/// watch prints `run`'s decisions table and episodes line.
async fn a_fleet_with_a_worker_killed_plays_as_run(mode: &str, ext: &str) {
    let server = NatsServer::start();
    let url = server.client_url();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = path(d, "stopping.toml");
    std::fs::write(&sweep, fleet_sweep()).unwrap();
    let (want, want_stop, want_decisions) = embedded(d, &sweep, mode, ext).await;
    // The victim plays alone until it is killed, so it dies mid-sweep whatever the timing.
    let mut victim = worker(&url);
    let out = path(d, &format!("fleet.{ext}"));
    let args = ["submit", &sweep, "--watch", "--out", &out, "--quiet", "--collect", mode, "--nats-url", &url];
    let mut submit = CoordinatorProcess::spawn(&args, &[]);
    let (js, id) = (jetstream(&url).await, sweep_id(mode));
    wait_until("the first results", TIMEOUT, || async {
        // The results stream exists once `submit` has set up the topology.
        js.get_stream(RESULTS_STREAM).await.ok()?;
        (result_messages(&js, &id).await >= 4).then_some(())
    })
    .await;
    victim.kill();
    let _survivor = worker(&url);
    let status = submit.wait_exit(TIMEOUT).await;
    let (stdout, stderr) = (submit.stdout(), submit.stderr().join("\n"));
    assert!(status.success(), "{status}\n{stdout}\n{stderr}");
    assert!(std::fs::read(&out).unwrap() == want, "{mode}: the fleet's output file is run's\n{stdout}");
    let stop = std::fs::read_to_string(path(d, "fleet.stop.json")).unwrap();
    assert_eq!(stop, want_stop, "{mode}: the same decisions and log of every look");
    assert_eq!(decisions(&stdout), want_decisions, "{mode}: watch prints run's decisions");
    assert!(stdout.contains("\ncore-seconds: "), "{stdout}");
    // The sweep's entry ends done, its total the jobs of every round played.
    let entry: SweepEntry = serde_json::from_slice(
        &js.get_key_value(SWEEPS_BUCKET).await.unwrap().get(&id).await.unwrap().expect("the sweep's entry"),
    )
    .unwrap();
    assert_eq!(entry.status, SweepStatus::Done);
    assert!(entry.jobs_total > 8 && entry.jobs_done == entry.jobs_total, "{entry:?}");
    // Played and cap apart: the entry's total is the cap, and what was played is its own field.
    let played = serde_json::from_str::<serde_json::Value>(&stop).unwrap()["savings"]["played"].as_u64();
    assert_eq!(entry.episodes_played, played, "{entry:?}");
    assert!(played.unwrap() <= entry.episodes_total, "never past the cap: {entry:?}");
    let (code, status, _) = coordinator(&["status", &id, "--nats-url", &url]).await;
    let shown = format!("{} (cap {})", played.unwrap(), entry.episodes_total);
    assert!(code == 0 && status.contains(&shown), "status shows {shown}:\n{status}");
}

/// A watch whose stderr is not a terminal (no bar is drawn), on a sweep no worker plays, says
/// what it waits for at the default log level, and soon: a user piping it to a file or a CI
/// log sees why nothing moves. Both drivers: a plain sweep and a stopping sweep's round.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_without_a_terminal_says_what_it_waits_for_within_ten_seconds() {
    let server = NatsServer::start();
    let url = server.client_url();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plain = SWEEP.split("\n[stop]").next().unwrap().replace("name = \"stopping\"", "name = \"plain\"");
    for (name, text, says) in [("plain", plain, "waiting for"), ("stopping", fleet_sweep(), "of this round")] {
        let sweep = path(d, &format!("{name}.toml"));
        std::fs::write(&sweep, &text).unwrap();
        let (code, stdout, stderr) = coordinator(&["submit", &sweep, "--quiet", "--nats-url", &url]).await;
        assert_eq!(code, 0, "{stdout}\n{stderr}");
        let id = Sweep::parse(&text, "s.toml").unwrap().id;
        let out = path(d, &format!("{name}.jsonl"));
        let mut watch = CoordinatorProcess::spawn(&["watch", &id, "--out", &out, "--nats-url", &url], &[]);
        let line = watch.wait_for_stderr(says, Duration::from_secs(10)).await;
        assert!(line.contains("no result for") && line.contains("job"), "{line}");
        watch.kill();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_with_a_worker_killed_stops_as_run_does_in_records_mode() {
    a_fleet_with_a_worker_killed_plays_as_run("records", "jsonl").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_with_a_worker_killed_stops_as_run_does_in_summary_mode() {
    a_fleet_with_a_worker_killed_plays_as_run("summary", "csv").await;
}

/// `watch` killed once a look is logged and started again: it replays the logged looks, checks
/// each, and ends with `run`'s files; a log that disagrees with the results is an error naming
/// the group and the checkpoint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_killed_and_restarted_checks_the_logged_looks_and_ends_as_run() {
    let server = NatsServer::start();
    let url = server.client_url();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = path(d, "stopping.toml");
    std::fs::write(&sweep, fleet_sweep()).unwrap();
    let (want, want_stop, _) = embedded(d, &sweep, "records", "jsonl").await;
    let _workers = (worker(&url), worker(&url));
    let (code, id, stderr) =
        coordinator(&["submit", &sweep, "--quiet", "--collect", "records", "--nats-url", &url]).await;
    assert_eq!((code, id.trim()), (0, sweep_id("records").as_str()), "{stderr}");
    let id = id.trim();
    let out = path(d, "fleet.jsonl");
    let watch = ["watch", id, "--out", &out, "--quiet", "--nats-url", &url];
    let mut first = CoordinatorProcess::spawn(&watch, &[]);
    let kv = jetstream(&url).await.get_key_value(SWEEPS_BUCKET).await.unwrap();
    let key = stop_log::key(id);
    let logged = |bytes: Option<&[u8]>| {
        bytes.map_or(0, |b| serde_json::from_slice::<serde_json::Value>(b).unwrap()["folds"].as_array().unwrap().len())
    };
    wait_until("a look logged", TIMEOUT, || async {
        (logged(kv.get(&key).await.unwrap().as_deref()) >= 1).then_some(())
    })
    .await;
    assert!(!first.has_exited(), "the first watch is killed mid-sweep");
    first.kill();
    first.wait_exit(TIMEOUT).await;
    let mut second = CoordinatorProcess::spawn(&watch, &[]);
    let status = second.wait_exit(TIMEOUT).await;
    let (stdout, stderr) = (second.stdout(), second.stderr().join("\n"));
    assert!(status.success(), "{status}\n{stdout}\n{stderr}");
    assert!(std::fs::read(&out).unwrap() == want, "the restarted watch's file is run's");
    assert_eq!(std::fs::read_to_string(path(d, "fleet.stop.json")).unwrap(), want_stop);
    let replayed = stdout.lines().find(|l| l.starts_with("resumed: ")).unwrap_or_else(|| panic!("{stdout}"));
    let n: usize = replayed["resumed: ".len()..].split(' ').next().unwrap().parse().unwrap();
    assert!(n >= 1, "{replayed}");
    // A logged look the results do not give: the watch says which.
    let mut log: serde_json::Value = serde_json::from_slice(&kv.get(&key).await.unwrap().unwrap()).unwrap();
    let fold = &mut log["folds"][1];
    let (group, checkpoint) = (fold["group"].as_u64().unwrap(), fold["checkpoint"].as_u64().unwrap());
    fold["digest"] = serde_json::json!(12345);
    kv.put(&key, serde_json::to_vec(&log).unwrap().into()).await.unwrap();
    let (code, stdout, stderr) = coordinator(&watch).await;
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    let says = format!("group {group}, checkpoint {checkpoint} (");
    assert!(stderr.contains(&says) && stderr.contains("logged 0000000000003039"), "{stderr}");
}

/// `cancel` of a stopping sweep mid-way, its fleet gone: the watch fails the round's missing
/// jobs as `cancelled`, prints the decisions made so far and says the sweep was cancelled, and
/// exits 1; the entry ends `cancelled` and no further round is published.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_sweep_cancelled_mid_way_ends_with_the_decisions_made_so_far() {
    let server = NatsServer::start();
    let url = server.client_url();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = path(d, "stopping.toml");
    // Each cell's mean asked to within ±0.01: no cell stops before its cap of 1,000,000 seeds, so
    // the sweep is far from its end when the first look is logged, whatever the timing.
    let text =
        fleet_sweep().replace("count = 1000 }", "count = 1000000 }").replace("half_width = 2.0", "half_width = 0.01");
    std::fs::write(&sweep, &text).unwrap();
    let mut player = worker(&url);
    let out = path(d, "fleet.csv");
    let args = ["submit", &sweep, "--watch", "--out", &out, "--quiet", "--collect", "summary", "--nats-url", &url];
    let mut submit = CoordinatorProcess::spawn(&args, &[]);
    let id = Sweep::parse(&text, "stopping.toml").unwrap().with_collect(Some("summary".parse().unwrap())).id;
    let js = jetstream(&url).await;
    let kv = wait_until("the sweeps bucket", TIMEOUT, || async { js.get_key_value(SWEEPS_BUCKET).await.ok() }).await;
    let key = stop_log::key(&id);
    wait_until("a look logged", TIMEOUT, || async {
        let log: serde_json::Value = serde_json::from_slice(&kv.get(&key).await.ok()??).ok()?;
        (!log["folds"].as_array()?.is_empty()).then_some(())
    })
    .await;
    // The one worker gone, the round in play stays unanswered until the cancel.
    player.kill();
    let (code, stdout, stderr) = coordinator(&["cancel", &id, "--nats-url", &url]).await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains(&format!("{id}: cancelled;")), "{stdout}");
    let status = submit.wait_exit(TIMEOUT).await;
    let (stdout, stderr) = (submit.stdout(), submit.stderr().join("\n"));
    assert_eq!(status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("the sweep was cancelled"), "{stdout}");
    assert!(stdout.contains("\ngame ") && stdout.contains("\nstopping: "), "the decisions so far:\n{stdout}");
    let failed: Vec<&str> = stdout.lines().filter(|l| l.starts_with("  job ")).collect();
    assert!(!failed.is_empty(), "the round's missing jobs fail:\n{stdout}");
    assert!(failed.iter().all(|l| l.ends_with("(cancelled)")), "{failed:?}");
    let log = std::fs::read_to_string(path(d, "fleet.csv.failed.jsonl")).unwrap();
    assert_eq!(log.lines().count(), failed.len(), "{log}");
    let entry: SweepEntry = serde_json::from_slice(&kv.get(&id).await.unwrap().expect("the sweep's entry")).unwrap();
    assert_eq!(entry.status, SweepStatus::Cancelled);
    assert!(entry.jobs_done < entry.jobs_total, "{entry:?}");
    let logged: serde_json::Value = serde_json::from_slice(&kv.get(&key).await.unwrap().unwrap()).unwrap();
    let stop = std::fs::read_to_string(path(d, "fleet.stop.json")).expect("the decisions so far in the stop file");
    let stop: serde_json::Value = serde_json::from_str(&stop).unwrap();
    assert_eq!(stop["log"]["folds"], logged["folds"], "the stop file holds the looks logged before the cancel");
}

/// The numbers of every frame of the episode bar in `screen` (a terminal's output):
/// (episodes done, the bar's total, the most still possible).
fn bar_frames(screen: &str) -> Vec<(u64, u64, u64)> {
    let number = |s: &str| s.replace(',', "").parse::<u64>().ok();
    let mut frames = Vec::new();
    for (at, _) in screen.match_indices(" episodes (round ") {
        let counts = screen[..at].rsplit(' ').next().unwrap_or_default();
        let possible = screen[at..].split("at most ").nth(1).and_then(|s| s.split(' ').next());
        if let (Some((done, total)), Some(possible)) = (counts.split_once('/'), possible) {
            if let (Some(d), Some(t), Some(p)) = (number(done), number(total), number(possible)) {
                frames.push((d, t, p));
            }
        }
    }
    frames
}

/// What a person sees: `run` of a stopping sweep on a terminal (a pseudo-terminal, from
/// util-linux's `script`) draws a bar that counts to the end of the round it plays, never to
/// the cap: no frame's total is above the episodes still possible, and what is possible only
/// shrinks.
#[test]
fn a_stopping_sweeps_bar_never_counts_past_what_is_still_possible() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Records mode, a cap of 60,000 seeds and a precision question: rounds long enough on one
    // thread for the bar to draw.
    let text = SWEEP.replace("count = 1000", "count = 60000").replace("collect = \"summary\"\n", "");
    let text = text.replace("margin = 1.0", "margin = 1.0\nhalf_width = 1.0");
    let (sweep, out) = (path(d, "stop.toml"), path(d, "stop.jsonl"));
    std::fs::write(&sweep, &text).unwrap();
    let cap = Sweep::parse(&text, "stop.toml").unwrap().episode_count();
    let binary = simfleet_tests::coordinator_binary();
    let command = format!("stty cols 250; exec {} run {sweep} --out {out} --threads 1", binary.display());
    let shown = std::process::Command::new("script").args(["-qec", &command, "/dev/null"]).output().unwrap();
    let screen = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.status.success(), "{screen}");
    let frames = bar_frames(&screen);
    assert!(!frames.is_empty(), "the bar was drawn:\n{screen}");
    for w in frames.windows(2) {
        assert!(w[1].2 <= w[0].2, "what is possible only shrinks: {w:?}");
    }
    for &(done, total, possible) in &frames {
        assert!(done <= total && total <= possible && possible <= cap, "{done}/{total}, at most {possible} of {cap}");
    }
    assert!(frames[0].1 < cap, "the first round is one block, not the cap ({cap}): {frames:?}");
}
