//! `simfleet::nats::topology` against a real server: exactly docs/topology.md's objects, idempotent under
//! concurrent starts, refusing a stream it cannot use, catching dead letters; `coordinator
//! setup`, and a topology with other replicas than configured reported, not silently reused.

use std::time::Duration;

use async_nats::jetstream::consumer::{pull, AckPolicy};
use async_nats::jetstream::message::AckKind;
use async_nats::jetstream::stream::{self, RetentionPolicy, StorageType};
use futures::StreamExt;
use simfleet::names;
use simfleet::nats::topology::{ensure, sweep_consumer, LimitsOwner, TopologyConfig, LEGACY_CONSUMER};
use simfleet_tests::jobs::{good_job, publish_job, unique_sweep};
use simfleet_tests::{wait_until, within, CoordinatorProcess, NatsServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ensure_is_idempotent_under_concurrent_starts() {
    let server = NatsServer::start();
    let client = async_nats::connect(server.client_url()).await.unwrap();
    let js = async_nats::jetstream::new(client);
    let cfg = TopologyConfig::default();
    let all = futures::future::join_all((0..4).map(|_| ensure(&js, &cfg))).await;
    for t in all {
        t.expect("every concurrent start succeeds");
    }
    let mut t = ensure(&js, &cfg).await.expect("and again");

    let jobs = &t.jobs.cached_info().config;
    assert_eq!(jobs.subjects, vec![names::JOBS_FILTER.to_string()]);
    assert_eq!((jobs.retention, jobs.storage), (RetentionPolicy::WorkQueue, StorageType::File));
    assert!(jobs.duplicate_window > Duration::ZERO);
    let results = &t.results.cached_info().config;
    assert_eq!(results.subjects, vec![names::RESULTS_FILTER.to_string()]);
    assert_eq!(results.retention, RetentionPolicy::Limits);
    assert!(results.max_age >= Duration::from_secs(24 * 3600));
    assert_eq!(t.dlq.cached_info().config.subjects, vec![names::DLQ_SUBJECT.to_string()]);
    assert_eq!(t.sweeps.status().await.unwrap().bucket(), names::SWEEPS_BUCKET);
    assert!(consumers(&mut t.jobs).await.is_empty(), "no consumer on the work queue until a sweep has jobs");
    // One consumer per sweep, each filtering that sweep's jobs only; concurrent creates all succeed.
    for sweep in ["a-1", "b-2"] {
        let made =
            futures::future::join_all((0..3).map(|_| sweep_consumer(&t.jobs, &cfg, sweep, LimitsOwner::Coordinator)))
                .await;
        assert!(
            made.iter().all(Result::is_ok),
            "{:?}",
            made.iter().filter_map(|r| r.as_ref().err()).collect::<Vec<_>>()
        );
        let mut consumer = sweep_consumer(&t.jobs, &cfg, sweep, LimitsOwner::Worker).await.unwrap().0;
        let config = consumer.info().await.unwrap().config.clone();
        assert_eq!(config.durable_name, Some(names::sweep_consumer_name(sweep)));
        assert_eq!(config.filter_subject, names::sweep_jobs_filter(sweep));
        assert_eq!((config.ack_wait, config.max_deliver, config.max_ack_pending), (cfg.ack_wait, 5, 1000));
        assert!(config.inactive_threshold > Duration::ZERO, "the server removes an idle sweep's consumer");
    }
    assert_eq!(consumers(&mut t.jobs).await, ["simfleet-sweep-a-1", "simfleet-sweep-b-2"]);
}

/// The consumers on a stream, sorted.
async fn consumers(stream: &mut stream::Stream) -> Vec<String> {
    let mut names_seen = stream.consumer_names();
    let mut out = Vec::new();
    while let Some(n) = names_seen.next().await {
        out.push(n.unwrap());
    }
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_carries_a_fleet_wide_consumer_topology_forward() {
    let server = NatsServer::start();
    let url = server.client_url();
    let js = async_nats::jetstream::new(async_nats::connect(&url).await.unwrap());
    // The topology of earlier versions: one consumer taking every job, a DLQ of its advisories.
    let mut jobs = js
        .create_stream(stream::Config {
            name: names::JOBS_STREAM.into(),
            subjects: vec![names::JOBS_FILTER.into()],
            retention: RetentionPolicy::WorkQueue,
            storage: StorageType::File,
            ..Default::default()
        })
        .await
        .unwrap();
    let legacy = pull::Config {
        durable_name: Some(LEGACY_CONSUMER.into()),
        filter_subject: names::JOBS_FILTER.into(),
        ack_policy: AckPolicy::Explicit,
        ..Default::default()
    };
    jobs.create_consumer(legacy).await.unwrap();
    let old_dlq = format!("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.{}.{LEGACY_CONSUMER}", names::JOBS_STREAM);
    js.create_stream(stream::Config {
        name: names::DLQ_STREAM.into(),
        subjects: vec![old_dlq],
        storage: StorageType::File,
        ..Default::default()
    })
    .await
    .unwrap();
    // A sweep's consumer overlaps the fleet-wide one: the error says what removes it.
    let cfg = TopologyConfig::default();
    let e = sweep_consumer(&jobs, &cfg, "s-1", LimitsOwner::Coordinator).await.unwrap_err().to_string();
    assert!(e.contains("`coordinator setup` removes it"), "{e}");
    let mut setup = CoordinatorProcess::spawn(&["setup", "--nats-url", &url], &[]);
    assert!(setup.wait_exit(Duration::from_secs(60)).await.success(), "{:?}", setup.stderr());
    let table = setup.stdout();
    assert!(table.lines().any(|l| l.contains(LEGACY_CONSUMER) && l.ends_with("removed")), "{table}");
    assert!(table.lines().any(|l| l.contains(names::DLQ_STREAM) && l.ends_with("subjects changed")), "{table}");
    let t = ensure(&js, &cfg).await.expect("the topology is this version's now");
    assert_eq!(t.dlq.cached_info().config.subjects, vec![names::DLQ_SUBJECT.to_string()]);
    sweep_consumer(&t.jobs, &cfg, "s-1", LimitsOwner::Coordinator).await.expect("a sweep's consumer now");
    assert_eq!(consumers(&mut jobs).await, ["simfleet-sweep-s-1"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jobs_stream_of_the_wrong_kind_is_an_error_naming_it() {
    let server = NatsServer::start();
    let client = async_nats::connect(server.client_url()).await.unwrap();
    let js = async_nats::jetstream::new(client);
    js.create_stream(stream::Config {
        name: names::JOBS_STREAM.into(),
        subjects: vec![names::JOBS_FILTER.into()],
        ..Default::default()
    })
    .await
    .unwrap();
    let err = ensure(&js, &TopologyConfig::default()).await.unwrap_err().to_string();
    assert!(err.contains(names::JOBS_STREAM) && err.contains("retention"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_out_of_deliveries_are_captured_in_the_dlq() {
    let server = NatsServer::start();
    let client = async_nats::connect(server.client_url()).await.unwrap();
    let js = async_nats::jetstream::new(client);
    let cfg = TopologyConfig { max_deliver: 2, ..TopologyConfig::default() };
    let t = ensure(&js, &cfg).await.unwrap();
    let sweep = unique_sweep("dlq");
    publish_job(&js, &good_job(&sweep, 0, 1)).await;
    let (consumer, _) = sweep_consumer(&t.jobs, &cfg, &sweep, LimitsOwner::Worker).await.unwrap();
    // A worker that fails transiently twice: NAK, NAK, and the server gives up.
    for _ in 0..2 {
        let mut batch = consumer.batch().max_messages(1).expires(Duration::from_secs(5)).messages().await.unwrap();
        let msg = within("a delivery", Duration::from_secs(10), batch.next()).await.unwrap().unwrap();
        msg.ack_with(AckKind::Nak(None)).await.unwrap();
        // The NAK is a plain publish: make sure it reached the server before fetching again.
        js.client().flush().await.unwrap();
    }
    // The server notices the exhausted job when it next tries to deliver it: a third pull, which
    // gets nothing.
    let mut none = consumer.batch().max_messages(1).expires(Duration::from_secs(1)).messages().await.unwrap();
    let extra = within("the last pull to end", Duration::from_secs(10), none.next()).await;
    assert!(extra.is_none(), "no third delivery");
    let dlq = js.get_stream(names::DLQ_STREAM).await.unwrap();
    wait_until("a max-deliveries advisory in the DLQ", Duration::from_secs(30), || {
        let mut dlq = dlq.clone();
        async move { (dlq.info().await.ok()?.state.messages == 1).then_some(()) }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_creates_the_topology_and_other_replicas_are_reported_not_reused_silently() {
    let server = NatsServer::start();
    let url = server.client_url();
    let timeout = Duration::from_secs(60);
    let mut setup = CoordinatorProcess::spawn(&["setup", "--nats-url", &url], &[]);
    assert!(setup.wait_exit(timeout).await.success(), "{:?}", setup.stderr());
    let table = setup.stdout();
    for object in [names::JOBS_STREAM, names::RESULTS_STREAM, names::DLQ_STREAM, names::SWEEPS_BUCKET] {
        assert!(table.lines().any(|l| l.contains(object) && l.contains(" 1 ") && l.ends_with("created")), "{table}");
    }
    // A coordinator configured for three replicas uses what it finds, and says so and how to fix it.
    let three = [("SIMFLEET_COORDINATOR__STREAM_REPLICAS", "3")];
    let mut status = CoordinatorProcess::spawn(&["status", "--nats-url", &url], &three);
    assert!(status.wait_exit(timeout).await.success(), "{:?}", status.stderr());
    let stderr = status.stderr().join("\n");
    assert!(stderr.contains("JetStream stream SIMFLEET_JOBS has 1 replica(s) but stream_replicas = 3"), "{stderr}");
    assert!(stderr.contains("an admin runs `coordinator setup` with stream_replicas = 3"), "{stderr}");
    // One server cannot hold three replicas: setup says which object and why.
    let mut setup = CoordinatorProcess::spawn(&["setup", "--nats-url", &url], &three);
    assert_eq!(setup.wait_exit(timeout).await.code(), Some(2));
    let stderr = setup.stderr().join("\n");
    assert!(stderr.contains("JetStream stream SIMFLEET_JOBS: cannot change its replicas from 1 to 3"), "{stderr}");
    assert!(stderr.contains("not supported in non-clustered mode"), "{stderr}");
}
