//! Credentials against a server that wants a user and password (`tests/configs/auth.conf`):
//! wrong ones are a clear error and a non-zero exit, right ones (from a mounted secret file)
//! work, and the password never reaches the logs.

use std::time::Duration;

use async_nats::ConnectOptions;
use simfleet_tests::jobs::{good_job, publish_job, unique_sweep};
use simfleet_tests::results::collect_results;
use simfleet_tests::{config_fixture, NatsServer, WorkerProcess};

const USER: &str = "simfleet";
const PASSWORD: &str = "fleet-s3cret";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_credentials_fail_clearly_and_right_ones_work() {
    let server = NatsServer::start_with_config(config_fixture("auth.conf"));
    let url = server.client_url();
    let args = ["--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0"];

    let wrong = "not-the-password-42";
    let mut bad = WorkerProcess::spawn(
        &args,
        &[("SIMFLEET_WORKER__AUTH__USER", USER), ("SIMFLEET_WORKER__AUTH__PASSWORD", wrong)],
    );
    let status = bad.wait_exit(Duration::from_secs(30)).await;
    assert_eq!(status.code(), Some(1), "{:?}", bad.logs());
    let logs = bad.logs().join("\n");
    assert!(logs.contains("cannot connect to NATS"), "{logs}");
    assert!(logs.to_lowercase().contains("authorization"), "{logs}");
    assert!(!logs.contains(wrong), "the password leaked into the logs:\n{logs}");

    let secrets = tempfile::tempdir().unwrap();
    let password_file = secrets.path().join("password");
    std::fs::write(&password_file, format!("{PASSWORD}\n")).unwrap();
    let mut good = WorkerProcess::spawn(
        &args,
        &[
            ("SIMFLEET_WORKER__AUTH__USER", USER),
            ("SIMFLEET_WORKER__AUTH__PASSWORD_FILE", password_file.to_str().unwrap()),
        ],
    );
    good.wait_for_log("worker started", Duration::from_secs(30)).await;
    let client = ConnectOptions::with_user_and_password(USER.into(), PASSWORD.into()).connect(&url).await.unwrap();
    let js = async_nats::jetstream::new(client);
    let sweep = unique_sweep("auth");
    publish_job(&js, &good_job(&sweep, 0, 10)).await;
    let results = collect_results(&js, &sweep, 1, Duration::from_secs(30)).await;
    assert_eq!(results[&0].error, None);
    good.terminate();
    assert!(good.wait_exit(Duration::from_secs(30)).await.success());
    let logs = good.logs().join("\n");
    assert!(!logs.contains(PASSWORD), "the password leaked into the logs:\n{logs}");
}
