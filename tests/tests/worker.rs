//! The job loop against a real server: every kind of bad message gets a typed error result on
//! the right subject with the right index, the worker keeps serving, and no job stays queued.

use std::time::Duration;

use simfleet::names::{job_subject, msg_id, SweepEntry, SweepStatus, SWEEPS_BUCKET};
use simfleet::protocol::{self, JobEnvelope};
use simfleet::{JobErrorKind, PROTOCOL_VERSION};
use simfleet_tests::jobs::{bb_job, good_job, publish_job, publish_raw, team, unique_sweep, GAME};
use simfleet_tests::results::{collect_results, jobs_in_stream, result_messages};
use simfleet_tests::{connect, test_settings, wait_until, NatsServer, RunningWorker};

const TIMEOUT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_messages_get_typed_errors_and_the_worker_keeps_serving() {
    let server = NatsServer::start();
    let (_client, js) = connect(&server.client_url()).await;
    let sweep = unique_sweep("bad");
    let subject = job_subject(GAME, &sweep);

    // 0: garbage bytes, but the coordinator's message id says where to answer.
    publish_raw(&js, &subject, b"\xc1\xff not msgpack".to_vec(), Some(&msg_id(&sweep, 0))).await;
    // 1: a job from a future protocol version.
    let future = JobEnvelope { protocol_version: PROTOCOL_VERSION + 1, sweep: sweep.clone(), index: 1 };
    publish_raw(&js, &subject, protocol::encode(&future), Some(&msg_id(&sweep, 1))).await;
    // 2: a game this build does not know.
    let mut chess = good_job(&sweep, 2, 5);
    chess.game = "chess".into();
    publish_raw(&js, &subject, protocol::encode(&chess), Some(&msg_id(&sweep, 2))).await;
    // 3: an out-of-range scenario field.
    publish_job(&js, &bb_job(&sweep, 3, "default?num_agents=11", "big", team("firefighter"), 5)).await;
    // Garbage with no usable header: terminated, counted, never answered.
    publish_raw(&js, &subject, b"garbage".to_vec(), None).await;
    // 4: a good job after all of them.
    publish_job(&js, &good_job(&sweep, 4, 20)).await;

    let worker = RunningWorker::start(test_settings(&server.client_url())).await;
    let results = collect_results(&js, &sweep, 5, TIMEOUT).await;
    let kind = |i: u64| results[&i].error.as_ref().map(|e| e.kind);
    assert_eq!(kind(0), Some(JobErrorKind::Undecodable));
    assert_eq!(kind(1), Some(JobErrorKind::UnsupportedVersion));
    assert_eq!(kind(2), Some(JobErrorKind::UnknownGame));
    assert_eq!(results[&2].error.as_ref().unwrap().value.as_deref(), Some("chess"));
    assert_eq!(kind(3), Some(JobErrorKind::InvalidJob), "{:?}", results[&3].error);
    assert_eq!(results[&3].error.as_ref().unwrap().field.as_deref(), Some("scenario.num_agents"));
    for (i, r) in &results {
        assert_eq!((r.sweep.as_str(), r.index), (sweep.as_str(), *i));
        assert_eq!(r.worker, "test-worker");
        if *i < 4 {
            assert!(r.records.is_empty());
        }
    }
    let good = &results[&4];
    assert_eq!(good.error, None);
    assert_eq!(good.records.len(), 20);
    assert!(good.engine_version.contains("bucket_brigade-rules-"), "{}", good.engine_version);

    // Every message left the work queue: errors are terminated, never retried.
    wait_until("an empty jobs stream", TIMEOUT, || async { (jobs_in_stream(&js).await == 0).then_some(()) }).await;
    assert_eq!(result_messages(&js, &sweep).await, 5, "one result per answerable job");
    worker.stop().await.expect("a clean stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_of_a_cancelled_sweep_are_answered_cancelled() {
    let server = NatsServer::start();
    let (_client, js) = connect(&server.client_url()).await;
    let sweep = unique_sweep("cancelled");
    let kv = js.get_key_value(SWEEPS_BUCKET).await.unwrap();
    let entry = SweepEntry {
        id: sweep.clone(),
        name: "cancelled".into(),
        status: SweepStatus::Cancelled,
        priority: Default::default(),
        share: 1,
        jobs_total: 2,
        episodes_total: 20,
        jobs_done: 0,
        jobs_failed: 0,
        episodes_played: None,
        definition: String::new(),
        collect: None,
        published: None,
        llm_max_calls: None,
    };
    kv.put(&sweep, serde_json::to_vec(&entry).unwrap().into()).await.unwrap();
    publish_job(&js, &good_job(&sweep, 0, 10)).await;
    publish_job(&js, &good_job(&sweep, 1, 10)).await;

    let worker = RunningWorker::start(test_settings(&server.client_url())).await;
    let results = collect_results(&js, &sweep, 2, TIMEOUT).await;
    for r in results.values() {
        let e = r.error.as_ref().expect("an error result");
        assert_eq!(e.kind, JobErrorKind::Cancelled);
        assert!(r.records.is_empty());
        assert_eq!((r.game.as_str(), r.policy_set.as_str()), (GAME, "firefighters"));
    }
    wait_until("an empty jobs stream", TIMEOUT, || async { (jobs_in_stream(&js).await == 0).then_some(()) }).await;
    worker.stop().await.expect("a clean stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_answer_every_job_exactly_once() {
    let server = NatsServer::start();
    let (_client, js) = connect(&server.client_url()).await;
    let sweep = unique_sweep("many");
    let n = 30;
    for i in 0..n {
        publish_job(&js, &good_job(&sweep, i, 25)).await;
    }
    let a = RunningWorker::start(test_settings(&server.client_url())).await;
    let b = RunningWorker::start(test_settings(&server.client_url())).await;
    let results = collect_results(&js, &sweep, n as usize, TIMEOUT).await;
    assert_eq!(results.keys().copied().collect::<Vec<_>>(), (0..n).collect::<Vec<_>>());
    for r in results.values() {
        assert_eq!(r.error, None);
        let seeds: Vec<u64> = r.records.iter().map(|e| e.seed).collect();
        assert_eq!(seeds, (r.index * 25..r.index * 25 + 25).collect::<Vec<_>>(), "records in seed order");
    }
    wait_until("an empty jobs stream", TIMEOUT, || async { (jobs_in_stream(&js).await == 0).then_some(()) }).await;
    assert_eq!(result_messages(&js, &sweep).await, n);
    a.stop().await.expect("a clean stop");
    b.stop().await.expect("a clean stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_over_max_payload_arrives_in_parts_not_a_retry_loop() {
    let server = NatsServer::start();
    let (_client, js) = connect(&server.client_url()).await;
    let sweep = unique_sweep("huge");
    // Tens of thousands of records are several MB, over the server's default 1 MB max_payload:
    // the worker sends the result in parts and a head, nothing is refused or played again.
    publish_job(&js, &good_job(&sweep, 0, 40_000)).await;
    let worker = RunningWorker::start(test_settings(&server.client_url())).await;
    let results = collect_results(&js, &sweep, 1, TIMEOUT).await;
    let r = &results[&0];
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.records.len(), 40_000);
    assert!(result_messages(&js, &sweep).await > 2, "parts and a head on the results stream");
    wait_until("an empty jobs stream", TIMEOUT, || async { (jobs_in_stream(&js).await == 0).then_some(()) }).await;
    worker.stop().await.expect("a clean stop");
}
