//! Credentials against real servers that want them: user and password
//! (`tests/configs/auth.conf`), a token (`tests/configs/token.conf`) and an nkey made at test
//! time. Wrong ones are a clear error and a non-zero exit, right ones (from a mounted secret
//! file) play a job, and the secret never reaches the logs.

use std::time::Duration;

use async_nats::ConnectOptions;
use simfleet::nats::topology::{ensure, TopologyConfig};
use simfleet_tests::jobs::{good_job, publish_job, unique_sweep};
use simfleet_tests::results::collect_results;
use simfleet_tests::{config_fixture, NatsServer, WorkerProcess};

const USER: &str = "simfleet";
const PASSWORD: &str = "fleet-s3cret";
const TOKEN: &str = "t0ken-of-the-fleet";
const TIMEOUT: Duration = Duration::from_secs(30);

/// A worker started with `env` is refused: exit code 1, a line naming the refusal, and no
/// trace of `secret`.
async fn refused(url: &str, env: &[(&str, &str)], secret: &str) {
    let mut worker = WorkerProcess::spawn(&["--nats-url", url, "--metrics-listen", "127.0.0.1:0"], env);
    let status = worker.wait_exit(TIMEOUT).await;
    assert_eq!(status.code(), Some(1), "{:?}", worker.logs());
    let logs = worker.logs().join("\n");
    assert!(logs.contains(&format!("cannot connect to NATS at {url}")), "{logs}");
    assert!(logs.to_lowercase().contains("authorization"), "{logs}");
    assert!(!logs.contains(secret), "the secret leaked into the logs:\n{logs}");
}

/// A worker started with `env` plays a job published by a client connected with `admin`, and
/// stops cleanly; no trace of `secret` in its logs.
async fn plays_a_job(url: &str, admin: ConnectOptions, env: &[(&str, &str)], secret: &str) {
    let js = async_nats::jetstream::new(admin.connect(url).await.expect("the test client connects"));
    // Workers never create the topology: the test creates it, as `coordinator setup` would.
    ensure(&js, &TopologyConfig::default()).await.expect("the topology");
    let mut worker = WorkerProcess::spawn(&["--nats-url", url, "--metrics-listen", "127.0.0.1:0"], env);
    worker.wait_for_log("worker started", TIMEOUT).await;
    let sweep = unique_sweep("auth");
    publish_job(&js, &good_job(&sweep, 0, 10)).await;
    let results = collect_results(&js, &sweep, 1, TIMEOUT).await;
    assert_eq!((&results[&0].error, results[&0].records.len()), (&None, 10));
    worker.terminate();
    assert!(worker.wait_exit(TIMEOUT).await.success());
    let logs = worker.logs().join("\n");
    assert!(!logs.contains(secret), "the secret leaked into the logs:\n{logs}");
}

/// A secret in a file as Kubernetes mounts it (with a trailing newline).
fn secret_file(dir: &tempfile::TempDir, name: &str, secret: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, format!("{secret}\n")).unwrap();
    path.to_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_and_password_wrong_fail_clearly_and_right_work() {
    let server = NatsServer::start_with_config(config_fixture("auth.conf"));
    let url = server.client_url();
    let wrong = "not-the-password-42";
    refused(&url, &[("SIMFLEET_WORKER__AUTH__USER", USER), ("SIMFLEET_WORKER__AUTH__PASSWORD", wrong)], wrong).await;
    let secrets = tempfile::tempdir().unwrap();
    let password_file = secret_file(&secrets, "password", PASSWORD);
    let admin = ConnectOptions::with_user_and_password(USER.into(), PASSWORD.into());
    let env = [("SIMFLEET_WORKER__AUTH__USER", USER), ("SIMFLEET_WORKER__AUTH__PASSWORD_FILE", password_file.as_str())];
    plays_a_job(&url, admin, &env, PASSWORD).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_wrong_fails_clearly_and_right_works() {
    let server = NatsServer::start_with_config(config_fixture("token.conf"));
    let url = server.client_url();
    let wrong = "not-the-token-42";
    refused(&url, &[("SIMFLEET_WORKER__AUTH__TOKEN", wrong)], wrong).await;
    let secrets = tempfile::tempdir().unwrap();
    let token_file = secret_file(&secrets, "token", TOKEN);
    let admin = ConnectOptions::with_token(TOKEN.into());
    plays_a_job(&url, admin, &[("SIMFLEET_WORKER__AUTH__TOKEN_FILE", token_file.as_str())], TOKEN).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_nkey_wrong_fails_clearly_and_right_works() {
    // A user key made now; the server knows only its public half.
    let user = nkeys::KeyPair::new_user();
    let seed = user.seed().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("nkey.conf");
    std::fs::write(&conf, format!("authorization {{\n  users: [ {{ nkey: {} }} ]\n}}\n", user.public_key())).unwrap();
    let server = NatsServer::start_with_config(&conf);
    let url = server.client_url();
    let stranger = nkeys::KeyPair::new_user().seed().unwrap();
    refused(&url, &[("SIMFLEET_WORKER__AUTH__NKEY_SEED", stranger.as_str())], &stranger).await;
    let seed_file = secret_file(&dir, "seed", &seed);
    let admin = ConnectOptions::with_nkey(seed.clone());
    plays_a_job(&url, admin, &[("SIMFLEET_WORKER__AUTH__NKEY_SEED_FILE", seed_file.as_str())], &seed).await;
}
