//! Results of any size arrive: on a nats-server with the default 1 MB `max_payload`, a sweep
//! whose records-mode results are over it (trolley `trio_3p` at 1,600 episodes per job, ≈ 1.1 MB
//! a result) gets a warning from `coordinator submit`, is played by two worker
//! processes that send each result in parts, and `watch` writes records identical to
//! `coordinator run`'s, each job once; so does `coordinator results`. A finished file that
//! lost its last job (cut by 10 bytes, as the docs do), on a server with a 64 KiB
//! `max_payload`, is completed by `watch` from that job's parts in the results stream. And a
//! result of several megabytes (trolley `trio_3p`, 20,000 episodes a job, ≈ 14 MB) arrives on a
//! server with default settings.

use std::time::Duration;

use simfleet_tests::faults::truncate_tail;
use simfleet_tests::results::{jobs_in_stream, result_messages};
use simfleet_tests::{config_fixture, connect, CoordinatorProcess, NatsServer, WorkerProcess};

use crate::fleet::{assert_same_records, Setup};

const TIMEOUT: Duration = Duration::from_secs(180);

/// Two jobs of trolley `trio_3p` (three persuadable seats) over 1 MB each, and a Bucket
/// Brigade cell whose results fit one message (four jobs).
const SWEEP: &str = "name = \"payload\"\nseeds = { start = 0, count = 3200 }\n\n\
    [[cells]]\ngame = \"trolley\"\nscenarios = [\"trio_3p\"]\nepisodes_per_job = 1600\n\
    [cells.policy_sets]\npersuadables = [\"persuadable\", \"persuadable\", \"persuadable\"]\n\n\
    [[cells]]\ngame = \"bucket_brigade\"\nscenarios = [\"default\"]\nepisodes_per_job = 800\n\
    [cells.policy_sets]\nrandom = [\"random\", \"random\", \"random\", \"random\"]\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_over_max_payload_arrive_in_parts_identical_to_the_embedded_run() {
    let server = NatsServer::start();
    let url = server.client_url();
    let (_client, js) = connect(&url).await;
    let setup = Setup::new(SWEEP.to_string());
    let workers: Vec<WorkerProcess> = (0..2)
        .map(|_| {
            WorkerProcess::spawn(&["--nats-url", &url, "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"], &[])
        })
        .collect();
    let (file, out) = (setup.path("sweep.toml"), setup.path("fleet.jsonl"));
    let args = ["submit", file.to_str().unwrap(), "--watch", "--out", out.to_str().unwrap(), "--quiet"];
    let mut run = CoordinatorProcess::spawn(&[&args[..], &["--nats-url", &url]].concat(), &[]);
    let status = run.wait_exit(TIMEOUT).await;
    let stderr = run.stderr().join("\n");
    assert_eq!(status.code(), Some(0), "no job failed: {}\n{stderr}", run.stdout());
    assert!(stderr.contains("max_payload of 1048576 bytes"), "{stderr}");
    assert!(stderr.contains("cell 1 (trolley trio_3p × persuadables): 1600 episodes per job"), "{stderr}");
    assert!(stderr.contains("in parts"), "{stderr}");
    assert_eq!(jobs_in_stream(&js).await, 0, "every job was acknowledged");
    // Two trolley jobs of ≈ 1.1 MB, two parts and a head each, and four Bucket Brigade results
    // of one message.
    let messages = result_messages(&js, &setup.sweep.id).await;
    assert!(messages >= 2 * 3 + 4, "{messages} messages: the large results went in parts");
    // `status` counts jobs, not the messages their parts came in: answered = jobs = 6.
    let mut status = CoordinatorProcess::spawn(&["status", &setup.sweep.id, "--nats-url", &url], &[]);
    assert!(status.wait_exit(TIMEOUT).await.success(), "{:?}", status.stderr());
    let shown = status.stdout();
    let row: Vec<&str> =
        shown.lines().find(|l| l.starts_with(&setup.sweep.id)).expect("the sweep's row").split_whitespace().collect();
    // sweep status priority share jobs episodes waiting in-flight fleet-share answered written failed progress
    assert_eq!((row[4], row[9], row[10], row[12]), ("6", "6", "6", "100.0%"), "{shown}");
    let size = std::fs::metadata(&out).unwrap().len();
    assert!(size > 2 << 20, "{size} bytes of records");
    assert_same_records(&setup, &out).await;
    // `coordinator results` puts the parts back together too.
    let export = setup.path("export.jsonl");
    let args = ["results", &setup.sweep.id, "--out", export.to_str().unwrap(), "--quiet", "--nats-url", &url];
    let mut results = CoordinatorProcess::spawn(&args, &[]);
    assert_eq!(results.wait_exit(TIMEOUT).await.code(), Some(0), "{}", results.stderr().join("\n"));
    assert_same_records(&setup, &export).await;
    let played = workers.iter().filter(|w| w.logs().iter().any(|l| l.contains("publishing a result in parts"))).count();
    assert!(played >= 1, "a worker logged a result in parts");
}

/// A records sweep of trolley `trio_3p` (three persuadable seats, ≈ 690 bytes an episode in a
/// result): `seeds` episodes, `per_job` a job.
fn trolley(name: &str, seeds: u64, per_job: u64) -> String {
    format!(
        "name = \"{name}\"\nseeds = {{ start = 0, count = {seeds} }}\n\n[[cells]]\ngame = \"trolley\"\n\
         scenarios = [\"trio_3p\"]\nepisodes_per_job = {per_job}\n[cells.policy_sets]\n\
         persuadables = [\"persuadable\", \"persuadable\", \"persuadable\"]\n"
    )
}

fn workers(url: &str, n: usize) -> Vec<WorkerProcess> {
    (0..n)
        .map(|_| {
            WorkerProcess::spawn(&["--nats-url", url, "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"], &[])
        })
        .collect()
}

/// `coordinator ARGS… --quiet --nats-url URL` to its end; its stdout.
async fn coordinator(args: &[&str], url: &str) -> String {
    let mut run = CoordinatorProcess::spawn(&[args, &["--quiet", "--nats-url", url]].concat(), &[]);
    let status = run.wait_exit(TIMEOUT).await;
    assert_eq!(status.code(), Some(0), "{args:?}: {}\n{}", run.stdout(), run.stderr().join("\n"));
    run.stdout()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_file_that_lost_a_result_sent_in_parts_is_completed() {
    let server = NatsServer::start_with_config(config_fixture("small_payload.conf"));
    let url = server.client_url();
    let (_client, js) = connect(&url).await;
    // Three jobs of ≈ 140 kB: three parts and a head each.
    let setup = Setup::new(trolley("reread-parts", 600, 200));
    let _worker = workers(&url, 1);
    let (file, out) = (setup.path("sweep.toml"), setup.path("fleet.jsonl"));
    coordinator(&["submit", file.to_str().unwrap(), "--watch", "--out", out.to_str().unwrap()], &url).await;
    let messages = result_messages(&js, &setup.sweep.id).await;
    assert!(messages >= 3 * 3, "{messages} messages: each result went in parts");
    assert_same_records(&setup, &out).await;
    let finished = std::fs::read(&out).unwrap();

    // The docs' example: the finished file cut by 10 bytes loses its last job; `watch` reads
    // its result again from the stream, in parts, and puts them together.
    truncate_tail(&out, 10);
    let stdout = coordinator(&["watch", &setup.sweep.id, "--out", out.to_str().unwrap()], &url).await;
    assert!(stdout.contains("3 of 3 jobs written"), "{stdout}");
    assert!(stdout.contains("(200 records this run"), "{stdout}");
    // Byte for byte the finished file (whose records are `coordinator run`'s): the cut job's
    // rows are back, at the end where they were.
    assert!(std::fs::read(&out).unwrap() == finished, "the completed file is the finished one, byte for byte");
    assert_same_records(&setup, &out).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_of_megabytes_arrive_on_a_server_with_default_settings() {
    let server = NatsServer::start();
    let url = server.client_url();
    let (_client, js) = connect(&url).await;
    let setup = Setup::new(trolley("megabytes", 2 * PER_JOB, PER_JOB));
    let players = workers(&url, 2);
    let (file, out) = (setup.path("sweep.toml"), setup.path("fleet.jsonl"));
    coordinator(&["submit", file.to_str().unwrap(), "--watch", "--out", out.to_str().unwrap()], &url).await;
    assert_eq!(jobs_in_stream(&js).await, 0, "every job was acknowledged");
    let messages = result_messages(&js, &setup.sweep.id).await;
    assert!(messages >= 2 * (PARTS + 1), "{messages} messages: each result went in {PARTS} parts or more");
    assert_same_records(&setup, &out).await;
    let played = players.iter().filter(|w| w.logs().iter().any(|l| l.contains("publishing a result in parts"))).count();
    assert!(played >= 1, "a worker logged a result in parts");
}

/// Episodes a job of [`results_of_megabytes_arrive_on_a_server_with_default_settings`], and
/// the parts of 1 MB its result needs at least.
const PER_JOB: u64 = 20_000;
const PARTS: u64 = 12;
