//! Resubmission at any delay, through the `coordinator` binary: after the jobs stream's
//! duplicate window (made a second long here) a resubmission publishes nothing; a submit killed
//! halfway through publishing, run again after the window, leaves every job published exactly
//! once; jobs lost from the queue come back only with `--republish`; a sweep cancelled while
//! it is published stays cancelled.

use std::collections::BTreeMap;
use std::time::Duration;

use async_nats::jetstream::{self, Context};
use coordinator::fleet::msg_ids;
use simfleet::names::{sweep_jobs_filter, SweepEntry, SweepStatus};
use simfleet::nats::topology::{ensure, Topology, TopologyConfig};
use simfleet_tests::{wait_until, CoordinatorProcess, NatsServer};

use crate::fleet::Setup;

const TIMEOUT: Duration = Duration::from_secs(120);
/// The jobs stream's duplicate window in these tests: short, so a test can outlast it.
const WINDOW: Duration = Duration::from_secs(1);

/// A Bucket Brigade sweep of `jobs` one-episode jobs (nothing plays them here).
fn many_jobs(name: &str, jobs: u64) -> String {
    format!(
        "name = {name:?}\nseeds = {{ start = 0, count = {jobs} }}\nepisodes_per_job = 1\n\n[[cells]]\n\
         game = \"bucket_brigade\"\nscenarios = [\"default\"]\n[cells.policy_sets]\n\
         firefighters = [\"firefighter\", \"firefighter\", \"firefighter\", \"firefighter\"]\n"
    )
}

/// The topology with a one-second duplicate window on the jobs stream.
async fn short_window(url: &str) -> (Context, Topology) {
    let js = jetstream::new(async_nats::connect(url).await.unwrap());
    let topology =
        ensure(&js, &TopologyConfig { jobs_duplicate_window: WINDOW, ..TopologyConfig::default() }).await.unwrap();
    (js, topology)
}

/// Waits until the jobs stream's duplicate window has passed since now: a probe message
/// published now is taken again (not a duplicate) under the same message id. The probe's
/// subject belongs to no sweep of the test.
async fn outlast_the_window(js: &Context, topology: &Topology) {
    let id = format!("probe-{}", std::process::id());
    let subject = "simfleet.jobs.probe.window";
    let publish = |n: u32| {
        let mut headers = async_nats::HeaderMap::new();
        headers.insert(async_nats::header::NATS_MESSAGE_ID, id.as_str());
        async move { js.publish_with_headers(subject, headers, vec![n as u8].into()).await.unwrap().await.unwrap() }
    };
    assert!(!publish(0).await.duplicate);
    wait_until("the duplicate window to pass", TIMEOUT, || async {
        let ack = publish(1).await;
        if ack.duplicate {
            tokio::time::sleep(Duration::from_millis(100)).await;
            None
        } else {
            Some(())
        }
    })
    .await;
    topology.jobs.purge().filter(subject).await.unwrap();
}

/// Runs `coordinator <args>` to the end; its exit code and stderr.
async fn coordinator(args: &[&str]) -> (Option<i32>, String) {
    let mut c = CoordinatorProcess::spawn(args, &[]);
    let status = c.wait_exit(TIMEOUT).await;
    (status.code(), c.stderr().join("\n"))
}

/// How many times each job index of `sweep` is in the queue.
async fn queued_copies(topology: &Topology, sweep: &str) -> BTreeMap<u64, u32> {
    let mut copies = BTreeMap::new();
    let mut seq = 1;
    let filter = sweep_jobs_filter(sweep);
    while let Ok(msg) = topology.jobs.raw_message_builder().sequence(seq).next_by_subject(&filter).send().await {
        let index = msg_ids::index_of(Some(&msg.headers), sweep).expect("a job of the sweep");
        *copies.entry(index).or_default() += 1;
        seq = msg.sequence + 1;
    }
    copies
}

async fn entry(topology: &Topology, sweep: &str) -> SweepEntry {
    serde_json::from_slice(&topology.sweeps.get(sweep).await.unwrap().expect("the sweep entry")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resubmission_after_the_duplicate_window_publishes_nothing() {
    let server = NatsServer::start();
    let url = server.client_url();
    let (js, topology) = short_window(&url).await;
    let setup = Setup::new(many_jobs("late", 12));
    let id = setup.sweep.id.as_str();
    let sweep = setup.path("sweep.toml");
    let submit = ["submit", sweep.to_str().unwrap(), "--quiet", "--nats-url", &url];
    let (code, stderr) = coordinator(&submit).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("12 published, 0 published before"), "{stderr}");
    outlast_the_window(&js, &topology).await;
    // No worker runs: all twelve wait in the queue, and the server would take them again.
    let (code, stderr) = coordinator(&submit).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("0 published, 12 published before, 0 already answered, 0 dropped"), "{stderr}");
    let copies = queued_copies(&topology, id).await;
    assert_eq!((copies.len(), copies.values().max()), (12, Some(&1)), "each job queued once: {copies:?}");
    // A finished sweep stays finished when submitted again.
    let mut done = entry(&topology, id).await;
    done.status = SweepStatus::Done;
    topology.sweeps.put(id, serde_json::to_vec(&done).unwrap().into()).await.unwrap();
    let (code, stderr) = coordinator(&submit).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("0 published") && stderr.contains("status done"), "{stderr}");
    assert_eq!(entry(&topology, id).await.status, SweepStatus::Done);
    // Jobs lost from the queue (a purge) come back only when asked: `--republish`.
    topology.jobs.purge().filter(sweep_jobs_filter(id)).await.unwrap();
    let (code, stderr) = coordinator(&submit).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("0 published, 12 published before"), "{stderr}");
    assert!(queued_copies(&topology, id).await.is_empty(), "a plain resubmission republished lost jobs");
    let republish = ["submit", sweep.to_str().unwrap(), "--republish", "--quiet", "--nats-url", &url];
    let (code, stderr) = coordinator(&republish).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("12 published, 0 published before") && stderr.contains("status submitted"), "{stderr}");
    let copies = queued_copies(&topology, id).await;
    assert_eq!((copies.len(), copies.values().max()), (12, Some(&1)), "each lost job queued once: {copies:?}");
    // Republishing again finds them queued and publishes nothing.
    let (code, stderr) = coordinator(&republish).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("0 published, 12 published before"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submit_killed_while_publishing_then_run_again_publishes_each_job_once() {
    let server = NatsServer::start();
    let url = server.client_url();
    let (js, mut topology) = short_window(&url).await;
    let jobs = 30_000;
    let setup = Setup::new(many_jobs("killed", jobs));
    let id = setup.sweep.id.clone();
    let sweep = setup.path("sweep.toml");
    let submit = ["submit", sweep.to_str().unwrap(), "--quiet", "--nats-url", &url];
    let mut first = CoordinatorProcess::spawn(&submit, &[]);
    // Kill it once a few chunks of jobs are out, well before the last.
    let at_kill = wait_until("the submit to publish some jobs", TIMEOUT, || {
        let jobs = topology.jobs.clone();
        async move {
            let n = jobs.get_info().await.ok()?.state.messages;
            (n >= 6_000).then_some(n)
        }
    })
    .await;
    first.kill();
    let status = first.wait_exit(TIMEOUT).await;
    assert!(!status.success(), "the submit finished before it was killed");
    let stored = topology.jobs.info().await.unwrap().state.messages;
    eprintln!("killed the submit after {stored} of {jobs} jobs (seen {at_kill} before the kill)");
    assert!(at_kill < jobs && stored < jobs, "killed after {stored} of {jobs} jobs: too late to test anything");
    let record = entry(&topology, &id).await.published.expect("a publish record");
    assert!(record.below < jobs && record.up_to > record.below, "{record:?}");
    // After the window the server no longer drops duplicates: only the record prevents them.
    outlast_the_window(&js, &topology).await;
    let (code, stderr) = coordinator(&submit).await;
    assert_eq!(code, Some(0), "{stderr}");
    let copies = queued_copies(&topology, &id).await;
    let twice: Vec<&u64> = copies.iter().filter(|(_, &n)| n > 1).map(|(i, _)| i).collect();
    let first_twice = &twice[..twice.len().min(10)];
    assert_eq!((copies.len() as u64, twice.len()), (jobs, 0), "jobs queued, and jobs queued twice: {first_twice:?}…");
    assert!(stderr.contains(&format!("{jobs} jobs")) && stderr.contains(", 0 dropped"), "{stderr}");
    assert_eq!(entry(&topology, &id).await.published.map(|r| r.below), Some(jobs));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_cancelled_while_it_is_published_stays_cancelled() {
    let server = NatsServer::start();
    let url = server.client_url();
    let (_js, topology) = short_window(&url).await;
    let jobs = 30_000;
    let setup = Setup::new(many_jobs("cancelled", jobs));
    let id = setup.sweep.id.clone();
    let sweep = setup.path("sweep.toml");
    let mut submit =
        CoordinatorProcess::spawn(&["submit", sweep.to_str().unwrap(), "--quiet", "--nats-url", &url], &[]);
    wait_until("the submit to publish some jobs", TIMEOUT, || {
        let jobs = topology.jobs.clone();
        async move { (jobs.get_info().await.ok()?.state.messages >= 6_000).then_some(()) }
    })
    .await;
    let (code, stderr) = coordinator(&["cancel", &id, "--nats-url", &url]).await;
    assert_eq!(code, Some(0), "{stderr}");
    // The submit goes on publishing (workers answer those jobs `cancelled`), and its later writes
    // of the sweep entry move only its publish record.
    let status = submit.wait_exit(TIMEOUT).await;
    assert!(status.success(), "{}", submit.stderr().join("\n"));
    let entry = entry(&topology, &id).await;
    assert_eq!(entry.status, SweepStatus::Cancelled, "the submit undid the cancel");
    assert_eq!(entry.published.map(|r| r.below), Some(jobs));
}
