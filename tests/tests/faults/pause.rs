//! A worker paused with SIGSTOP (a long GC pause, a frozen container) past its ack wait while
//! another worker serves, then resumed: its jobs went to the other worker, its late results are
//! dropped as duplicates, and the file holds every record once. The jobs stream's leader of a
//! three-server cluster paused mid-sweep (another is elected), then resumed.

use simfleet::names::JOBS_STREAM;
use simfleet_tests::faults::{pause, resume};
use simfleet_tests::nats_cluster::{stream_leader, wait_new_leader};
use simfleet_tests::{config_fixture, connect, NatsServer};

use super::{finish, submit_watch, sweep, wait_for_a_redelivery, wait_for_jobs, worker};
use crate::cluster::ClusterFleet;

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
    wait_for_a_redelivery(&js, &setup).await;
    wait_for_jobs(&setup, &out, 6, || submit.stderr().join("\n")).await;
    resume(paused.pid());
    let logs = || format!("paused:\n{}\nother:\n{}", paused.logs().join("\n"), other.logs().join("\n"));
    finish(submit, &setup, &out, logs).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_jobs_leader_paused_mid_sweep_loses_and_duplicates_nothing() {
    let fleet = ClusterFleet::start().await;
    let (setup, out) = sweep("leader-paused", 12);
    let submit = fleet.submit(&setup, &out);
    wait_for_jobs(&setup, &out, 2, || submit.stderr().join("\n")).await;
    let leader = stream_leader(&fleet.admin, JOBS_STREAM).await.expect("the jobs stream has a leader");
    let victim = fleet.cluster.index_of(&leader);
    let pid = fleet.cluster.pid(victim).expect("the leader runs");
    pause(pid);
    // The other two elect a leader; clients connected to the paused server move to another
    // after three unanswered pings (about 15 s); it resumes once the new leader is known.
    wait_new_leader(&super::admin_besides(&fleet.cluster, victim).await, JOBS_STREAM, &leader).await;
    resume(pid);
    finish(submit, &setup, &out, || fleet.cluster.logs()).await;
    fleet.wait_healthy().await;
}
