//! The worker binary's `/metrics`, `/healthz` and `/readyz`: docs/metrics.md's names with the
//! right counts after a few jobs, and probes that follow the NATS connection.

use std::net::SocketAddr;
use std::time::Duration;

use simfleet_tests::jobs::{bb_job, good_job, publish_job, team, unique_sweep};
use simfleet_tests::results::collect_results;
use simfleet_tests::scrape::{http_get, metric_sum};
use simfleet_tests::{connect, wait_until, NatsServer, WorkerProcess};
use worker::telemetry;

async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    http_get(addr, path).await.unwrap_or_else(|e| panic!("GET {path}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_jobs_and_episodes_and_probes_follow_nats() {
    let mut server = NatsServer::start();
    let (_client, js) = connect(&server.client_url()).await;
    let url = server.client_url();
    let mut worker =
        WorkerProcess::spawn(&["--nats-url", &url, "--metrics-listen", "127.0.0.1:0", "--concurrency", "2"], &[]);
    let addr = worker.metrics_addr(Duration::from_secs(30)).await;
    worker.wait_for_log("worker started", Duration::from_secs(30)).await;
    assert_eq!(get(addr, "/healthz").await.0, 200);
    assert_eq!(get(addr, "/readyz").await.0, 200);

    let sweep = unique_sweep("metrics");
    for i in 0..3 {
        publish_job(&js, &good_job(&sweep, i, 10)).await;
    }
    publish_job(&js, &bb_job(&sweep, 3, "default?num_agents=11", "too-many", team("firefighter"), 10)).await;
    collect_results(&js, &sweep, 4, Duration::from_secs(60)).await;

    // A job's result is visible a moment before its task ends (it acks the job first).
    let text = wait_until("no jobs in flight", Duration::from_secs(30), || async {
        let (status, text) = get(addr, "/metrics").await;
        assert_eq!(status, 200);
        (metric_sum(&text, telemetry::JOBS_IN_FLIGHT, &[]) == Some(0.0)).then_some(text)
    })
    .await;
    let cell = [("game", "bucket_brigade"), ("scenario", "default"), ("policy_set", "firefighters")];
    assert_eq!(metric_sum(&text, telemetry::EPISODES_TOTAL, &cell), Some(30.0), "{text}");
    let bb = [("game", "bucket_brigade")];
    let ok = [("game", "bucket_brigade"), ("status", "ok")];
    let invalid = [("game", "bucket_brigade"), ("status", "error"), ("error_kind", "invalid_job")];
    assert_eq!(metric_sum(&text, telemetry::JOBS_TOTAL, &ok), Some(3.0), "{text}");
    assert_eq!(metric_sum(&text, telemetry::JOBS_TOTAL, &invalid), Some(1.0), "{text}");
    let count = |name: &str, labels: &[(&str, &str)]| metric_sum(&text, &format!("{name}_count"), labels);
    assert_eq!(count(telemetry::JOB_DURATION_SECONDS, &bb), Some(4.0), "{text}");
    let game = simfleet::GameKind::BucketBrigade;
    let set = [("scenario", "default"), ("policy_set", "firefighters")];
    assert_eq!(count(&telemetry::team_reward_metric(game), &set), Some(30.0), "{text}");
    assert_eq!(count(&telemetry::episode_length_metric(game), &set), Some(30.0), "{text}");
    let seat = [("scenario", "default"), ("policy", "firefighter")];
    assert_eq!(count(&telemetry::agent_reward_metric(game), &seat), Some(120.0), "{text}");
    // Explicit buckets: histograms, not summaries.
    let buckets = format!("{}_bucket", telemetry::episode_length_metric(game));
    assert!(metric_sum(&text, &buckets, &set).is_some(), "{text}");
    assert_eq!(metric_sum(&text, telemetry::JOB_REDELIVERIES_TOTAL, &bb), Some(0.0), "{text}");
    assert_eq!(metric_sum(&text, telemetry::JOBS_IN_FLIGHT, &[]), Some(0.0), "{text}");
    let info = [("version", env!("CARGO_PKG_VERSION")), ("concurrency", "2")];
    assert_eq!(metric_sum(&text, telemetry::WORKER_INFO, &info), Some(1.0), "{text}");

    // The probes follow the connection: down with the server, up again after it returns.
    server.stop();
    wait_until("/readyz to fail", Duration::from_secs(30), || async {
        (get(addr, "/readyz").await.0 == 503).then_some(())
    })
    .await;
    assert_eq!(get(addr, "/healthz").await.0, 503);
    server.restart();
    wait_until("/readyz to recover", Duration::from_secs(60), || async {
        (get(addr, "/readyz").await.0 == 200).then_some(())
    })
    .await;

    worker.terminate();
    assert!(worker.wait_exit(Duration::from_secs(30)).await.success(), "{:?}", worker.logs());
}
