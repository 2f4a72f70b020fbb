//! What the servers lose, `watch` finds and gets again with no command but itself: a jobs
//! stream purged mid-sweep and a stored result deleted before any watch read it (the jobs are
//! published again), and a finished results file cut by 10 bytes (the docs' example: the result
//! acknowledged long ago is read again from the results stream).

use simfleet::topology::{result_subject, JOBS_STREAM, RESULTS_STREAM};
use simfleet_tests::results::result_messages;
use simfleet_tests::{config_fixture, connect, wait_until, NatsServer};

use super::{coordinator, finish, submit_watch, sweep, worker, TIMEOUT};

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
    let first = results.get_first_raw_message_by_subject(result_subject(&setup.sweep.id)).await.unwrap();
    assert!(results.delete_message(first.sequence).await.unwrap());
    let watch = coordinator(&["watch", &setup.sweep.id, "--out", out.to_str().unwrap(), "--quiet"], &url);
    let stdout = finish(watch, &setup, &out, || server.log()).await;
    assert!(stdout.contains("jobs published again"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_file_cut_by_ten_bytes_is_completed_by_watch_again() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let (setup, out) = sweep("cut-file", 4);
    let _worker = worker(&url);
    finish(submit_watch(&url, &setup, &out), &setup, &out, || server.log()).await;
    simfleet_tests::faults::truncate_tail(&out, 10);
    for quiet in [true, false] {
        let mut args = vec!["watch", setup.sweep.id.as_str(), "--out", out.to_str().unwrap()];
        if quiet {
            args.push("--quiet");
        }
        let again = coordinator(&args, &url);
        let stdout = finish(again, &setup, &out, || server.log()).await;
        assert!(stdout.contains("4 of 4 jobs written"), "{stdout}");
    }
}
