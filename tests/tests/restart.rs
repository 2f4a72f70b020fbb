//! nats-server killed and restarted (same port, same store dir) while a worker plays a sweep:
//! the worker reconnects and carries on by itself, and every job gets its result.

use std::time::Duration;

use async_nats::connection::State;
use simfleet_tests::jobs::{episodes_for, publish_job, slow_job, unique_sweep};
use simfleet_tests::results::{collect_results, jobs_in_stream};
use simfleet_tests::{config_fixture, connect, test_settings, wait_until, NatsServer, RunningWorker};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_survives_a_server_restart_and_nothing_is_lost() {
    let mut server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let (client, js) = connect(&server.client_url()).await;
    let sweep = unique_sweep("restart");
    let episodes = episodes_for(slow_job, Duration::from_millis(200));
    let before = 30;
    for i in 0..before {
        publish_job(&js, &slow_job(&sweep, i, episodes)).await;
    }
    let worker = RunningWorker::start(test_settings(&server.client_url())).await;
    collect_results(&js, &sweep, 3, Duration::from_secs(60)).await;

    server.restart();
    wait_until("the test client to reconnect", Duration::from_secs(30), || async {
        (client.connection_state() == State::Connected).then_some(())
    })
    .await;
    // Jobs published after the restart are played too.
    let after = 10;
    for i in before..before + after {
        publish_job(&js, &slow_job(&sweep, i, episodes)).await;
    }
    let results = collect_results(&js, &sweep, (before + after) as usize, Duration::from_secs(120)).await;
    for r in results.values() {
        assert_eq!((&r.error, r.records.len()), (&None, episodes as usize), "job {}", r.index);
    }
    wait_until("an empty jobs stream", Duration::from_secs(60), || async {
        (jobs_in_stream(&js).await == 0).then_some(())
    })
    .await;
    worker.stop().await.expect("a clean stop after the restart");
}
