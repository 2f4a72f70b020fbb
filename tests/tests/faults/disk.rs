//! One server of a three-server cluster stopped (kill -9), its stream data files damaged (the
//! results' largest message block cut short, a bit flipped in a jobs block), and started again
//! mid-sweep: the sweep running meanwhile and a fresh watch of the sweep finished before are
//! both the embedded run's records, and the cluster is whole again.

use simfleet::names::{JOBS_STREAM, RESULTS_STREAM};
use simfleet_tests::faults::{flip_bit, message_blocks, truncate_tail};
use simfleet_tests::nats_cluster::stream_leader;

use simfleet_tests::CoordinatorProcess;

use super::{finish, sweep, wait_for_jobs};
use crate::cluster::ClusterFleet;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_with_damaged_data_files_loses_and_duplicates_nothing() {
    let mut fleet = ClusterFleet::start().await;
    let url = fleet.cluster.url();
    let (before, before_out) = sweep("disk-before", 6);
    finish(fleet.submit(&before, &before_out), &before, &before_out, || fleet.cluster.logs()).await;

    // A follower of the results stream: its files are damaged while it is down.
    let leader = stream_leader(&fleet.admin, RESULTS_STREAM).await.expect("the results stream has a leader");
    let victim = (0..3).find(|&i| fleet.cluster.name(i) != leader).expect("a follower");
    fleet.cluster.kill(victim);
    let store = fleet.cluster.store_dir(victim);
    let results = message_blocks(&store, RESULTS_STREAM);
    assert!(!results.is_empty(), "no message blocks of {RESULTS_STREAM} under {}", store.display());
    truncate_tail(&results[0], 100);
    if let Some(jobs) = message_blocks(&store, JOBS_STREAM).first() {
        flip_bit(jobs);
    }
    let (during, during_out) = sweep("disk-during", 8);
    let submit = fleet.submit(&during, &during_out);
    wait_for_jobs(&during, &during_out, 2, || submit.stderr().join("\n")).await;
    fleet.cluster.start_again(victim);
    finish(submit, &during, &during_out, || fleet.cluster.logs()).await;
    fleet.wait_healthy().await;

    // The sweep finished before the damage reads back whole.
    let again = during.path("before-again.jsonl");
    let watch = CoordinatorProcess::spawn(
        &["watch", &before.sweep.id, "--out", again.to_str().unwrap(), "--quiet", "--nats-url", &url],
        &[("SIMFLEET_COORDINATOR__STREAM_REPLICAS", "3")],
    );
    finish(watch, &before, &again, || fleet.cluster.logs()).await;
}
