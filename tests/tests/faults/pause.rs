//! A worker paused with SIGSTOP (a long GC pause, a frozen container) past its ack wait while
//! another worker serves, then resumed: its jobs went to the other worker, its late results are
//! dropped as duplicates, and the file holds every record once.

use simfleet::nats::topology::{sweep_consumer, LimitsOwner, TopologyConfig};
use simfleet::topology::JOBS_STREAM;
use simfleet_tests::faults::{pause, resume};
use simfleet_tests::{config_fixture, connect, wait_until, NatsServer};

use super::{finish, submit_watch, sweep, wait_for_jobs, worker, TIMEOUT};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_paused_past_its_ack_wait_loses_and_duplicates_nothing() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let (_client, js) = connect(&url).await;
    let (setup, out) = sweep("paused", 12);
    // Alone at first, so it holds jobs (one playing, more delivered and queued) when paused.
    let paused = worker(&url);
    let submit = submit_watch(&url, &setup, &out);
    wait_for_jobs(&setup, &out, 1, || submit.stderr().join("\n")).await;
    pause(paused.pid());
    let other = worker(&url);
    // Past its ack wait: the server gives what it held to the other worker.
    let jobs = js.get_stream(JOBS_STREAM).await.unwrap();
    wait_until("a job redelivered", TIMEOUT, || async {
        let (mut c, _) =
            sweep_consumer(&jobs, &TopologyConfig::default(), &setup.sweep.id, LimitsOwner::Coordinator).await.ok()?;
        (c.info().await.ok()?.num_redelivered > 0).then_some(())
    })
    .await;
    wait_for_jobs(&setup, &out, 6, || submit.stderr().join("\n")).await;
    resume(paused.pid());
    let logs = || format!("paused:\n{}\nother:\n{}", paused.logs().join("\n"), other.logs().join("\n"));
    finish(submit, &setup, &out, logs).await;
}
