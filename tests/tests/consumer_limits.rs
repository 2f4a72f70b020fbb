//! One source for the sweeps' consumers' limits, through the binaries on a real nats-server:
//! `coordinator submit` creates a sweep's consumer with its configured limits (the shipped
//! coordinator.toml: the deployment's), a worker configured otherwise than the server sets its
//! own when it takes the sweep's jobs and logs the change (under the shipped permissions too),
//! and `status` shows the limits the server has.

use std::path::PathBuf;
use std::time::Duration;

use async_nats::jetstream;
use simfleet::names;
use simfleet::nats::topology::{ensure, sweep_consumer, LimitsOwner, TopologyConfig};
use simfleet_tests::{config_fixture, CoordinatorProcess, NatsServer, WorkerProcess};

use crate::fleet::{slow_sweep, Setup};

const TIMEOUT: Duration = Duration::from_secs(120);
const CHANGED: &str = "changed the limits of the sweep's consumer";

fn shipped(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../deploy/k8s/base").join(file)
}

/// `max_ack_pending` of `sweep`'s consumer, as the server has it.
async fn max_ack_pending(js: &jetstream::Context, sweep: &str) -> i64 {
    let jobs = js.get_stream(names::JOBS_STREAM).await.unwrap();
    jobs.consumer_info(names::sweep_consumer_name(sweep)).await.unwrap().config.max_ack_pending
}

/// Runs `coordinator <args>` to the end; its exit code, stdout and stderr.
async fn coordinator(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut c = CoordinatorProcess::spawn(args, env);
    let status = c.wait_exit(TIMEOUT).await;
    (status.code(), c.stdout(), c.stderr().join("\n"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_configured_with_2400_in_flight_gives_the_consumer_2400() {
    let server = NatsServer::start();
    let url = server.client_url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    // The submit reaches the fresh server first (the workers are scaled to zero) and creates the
    // consumer with its own, default, limits.
    let setup = Setup::new(slow_sweep("limits", 2, Duration::from_millis(10)));
    let sweep = setup.path("sweep.toml");
    let (code, _, stderr) = coordinator(&["submit", sweep.to_str().unwrap(), "--quiet", "--nats-url", &url], &[]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let id = setup.sweep.id.as_str();
    assert_eq!(max_ack_pending(&js, id).await, 1000);
    // A worker configured for 2400 sets it, and says so.
    let args = ["--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
    let worker = WorkerProcess::spawn(&args, &[("SIMFLEET_WORKER__MAX_ACK_PENDING", "2400")]);
    let line = worker.wait_for_log(CHANGED, TIMEOUT).await;
    assert!(line.contains("max_ack_pending=1000") && line.contains("max_ack_pending=2400"), "{line}");
    assert_eq!(max_ack_pending(&js, id).await, 2400);
    worker.wait_for_log("worker started", TIMEOUT).await;
    // `status` shows what the server has.
    let (code, stdout, stderr) = coordinator(&["status", "--nats-url", &url], &[]).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("ack_wait_seconds 30, max_deliver 5, max_ack_pending 2400"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shipped_coordinator_toml_creates_the_consumer_the_shipped_worker_toml_expects() {
    let server = NatsServer::start();
    let url = server.client_url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    let setup = Setup::new(slow_sweep("shipped", 2, Duration::from_millis(10)));
    let (sweep, config) = (setup.path("sweep.toml"), shipped("coordinator.toml"));
    let submit =
        ["submit", sweep.to_str().unwrap(), "--quiet", "--config", config.to_str().unwrap(), "--nats-url", &url];
    let (code, _, stderr) = coordinator(&submit, &[]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let id = setup.sweep.id.as_str();
    assert_eq!(max_ack_pending(&js, id).await, 2400, "coordinator.toml's limits, which are worker.toml's");
    // A worker with the shipped worker.toml finds its own limits: nothing to change.
    let config = shipped("worker.toml");
    let args = ["--config", config.to_str().unwrap(), "--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0"];
    let worker = WorkerProcess::spawn(&args, &[("SIMFLEET_WORKER__CONCURRENCY", "1")]);
    worker.wait_for_log("worker started", TIMEOUT).await;
    // It takes the sweep's jobs: they leave the queue.
    simfleet_tests::wait_until("the sweep's jobs answered", TIMEOUT, || async {
        (simfleet_tests::results::jobs_in_stream(&js).await == 0).then_some(())
    })
    .await;
    let logs = worker.logs().join("\n");
    assert!(!logs.contains(CHANGED) && !logs.contains("other limits"), "{logs}");
    assert_eq!(max_ack_pending(&js, id).await, 2400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_the_shipped_permissions_a_worker_may_set_its_consumers_limits() {
    let server = NatsServer::start_with_config(config_fixture("permissions.conf"));
    let url = server.client_url();
    let admin = async_nats::ConnectOptions::with_user_and_password("admin".into(), "admin-s3cret".into())
        .connect(&url)
        .await
        .unwrap();
    let admin = jetstream::new(admin);
    ensure(&admin, &TopologyConfig::default()).await.unwrap();
    // A sweep's job, which the worker takes through the sweep's consumer, which it creates.
    let sweep = simfleet_tests::jobs::unique_sweep("limits-perm");
    simfleet_tests::jobs::publish_job(&admin, &simfleet_tests::jobs::good_job(&sweep, 0, 1)).await;
    let jobs = admin.get_stream(names::JOBS_STREAM).await.unwrap();
    sweep_consumer(&jobs, &TopologyConfig::default(), &sweep, LimitsOwner::Coordinator).await.unwrap();
    let args = ["--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
    let env = [
        ("SIMFLEET_WORKER__AUTH__USER", "worker"),
        ("SIMFLEET_WORKER__AUTH__PASSWORD", "worker-s3cret"),
        ("SIMFLEET_WORKER__MAX_ACK_PENDING", "2400"),
    ];
    let worker = WorkerProcess::spawn(&args, &env);
    worker.wait_for_log(CHANGED, TIMEOUT).await;
    simfleet_tests::results::collect_results(&admin, &sweep, 1, TIMEOUT).await;
    assert_eq!(max_ack_pending(&admin, &sweep).await, 2400);
    let logs = worker.logs().join("\n");
    assert!(!logs.contains("refused"), "{logs}");
}
