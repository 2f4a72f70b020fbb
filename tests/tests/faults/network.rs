//! A worker on a network of its own (`simfleet_tests::netlab`: a namespace, a veth pair, a
//! relay to the server on loopback): cut off from the server mid-sweep by a partition (every
//! packet dropped, its connection left hanging) while another worker serves, then healed; then
//! a sweep over a link that drops a tenth of its packets and is slow; and the jobs stream's
//! leader of a three-server cluster cut off from the other two servers mid-sweep (its cluster
//! routes dropped by nftables, matched by a cgroup of the test's own), then healed. Each
//! sweep's records are those of the embedded run.
//!
//! Needs root, iproute2, nftables and cgroup v2 (scripts/test installs the tools): without
//! them a test says it is skipped and why.

use simfleet::names::JOBS_STREAM;
use simfleet_tests::nats_cluster::{stream_leader, wait_new_leader};
use simfleet_tests::netlab::{Netlab, ProcessCut};
use simfleet_tests::{config_fixture, connect, NatsServer, WorkerProcess};

use super::{finish, submit_watch, sweep, wait_for_a_redelivery, wait_for_jobs, worker, TIMEOUT, WORKER_ENV};
use crate::cluster::ClusterFleet;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partitioned_worker_and_a_lossy_slow_link_lose_and_duplicate_nothing() {
    let lab = match Netlab::create() {
        Ok(lab) => lab,
        Err(why) => {
            eprintln!("SKIPPED a_partitioned_worker_and_a_lossy_slow_link_lose_and_duplicate_nothing: {why}");
            return;
        }
    };
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let (_client, js) = connect(&url).await;
    let relayed = lab.relay(([127, 0, 0, 1], server.port()).into()).await;
    let args = ["--nats-url", relayed.as_str(), "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
    let cut = WorkerProcess::spawn_in_netns(lab.name(), &args, &WORKER_ENV);
    cut.wait_for_log("worker started", TIMEOUT).await;
    let logs = |other: &WorkerProcess| format!("cut:\n{}\nother:\n{}", cut.logs().join("\n"), other.logs().join("\n"));

    // A partition while it holds jobs.
    let (setup, out) = sweep("partition", 12);
    let submit = submit_watch(&url, &setup, &out);
    wait_for_jobs(&setup, &out, 1, || submit.stderr().join("\n")).await;
    lab.partition();
    let other = worker(&url);
    wait_for_a_redelivery(&js, &setup).await;
    wait_for_jobs(&setup, &out, 6, || submit.stderr().join("\n")).await;
    lab.heal();
    finish(submit, &setup, &out, || logs(&other)).await;

    // A tenth of the packets lost, and a slow link, for a whole sweep.
    lab.lossy(10);
    lab.slow("4mbit", "300ms");
    let (setup, out) = sweep("lossy-slow", 8);
    finish(submit_watch(&url, &setup, &out), &setup, &out, || logs(&other)).await;
}

// Clients connected to the cut-off server (a worker, `watch`) keep a connection that answers
// pings; they move to another server when its JetStream stops answering
// (`simfleet::nats::connect`'s watchdog), so the sweep goes on during the cut.
// The cut drops the routes the victim dialed itself too (`ProcessCut` finds them by their
// ports): a socket keeps the cgroup it was made in, so a cut by cgroup alone left those routes
// up and the survivors, still hearing the old leader, sometimes never elected another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_cut_off_from_the_other_two_loses_and_duplicates_nothing() {
    let mut fleet = ClusterFleet::start().await;
    let (setup, out) = sweep("server-partition", 12);
    let submit = fleet.submit(&setup, &out);
    wait_for_jobs(&setup, &out, 2, || submit.stderr().join("\n")).await;
    // The jobs stream's leader, cut off from its peers (its clients still reach it).
    let leader = stream_leader(&fleet.admin, JOBS_STREAM).await.expect("the jobs stream has a leader");
    let victim = fleet.cluster.index_of(&leader);
    let peers: Vec<u16> = (0..3).filter(|&i| i != victim).map(|i| fleet.cluster.route_port(i)).collect();
    let pid = fleet.cluster.pid(victim).expect("the leader runs");
    let cut = match ProcessCut::create(pid, &[fleet.cluster.route_port(victim)], &peers) {
        Ok(cut) => cut,
        Err(why) => {
            eprintln!("SKIPPED a_server_cut_off_from_the_other_two_loses_and_duplicates_nothing: {why}");
            return;
        }
    };
    wait_new_leader(&super::admin_besides(&fleet.cluster, victim).await, JOBS_STREAM, &leader).await;
    wait_for_jobs(&setup, &out, 6, || format!("{}\n{}", submit.stderr().join("\n"), fleet.cluster.logs())).await;
    drop(cut);
    finish(submit, &setup, &out, || fleet.cluster.logs()).await;
    fleet.wait_healthy().await;
    fleet.workers.clear();
}
