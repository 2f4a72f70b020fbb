//! The fleet end to end: the coordinator's `submit` and `watch` with real workers on a real
//! nats-server, against `coordinator run` of the same sweep, through crashes and restarts.
//! Every test compares the watched output with the embedded run's records, line for line.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use coordinator::fleet::{self, Fleet, FleetSettings};
use coordinator::sweep::Sweep;
use futures::StreamExt;
use indicatif::ProgressBar;
use simfleet::names::{job_subject, msg_id};
use simfleet::nats::topology::{ensure, sweep_consumer, LimitsOwner, TopologyConfig};
use simfleet::protocol::{self, JobEnvelope};
use simfleet::{JobErrorKind, PROTOCOL_VERSION};
use simfleet_tests::jobs::{episodes_for, publish_job, publish_raw, slow_job};
use simfleet_tests::results::{jobs_in_stream, result_messages};
use simfleet_tests::{
    config_fixture, coordinator_binary, test_settings, wait_until, within, CoordinatorProcess, NatsServer,
    RunningWorker, WorkerProcess,
};

const TIMEOUT: Duration = Duration::from_secs(180);

/// A Bucket Brigade sweep of `jobs` jobs (two policy sets) of slow episodes (ten agents, at
/// least 100 nights), each job about `job_time` long on this machine.
pub(crate) fn slow_sweep(name: &str, jobs: u64, job_time: Duration) -> String {
    let per_job = episodes_for(slow_job, job_time);
    let team = |p: &str| vec![format!("{p:?}"); 10].join(", ");
    format!(
        "name = {name:?}\nseeds = {{ start = 0, count = {} }}\nepisodes_per_job = {per_job}\n\n[[cells]]\n\
         game = \"bucket_brigade\"\nscenarios = [\"default?num_agents=10&min_nights=100\"]\n[cells.policy_sets]\n\
         firefighters = [{}]\nheroes = [{}]\n",
        per_job * jobs.div_ceil(2),
        team("firefighter"),
        team("hero"),
    )
}

/// A sweep file in a folder of its own, parsed, and where the test's outputs go.
pub(crate) struct Setup {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) text: String,
    pub(crate) sweep: Sweep,
}

impl Setup {
    pub(crate) fn new(text: String) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sweep.toml"), &text).unwrap();
        let sweep = Sweep::parse(&text, "sweep.toml").unwrap();
        Setup { dir, text, sweep }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The records of `coordinator run` of the sweep, sorted.
    pub(crate) async fn embedded(&self) -> Vec<String> {
        let (sweep, out) = (self.path("sweep.toml"), self.path("embedded.jsonl"));
        let report = tokio::task::spawn_blocking(move || {
            coordinator::embedded::play(&sweep, &out, Some(2), false, None).unwrap()
        })
        .await
        .unwrap();
        assert!(report.failures.is_empty(), "{:?}", report.failures);
        sorted_lines(&self.path("embedded.jsonl"))
    }
}

fn sorted_lines(path: &Path) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(path).unwrap().lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// Asserts `out` holds exactly the embedded run's records: none lost, none twice, same bytes.
pub(crate) async fn assert_same_records(setup: &Setup, out: &Path) {
    let got = sorted_lines(out);
    let want = setup.embedded().await;
    let wanted: std::collections::BTreeSet<&String> = want.iter().collect();
    let mut unique = got.clone();
    unique.dedup();
    let duplicated = got.len() - unique.len();
    let different = unique.iter().filter(|r| !wanted.contains(r)).count();
    let lost = want.len() - (unique.len() - different);
    assert_eq!(
        (lost, duplicated, different),
        (0, 0, 0),
        "records lost, duplicated and different from `coordinator run`'s ({} expected)",
        want.len()
    );
    assert!(got == want, "the fleet's records differ from the embedded run's");
}

async fn fleet(url: &str) -> Fleet {
    Fleet::connect(&FleetSettings::new(url)).await.unwrap()
}

/// A worker binary with the short ack wait of [`short_ack_wait`] (workers set the consumer's
/// limits to their own).
fn worker_process(url: &str) -> WorkerProcess {
    let args = ["--nats-url", url, "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
    WorkerProcess::spawn(&args, &[("SIMFLEET_WORKER__ACK_WAIT_SECONDS", "2")])
}

async fn submit(f: &Fleet, setup: &Setup) -> fleet::submit::SubmitReport {
    fleet::submit::submit(f, &setup.sweep, &setup.text, &ProgressBar::hidden()).await.unwrap()
}

async fn watch(f: &Fleet, setup: &Setup, out: &Path) -> fleet::watch::WatchReport {
    within("the watch to finish", TIMEOUT, fleet::watch::watch(f, &setup.sweep.id, out, false)).await.unwrap()
}

/// `watch` on a connection of its own, in a task, so the test can break things meanwhile.
fn spawn_watch(
    url: &str,
    setup: &Setup,
    out: &Path,
) -> tokio::task::JoinHandle<anyhow::Result<fleet::watch::WatchReport>> {
    let (id, out, url) = (setup.sweep.id.clone(), out.to_path_buf(), url.to_string());
    tokio::spawn(async move {
        let f = fleet(&url).await;
        fleet::watch::watch(&f, &id, &out, false).await
    })
}

/// Waits until the results stream holds at least `n` results of the sweep.
async fn wait_for_results(js: &async_nats::jetstream::Context, setup: &Setup, n: u64) {
    wait_until("a few results", TIMEOUT, || async { (result_messages(js, &setup.sweep.id).await >= n).then_some(()) })
        .await;
}

/// Starts the topology with a short ack wait, so jobs of a killed worker come back in seconds.
async fn short_ack_wait(url: &str) -> async_nats::jetstream::Context {
    let js = async_nats::jetstream::new(async_nats::connect(url).await.unwrap());
    ensure(&js, &TopologyConfig { ack_wait: Duration::from_secs(2), ..TopologyConfig::default() }).await.unwrap();
    js
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_worker_processes_give_the_records_of_the_embedded_run() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let setup = Setup::new(slow_sweep("parity", 12, Duration::from_millis(40)));
    // One worker with the default single runtime thread, one with two (`runtime_threads`).
    let args = ["--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
    let two_threads = [("SIMFLEET_WORKER__ACK_WAIT_SECONDS", "2"), ("SIMFLEET_WORKER__RUNTIME_THREADS", "2")];
    let workers = [worker_process(&url), WorkerProcess::spawn(&args, &two_threads)];
    let f = fleet(&url).await;
    let submitted = submit(&f, &setup).await;
    assert_eq!((submitted.published, submitted.jobs), (12, 12));
    let out = setup.path("fleet.jsonl");
    let report = watch(&f, &setup, &out).await;
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!((report.jobs_done, report.jobs_total, report.duplicates), (12, 12, 0));
    assert_same_records(&setup, &out).await;
    let logs = workers[1].logs().join("\n");
    assert!(logs.contains("runtime_threads: 2"), "the second worker runs two runtime threads:\n{logs}");
    // `results` exports the same sweep again, here as Parquet, read back row by row.
    let parquet = setup.path("again.parquet");
    let exported = fleet::results::export(&f, &setup.sweep.id, &parquet, false).await.unwrap();
    assert_eq!(exported.records, setup.sweep.episode_count());
    let mut rows = 0;
    coordinator::records::for_each_row(&parquet, |_, _| rows += 1).unwrap();
    assert_eq!(rows, setup.sweep.episode_count(), "rows in the Parquet export");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_sweep_loses_and_duplicates_nothing() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let js = short_ack_wait(&url).await;
    let setup = Setup::new(slow_sweep("kill9", 24, Duration::from_millis(150)));
    let mut victim = worker_process(&url);
    let _survivor = worker_process(&url);
    let f = fleet(&url).await;
    submit(&f, &setup).await;
    let out = setup.path("fleet.csv");
    let watcher = spawn_watch(&url, &setup, &out);
    wait_for_results(&js, &setup, 4).await;
    victim.kill();
    let report = within("the watch", TIMEOUT, watcher).await.unwrap().unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!(report.jobs_done, 24);
    // CSV this time: compare through the JSON Lines of `results`, exported again.
    let again = setup.path("again.jsonl");
    let exported = fleet::results::export(&f, &setup.sweep.id, &again, false).await.unwrap();
    assert_eq!(exported.jobs, 24);
    assert_same_records(&setup, &again).await;
    let csv_rows = std::fs::read_to_string(&out).unwrap().lines().count() - 1;
    assert_eq!(csv_rows as u64, setup.sweep.episode_count(), "CSV rows");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_restart_mid_sweep_loses_and_duplicates_nothing() {
    let mut server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let js = short_ack_wait(&url).await;
    let setup = Setup::new(slow_sweep("restart", 24, Duration::from_millis(150)));
    let _workers = [worker_process(&url), worker_process(&url)];
    let f = fleet(&url).await;
    submit(&f, &setup).await;
    let out = setup.path("fleet.jsonl");
    let watcher = spawn_watch(&url, &setup, &out);
    wait_for_results(&js, &setup, 4).await;
    server.restart();
    let report = within("the watch", TIMEOUT, watcher).await.unwrap().unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!(report.jobs_done, 24);
    assert_same_records(&setup, &out).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_killed_and_restarted_writes_every_result_once() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let js = short_ack_wait(&url).await;
    let setup = Setup::new(slow_sweep("rewatch", 24, Duration::from_millis(150)));
    let _workers = [worker_process(&url), worker_process(&url)];
    let f = fleet(&url).await;
    submit(&f, &setup).await;
    let out = setup.path("fleet.jsonl");
    let watch_cmd = || {
        Command::new(coordinator_binary())
            .args(["watch", &setup.sweep.id, "--quiet", "--nats-url", &url, "--out"])
            .arg(&out)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(setup.path("watch.log")).unwrap())
            .spawn()
            .unwrap()
    };
    let mut first = watch_cmd();
    wait_until("the first watch to write some records", TIMEOUT, || async {
        let written = std::fs::metadata(&out).map_or(0, |m| m.len());
        (written > 0 && result_messages(&js, &setup.sweep.id).await >= 6).then_some(())
    })
    .await;
    first.kill().unwrap();
    first.wait().unwrap();
    let mut second = watch_cmd();
    let status = wait_until("the second watch to finish", TIMEOUT, || {
        let status = second.try_wait().unwrap();
        async move { status }
    })
    .await;
    let log = std::fs::read_to_string(setup.path("watch.log")).unwrap();
    assert!(status.success(), "the resumed watch exits 0, got {status}: {log}");
    assert_same_records(&setup, &out).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submitting_twice_runs_each_job_once() {
    let server = NatsServer::start();
    let url = server.client_url();
    let setup = Setup::new(slow_sweep("twice", 8, Duration::from_millis(20)));
    let f = fleet(&url).await;
    let first = submit(&f, &setup).await;
    let second = submit(&f, &setup).await;
    assert_eq!((first.published, first.duplicates), (8, 0));
    assert_eq!((second.published, second.published_before), (0, 8), "the publish record holds every job");
    assert_eq!(jobs_in_stream(&f.js).await, 8, "eight jobs queued, not sixteen");
    let worker = RunningWorker::start(test_settings(&url)).await;
    let out = setup.path("fleet.jsonl");
    let report = watch(&f, &setup, &out).await;
    assert_eq!((report.jobs_done, report.duplicates), (8, 0));
    assert_eq!(result_messages(&f.js, &setup.sweep.id).await, 8, "one result per job");
    // The sweep is done and stays done when submitted again.
    let third = submit(&f, &setup).await;
    assert_eq!((third.published, third.published_before), (0, 8));
    assert_eq!(third.status, simfleet::names::SweepStatus::Done);
    worker.stop().await.unwrap();
    assert_same_records(&setup, &out).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_jobs_are_reported_with_their_index_and_reason() {
    let server = NatsServer::start();
    let url = server.client_url();
    let setup = Setup::new(slow_sweep("bad", 6, Duration::from_millis(10)));
    let f = fleet(&url).await;
    // The sweep's KV entry as `submit` writes it, then jobs published by hand: four broken.
    let sweep = &setup.sweep;
    f.put_entry(&simfleet::names::SweepEntry {
        id: sweep.id.clone(),
        name: sweep.name.clone(),
        status: simfleet::names::SweepStatus::Submitted,
        priority: Default::default(),
        share: 1,
        jobs_total: 6,
        episodes_total: sweep.episode_count(),
        jobs_done: 0,
        jobs_failed: 0,
        episodes_played: None,
        definition: setup.text.clone(),
        collect: None,
        published: None,
        llm_max_calls: None,
    })
    .await
    .unwrap();
    let subject = job_subject("bucket_brigade", &sweep.id);
    publish_raw(&f.js, &subject, b"\xc1 not msgpack".to_vec(), Some(&msg_id(&sweep.id, 0))).await;
    let future = JobEnvelope { protocol_version: PROTOCOL_VERSION + 1, sweep: sweep.id.clone(), index: 1 };
    publish_raw(&f.js, &subject, protocol::encode(&future), Some(&msg_id(&sweep.id, 1))).await;
    let mut chess = sweep.job(2).unwrap();
    chess.game = "chess".into();
    publish_raw(&f.js, &subject, protocol::encode(&chess), Some(&msg_id(&sweep.id, 2))).await;
    let mut crowded = sweep.job(3).unwrap();
    crowded.scenario = "default?num_agents=11".into();
    publish_job(&f.js, &crowded).await;
    for i in 4..6 {
        publish_job(&f.js, &sweep.job(i).unwrap()).await;
    }
    let worker = RunningWorker::start(test_settings(&url)).await;
    let out = setup.path("fleet.jsonl");
    let report = watch(&f, &setup, &out).await;
    let failed: Vec<(u64, &str)> = report.failures.iter().map(|f| (f.job, f.kind.as_str())).collect();
    assert_eq!(
        failed,
        [
            (0, JobErrorKind::Undecodable.as_str()),
            (1, JobErrorKind::UnsupportedVersion.as_str()),
            (2, JobErrorKind::UnknownGame.as_str()),
            (3, JobErrorKind::InvalidJob.as_str()),
        ]
    );
    assert!(report.failures[3].error.contains("scenario.num_agents = 11"), "{}", report.failures[3].error);
    assert_eq!(report.jobs_done, 2, "the worker kept serving");
    let per_job = sweep.job(4).unwrap().seeds.count + sweep.job(5).unwrap().seeds.count;
    assert_eq!(sorted_lines(&out).len() as u64, per_job);
    // The failures are also beside the output, for a resumed watch and for people.
    let log = std::fs::read_to_string(fleet::failures::FailureLog::path_for(&out)).unwrap();
    assert_eq!(log.lines().count(), 4);
    worker.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_out_of_deliveries_is_reported_failed() {
    let server = NatsServer::start();
    let url = server.client_url();
    let js = async_nats::jetstream::new(async_nats::connect(&url).await.unwrap());
    let cfg = TopologyConfig { max_deliver: 1, ack_wait: Duration::from_secs(1), ..TopologyConfig::default() };
    let topology = ensure(&js, &cfg).await.unwrap();
    let setup = Setup::new(slow_sweep("dlq", 2, Duration::from_millis(10)));
    let f = fleet(&url).await;
    submit(&f, &setup).await;
    // A worker that takes job 0 and dies silently: never acks, and one delivery is all it gets.
    let (consumer, _) = sweep_consumer(&topology.jobs, &cfg, &setup.sweep.id, LimitsOwner::Worker).await.unwrap();
    let mut batch = consumer.batch().max_messages(1).expires(Duration::from_secs(5)).messages().await.unwrap();
    let taken = within("a delivery", Duration::from_secs(10), batch.next()).await.unwrap().unwrap();
    let envelope: JobEnvelope = protocol::decode(&taken.payload).unwrap();
    assert_eq!(envelope.index, 0);
    drop(batch);
    // Configured like the consumer: a worker changes the consumer's limits to its own.
    let settings = worker::Settings { max_deliver: 1, ack_wait: Duration::from_secs(1), ..test_settings(&url) };
    let worker = RunningWorker::start(settings).await;
    let out = setup.path("fleet.jsonl");
    let report = watch(&f, &setup, &out).await;
    assert_eq!(report.jobs_done, 1);
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    assert_eq!((report.failures[0].job, report.failures[0].kind.as_str()), (0, "max_deliveries"));
    assert_eq!(jobs_in_stream(&js).await, 0, "the stuck job is removed from the queue");
    worker.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_counts_and_cancel_stops_a_sweep() {
    let server = NatsServer::start();
    let url = server.client_url();
    let setup = Setup::new(slow_sweep("cancel", 6, Duration::from_millis(10)));
    let f = fleet(&url).await;
    submit(&f, &setup).await;
    let states = fleet::status::status(&f, Some(&setup.sweep.id)).await.unwrap();
    assert_eq!((states[0].jobs_total, states[0].queued, states[0].answered), (6, 6, 0));
    let out = setup.path("fleet.jsonl");
    let watcher = spawn_watch(&url, &setup, &out);
    let cancelled = fleet::cancel::cancel(&f, &setup.sweep.id).await.unwrap();
    assert_eq!(cancelled.purged, 6);
    let report = within("the watch to stop", TIMEOUT, watcher).await.unwrap().unwrap();
    assert!(report.cancelled);
    assert_eq!(report.failures.len(), 6);
    assert!(report.failures.iter().all(|f| f.kind == "cancelled"));
    let states = fleet::status::status(&f, None).await.unwrap();
    assert_eq!(states.len(), 1);
    assert_eq!((states[0].status, states[0].queued), (simfleet::names::SweepStatus::Cancelled, 0));
    assert!(fleet::status::table(&states).contains(&setup.sweep.id));
    // Through the CLI: `status` says what was played of the cancelled sweep (nothing), not the
    // share of jobs its watch closed; a watch of it again ends with no table of no cells.
    let mut status = CoordinatorProcess::spawn(&["status", &setup.sweep.id, "--nats-url", &url], &[]);
    assert!(status.wait_exit(TIMEOUT).await.success(), "{:?}", status.stderr());
    let row = status.stdout().lines().find(|l| l.starts_with(&setup.sweep.id)).map(str::to_string);
    assert!(row.as_deref().is_some_and(|r| r.ends_with("0.0% cancelled")), "{}", status.stdout());
    let again = setup.path("again.jsonl");
    let mut watch = CoordinatorProcess::spawn(
        &["watch", &setup.sweep.id, "--out", again.to_str().unwrap(), "--quiet", "--nats-url", &url],
        &[],
    );
    let exit = watch.wait_exit(TIMEOUT).await;
    let stdout = watch.stdout();
    assert_eq!(exit.code(), Some(1), "the jobs failed as cancelled: {stdout}");
    assert!(stdout.contains("the sweep was cancelled"), "{stdout}");
    assert!(!stdout.lines().any(|l| l.starts_with("game ")), "no table header without cells:\n{stdout}");
}

const ALL_GAMES: &str = r#"
name = "all-games"
seeds = { start = 100, count = 60 }

[[cells]]
game = "bucket_brigade"
scenarios = ["default", "hard"]
episodes_per_job = 25
[cells.policy_sets]
mixed = ["firefighter", "free_rider", "hero", "liar"]

[[cells]]
game = "deception"
scenarios = ["classic_5p1i", "classic_5p1i?tie_policy=random"]
episodes_per_job = 25
[cells.policy_sets]
heuristic = ["heuristic", "heuristic", "heuristic", "heuristic", "heuristic"]
random = ["random", "random", "random", "random", "random"]

[[cells]]
game = "cogsguard"
scenarios = ["arena?max_steps=200"]
episodes_per_job = 20
[cells.policy_sets]
pinky = ["pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2"]

[[cells]]
game = "trolley"
scenarios = ["balanced_5p", "classic_7p_5v1"]
episodes_per_job = 30
[cells.policy_sets]
utilitarian = ["utilitarian", "utilitarian", "utilitarian", "utilitarian", "utilitarian", "utilitarian", "utilitarian"]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_plays_on_the_fleet_as_embedded() {
    let server = NatsServer::start();
    let url = server.client_url();
    // The trolley team has seven seats: give the five-seat scenario its own five.
    let text = ALL_GAMES.replace(
        "scenarios = [\"balanced_5p\", \"classic_7p_5v1\"]",
        "scenarios = [\"classic_7p_5v1\"]",
    ) + "\n[[cells]]\ngame = \"trolley\"\nscenarios = [\"balanced_5p\"]\nepisodes_per_job = 30\n[cells.policy_sets]\n\
         operators = [\"persuadable\", \"contrarian\", \"random\", \"utilitarian\", \"debater\"]\n";
    let setup = Setup::new(text);
    assert_eq!(setup.sweep.games().len(), 4, "the sweep covers every game");
    let worker = RunningWorker::start(test_settings(&url)).await;
    let f = fleet(&url).await;
    submit(&f, &setup).await;
    let out = setup.path("fleet.jsonl");
    let report = watch(&f, &setup, &out).await;
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!(report.jobs_done, setup.sweep.job_count());
    worker.stop().await.unwrap();
    assert_same_records(&setup, &out).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_cogsguard_jobs_are_kept_alive_by_progress_acks() {
    let server = NatsServer::start();
    let url = server.client_url();
    let js = async_nats::jetstream::new(async_nats::connect(&url).await.unwrap());
    let ack_wait = Duration::from_secs(2);
    let topology = ensure(&js, &TopologyConfig { ack_wait, ..TopologyConfig::default() }).await.unwrap();
    // Jobs three ack waits long, measured with the engine the worker runs.
    let team = vec!["pinky?miner=2&scout=1&aligner=3&scrambler=2".to_string(); 8];
    let probe = simfleet::Job {
        protocol_version: PROTOCOL_VERSION,
        sweep: "probe-000000000000".into(),
        index: 0,
        game: "cogsguard".into(),
        scenario: "arena".into(),
        policy_set: simfleet::protocol::PolicySet { name: "pinky".into(), seats: team.clone() },
        seeds: simfleet::protocol::SeedRange { start: 0, count: 2 },
        replay: false,
        collect: Default::default(),
        paired: Vec::new(),
    };
    let per_episode = simfleet::run_job(&probe, &simfleet::RunEnv::default()).elapsed_seconds / 2.0;
    let per_job = ((3.0 * ack_wait.as_secs_f64() / per_episode).ceil() as u64).max(2);
    let seats = team.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
    // Summary jobs: a result is one aggregate whatever the job's size, so a faster engine
    // (more episodes to fill three ack waits) cannot push it past the server's max_payload.
    let text = format!(
        "name = \"long\"\nseeds = {{ start = 0, count = {} }}\nepisodes_per_job = {per_job}\ncollect = \"summary\"\n\n[[cells]]\n\
         game = \"cogsguard\"\nscenarios = [\"arena\"]\n[cells.policy_sets]\npinky = [{seats}]\n",
        2 * per_job
    );
    let setup = Setup::new(text);
    let worker = RunningWorker::start(worker::Settings { ack_wait, ..test_settings(&url) }).await;
    let f = fleet(&url).await;
    submit(&f, &setup).await;
    let out = setup.path("fleet.jsonl");
    let report = watch(&f, &setup, &out).await;
    assert_eq!((report.jobs_done, report.duplicates), (2, 0));
    let info = topology.jobs.consumer_info(simfleet::names::sweep_consumer_name(&setup.sweep.id)).await.unwrap();
    assert_eq!(info.num_redelivered, 0, "a job running past the ack wait was redelivered");
    assert_eq!(result_messages(&js, &setup.sweep.id).await, 2);
    worker.stop().await.unwrap();
}

/// `watch` resumes only its own sweep's file: a file holding another sweep's records is refused
/// before anything is cut, naming both sweeps, and left whole (its job indexes are not this
/// sweep's jobs: taken as done, they would end the watch with the jobs never written).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_refuses_a_file_of_another_sweep_and_leaves_it_whole() {
    let server = NatsServer::start();
    let url = server.client_url();
    let setup = Setup::new(slow_sweep("mine", 4, Duration::from_millis(10)));
    submit(&fleet(&url).await, &setup).await;
    let (theirs, out) = (setup.path("theirs.toml"), setup.path("theirs.jsonl"));
    std::fs::write(&theirs, slow_sweep("theirs", 4, Duration::from_millis(10))).unwrap();
    let mut run =
        CoordinatorProcess::spawn(&["run", theirs.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"], &[]);
    assert!(run.wait_exit(TIMEOUT).await.success(), "{:?}", run.stderr());
    let before = std::fs::read(&out).unwrap();
    let args = ["watch", &setup.sweep.id, "--out", out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    let mut watch = CoordinatorProcess::spawn(&args, &[]);
    let status = watch.wait_exit(TIMEOUT).await;
    let stderr = watch.stderr().join("\n");
    assert_eq!(status.code(), Some(2), "refused: {stderr}");
    assert!(stderr.contains(&setup.sweep.id) && stderr.contains("theirs-"), "names both sweeps: {stderr}");
    assert!(std::fs::read(&out).unwrap() == before, "the file is left whole");
}
