//! Shutdown is bounded whatever the servers do: a worker whose server was killed exits at once
//! on SIGTERM when it holds nothing, and within its drain timeout (plus a second) when a job is
//! playing; `watch` stops on SIGTERM with exit code 130 and resumes afterwards.

use std::time::{Duration, Instant};

use simfleet::names::{watch_consumer, JOBS_STREAM, RESULTS_STREAM};
use simfleet::nats::topology::{sweep_consumer, LimitsOwner, TopologyConfig};
use simfleet_tests::jobs::{episodes_for, publish_job, slow_job, unique_sweep};
use simfleet_tests::{config_fixture, connect, wait_until, NatsServer, WorkerProcess};

use super::{coordinator, finish, sweep, wait_for_jobs, worker, TIMEOUT};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_whose_server_is_gone_stops_within_its_drain_timeout() {
    let mut server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let (_client, js) = connect(&url).await;
    // Busy: a job of about 20 s playing, and a drain timeout of 2 s.
    let sweep = unique_sweep("gone");
    publish_job(&js, &slow_job(&sweep, 0, episodes_for(slow_job, Duration::from_secs(20)).min(40_000))).await;
    let args = ["--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
    let mut busy = WorkerProcess::spawn(&args, &[("SIMFLEET_WORKER__DRAIN_TIMEOUT_SECONDS", "2")]);
    busy.wait_for_log("worker started", TIMEOUT).await;
    let jobs = js.get_stream(JOBS_STREAM).await.unwrap();
    wait_until("the job to be taken", TIMEOUT, || async {
        let (mut consumer, _) =
            sweep_consumer(&jobs, &TopologyConfig::default(), &sweep, LimitsOwner::Coordinator).await.ok()?;
        (consumer.info().await.ok()?.num_ack_pending == 1).then_some(())
    })
    .await;
    // Idle (started once the only job is taken): nothing in flight, so SIGTERM ends it at once
    // though nothing answers.
    let mut idle = worker(&url);
    idle.wait_for_log("worker started", TIMEOUT).await;
    server.stop();
    idle.wait_for_log("NATS connection lost", TIMEOUT).await;
    busy.wait_for_log("NATS connection lost", TIMEOUT).await;
    for (w, bound) in [(&mut idle, Duration::from_secs(2)), (&mut busy, Duration::from_secs(2 + 1 + 2))] {
        let asked = Instant::now();
        w.terminate();
        let status = w.wait_exit(TIMEOUT).await;
        let took = asked.elapsed();
        assert!(status.success(), "exit {status:?}; logs:\n{}", w.logs().join("\n"));
        assert!(took < bound, "stopped after {took:?} (bound {bound:?}); logs:\n{}", w.logs().join("\n"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_stops_on_sigterm_with_130_and_resumes() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let (setup, out) = sweep("watch-sigterm", 6);
    let sweep_file = setup.path("sweep.toml");
    let mut submit = coordinator(&["submit", sweep_file.to_str().unwrap()], &url);
    assert!(submit.wait_exit(TIMEOUT).await.success(), "{:?}", submit.stderr());
    let mut watch = coordinator(&["watch", &setup.sweep.id, "--out", out.to_str().unwrap(), "--quiet"], &url);
    // No worker yet: the watch waits (its consumer is there); SIGTERM stops it.
    let (_client, js) = connect(&url).await;
    let results = js.get_stream(RESULTS_STREAM).await.unwrap();
    let consumer = watch_consumer(&setup.sweep.id);
    wait_until("the watch to read", TIMEOUT, || async { results.consumer_info(&consumer).await.ok().map(|_| ()) })
        .await;
    let status = std::process::Command::new("kill").args(["-TERM", &watch.pid().to_string()]).status().unwrap();
    assert!(status.success());
    let status = watch.wait_exit(TIMEOUT).await;
    assert_eq!(status.code(), Some(130), "{:?}", watch.stderr());
    assert!(watch.stderr().iter().any(|l| l.contains("run the same command again")), "{:?}", watch.stderr());
    let _worker = worker(&url);
    let again = coordinator(&["watch", &setup.sweep.id, "--out", out.to_str().unwrap(), "--quiet"], &url);
    wait_for_jobs(&setup, &out, 1, || again.stderr().join("\n")).await;
    finish(again, &setup, &out, || server.log()).await;
}
