//! What the servers lose, `watch` finds and gets again with no command but itself: a jobs
//! stream purged mid-sweep and a stored result deleted before any watch read it (the jobs are
//! published again), and a results file cut by 10 bytes after its results were acknowledged,
//! mid-sweep (the cut job is read again from the results stream) and finished (the docs'
//! example).

use simfleet::names::{result_subject, watch_consumer, JOBS_STREAM, RESULTS_STREAM};
use simfleet_tests::faults::{pause, resume, signal};
use simfleet_tests::results::result_messages;
use simfleet_tests::{config_fixture, connect, wait_until, NatsServer};

use super::{coordinator, finish, sweep, wait_for_jobs, worker, TIMEOUT};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_purged_jobs_stream_and_a_deleted_result_are_played_again() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let (_client, js) = connect(&url).await;
    let (setup, out) = sweep("purged", 10);
    let _worker = worker(&url);
    let sweep_file = setup.path("sweep.toml");
    let mut submit = coordinator(&["submit", sweep_file.to_str().unwrap()], &url);
    assert!(submit.wait_exit(TIMEOUT).await.success(), "{:?}", submit.stderr());
    wait_until("three results", TIMEOUT, || async { (result_messages(&js, &setup.sweep.id).await >= 3).then_some(()) })
        .await;
    // No watch has read anything: the jobs still queued vanish, and so does one stored result.
    js.get_stream(JOBS_STREAM).await.unwrap().purge().await.unwrap();
    let results = js.get_stream(RESULTS_STREAM).await.unwrap();
    let first = results.get_first_raw_message_by_subject(result_subject(&setup.sweep.id), 1).await.unwrap();
    assert!(results.delete_message(first.sequence).await.unwrap());
    let watch = coordinator(&["watch", &setup.sweep.id, "--out", out.to_str().unwrap(), "--quiet"], &url);
    let stdout = finish(watch, &setup, &out, || server.log()).await;
    assert!(stdout.contains("jobs published again"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_results_file_cut_after_its_results_were_acknowledged_is_completed() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let (_client, js) = connect(&url).await;
    let (setup, out) = sweep("cut-file", 6);
    let player = worker(&url);
    let sweep_file = setup.path("sweep.toml");
    let mut submit = coordinator(&["submit", sweep_file.to_str().unwrap()], &url);
    assert!(submit.wait_exit(TIMEOUT).await.success(), "{:?}", submit.stderr());
    // Mid-sweep: the worker paused after two results, a watch that wrote and acknowledged them
    // stopped (SIGTERM), and its file cut by 10 bytes (a power loss after the acknowledgement).
    wait_until("two results", TIMEOUT, || async { (result_messages(&js, &setup.sweep.id).await >= 2).then_some(()) })
        .await;
    pause(player.pid());
    let watch_args = ["watch", setup.sweep.id.as_str(), "--out", out.to_str().unwrap(), "--quiet"];
    let written = result_messages(&js, &setup.sweep.id).await;
    let mut first = coordinator(&watch_args, &url);
    wait_for_jobs(&setup, &out, written, || first.stderr().join("\n")).await;
    let results = js.get_stream(RESULTS_STREAM).await.unwrap();
    let consumer = watch_consumer(&setup.sweep.id);
    wait_until("the results acknowledged", TIMEOUT, || async {
        let info = results.consumer_info(&consumer).await.ok()?;
        (info.ack_floor.stream_sequence >= written && info.num_ack_pending == 0).then_some(())
    })
    .await;
    signal(first.pid(), "TERM");
    assert_eq!(first.wait_exit(TIMEOUT).await.code(), Some(130), "{:?}", first.stderr());
    simfleet_tests::faults::truncate_tail(&out, 10);
    let again = coordinator(&watch_args, &url);
    wait_for_jobs(&setup, &out, written, || again.stderr().join("\n")).await;
    resume(player.pid());
    let stdout = finish(again, &setup, &out, || server.log()).await;
    assert!(stdout.contains("1 results read again"), "{stdout}");

    // The docs' example: a finished file cut by 10 bytes, and `watch` run again.
    simfleet_tests::faults::truncate_tail(&out, 10);
    for quiet in [true, false] {
        let mut args = vec!["watch", setup.sweep.id.as_str(), "--out", out.to_str().unwrap()];
        if quiet {
            args.push("--quiet");
        }
        let again = coordinator(&args, &url);
        let stdout = finish(again, &setup, &out, || server.log()).await;
        assert!(stdout.contains("6 of 6 jobs written"), "{stdout}");
    }
}
