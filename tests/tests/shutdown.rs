//! SIGTERM to a worker process mid-run: it stops pulling, lets jobs in flight finish (or gives
//! them back after the drain timeout), exits 0, and every job ends up with a result or back in
//! the queue at once, which a second worker then finishes.

use std::time::Duration;

use async_nats::jetstream::consumer::PullConsumer;
use async_nats::jetstream::message::AckKind;
use async_nats::jetstream::Context;
use futures::StreamExt;
use simfleet::names::JOBS_STREAM;
use simfleet::nats::topology::{sweep_consumer, LimitsOwner, TopologyConfig};
use simfleet_tests::jobs::{episodes_for, publish_job, slow_job, unique_sweep};
use simfleet_tests::results::{collect_results, jobs_in_stream, result_messages};
use simfleet_tests::{config_fixture, connect, test_settings, wait_until, NatsServer, RunningWorker, WorkerProcess};

/// The consumer of `sweep`'s jobs (the worker created it when it found them).
async fn sweep_jobs(js: &Context, sweep: &str) -> PullConsumer {
    let jobs = js.get_stream(JOBS_STREAM).await.unwrap();
    sweep_consumer(&jobs, &TopologyConfig::default(), sweep, LimitsOwner::Coordinator).await.unwrap().0
}

/// Pulls every job available right now and gives them back. The consumer's ack wait is 30 s, so
/// a job a stopped worker held without NAKing it would not be among them.
async fn available_now(js: &Context, sweep: &str, at_most: usize) -> usize {
    let consumer = sweep_jobs(js, sweep).await;
    let mut batch = consumer.batch().max_messages(at_most).expires(Duration::from_secs(3)).messages().await.unwrap();
    let mut held = Vec::new();
    while let Some(Ok(msg)) = batch.next().await {
        held.push(msg);
    }
    // Given back only after the pull ends, or the batch would receive them again.
    for msg in &held {
        msg.ack_with(AckKind::Nak(None)).await.unwrap();
    }
    js.client().flush().await.unwrap();
    held.len()
}

/// Publishes `n` jobs of about `each`, starts the worker binary with `env`, and sends SIGTERM
/// once it holds `held` jobs. Returns the exited process.
async fn terminate_mid_run(
    server: &NatsServer,
    js: &Context,
    sweep: &str,
    (n, held): (u64, u64),
    each: Duration,
    env: &[(&str, &str)],
) -> WorkerProcess {
    // At most what a result under the server's 16 MB max_payload holds (about 320 bytes an
    // episode): a fast engine would otherwise make a job of `each` too large to answer.
    let episodes = episodes_for(slow_job, each).min(40_000);
    for i in 0..n {
        publish_job(js, &slow_job(sweep, i, episodes)).await;
    }
    let url = server.client_url();
    let mut worker =
        WorkerProcess::spawn(&["--nats-url", &url, "--metrics-listen", "127.0.0.1:0", "--concurrency", "2"], env);
    wait_until("jobs held by the worker", Duration::from_secs(30), || async {
        (sweep_jobs(js, sweep).await.info().await.ok()?.num_ack_pending as u64 >= held).then_some(())
    })
    .await;
    worker.terminate();
    let status = worker.wait_exit(Duration::from_secs(40)).await;
    assert!(status.success(), "exit {status:?}; logs:\n{}", worker.logs().join("\n"));
    worker
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_jobs_in_flight_finish_and_loses_nothing() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let (_client, js) = connect(&server.client_url()).await;
    let sweep = unique_sweep("sigterm");
    let n = 6;
    // Concurrency 2 and the default prefetch (2): two jobs playing and two queued.
    let worker = terminate_mid_run(&server, &js, &sweep, (n, 4), Duration::from_millis(1500), &[]).await;
    let logs = worker.logs().join("\n");
    assert!(logs.contains("drained") && !logs.contains("drain timeout"), "{logs}");
    // The two jobs playing finished; the queued ones went back unplayed, and with the rest they
    // are available at once.
    let answered = result_messages(&js, &sweep).await;
    assert!((1..=2).contains(&answered), "{answered} answered: only jobs playing finish:\n{logs}");
    assert_eq!(answered + jobs_in_stream(&js).await, n, "every job has a result or is queued");
    assert_eq!(available_now(&js, &sweep, n as usize).await as u64, n - answered, "{logs}");

    let rescue = RunningWorker::start(test_settings(&server.client_url())).await;
    let results = collect_results(&js, &sweep, n as usize, Duration::from_secs(90)).await;
    assert!(
        results.values().all(|r| r.error.is_none()),
        "{:?}",
        results.values().map(|r| &r.error).collect::<Vec<_>>()
    );
    assert_eq!(result_messages(&js, &sweep).await, n, "no job was played twice");
    rescue.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_past_the_drain_timeout_gives_unfinished_jobs_back() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let (_client, js) = connect(&server.client_url()).await;
    let sweep = unique_sweep("drain");
    let n = 4;
    let env = [("SIMFLEET_WORKER__DRAIN_TIMEOUT_SECONDS", "1")];
    let worker = terminate_mid_run(&server, &js, &sweep, (n, 1), Duration::from_secs(6), &env).await;
    let logs = worker.logs().join("\n");
    assert!(logs.contains("drain timeout"), "{logs}");
    // The unfinished jobs were NAKed: all of them can be pulled again at once.
    let answered = result_messages(&js, &sweep).await;
    assert_eq!(answered + jobs_in_stream(&js).await, n);
    assert_eq!(available_now(&js, &sweep, n as usize).await as u64, n - answered, "{logs}");

    let rescue = RunningWorker::start(test_settings(&server.client_url())).await;
    let results = collect_results(&js, &sweep, n as usize, Duration::from_secs(120)).await;
    let errors: Vec<_> = results.values().filter_map(|r| r.error.as_ref()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    rescue.stop().await.unwrap();
}
