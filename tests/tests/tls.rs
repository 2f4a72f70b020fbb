//! TLS between every client and NATS, against a real nats-server serving TLS with a CA made at
//! test time (`simfleet_tests::tls`): the worker and the coordinator connect with the right
//! `auth.tls_ca_file`, fail with a message naming the server and the CA with a wrong one, and
//! bring a client certificate (`auth.tls_cert_file`, `auth.tls_key_file`) to a server that
//! verifies clients.

use std::time::Duration;

use async_nats::ConnectOptions;
use simfleet::nats::topology::{ensure, TopologyConfig};
use simfleet_tests::jobs::{good_job, publish_job, unique_sweep};
use simfleet_tests::results::collect_results;
use simfleet_tests::tls::TestCa;
use simfleet_tests::{CoordinatorProcess, NatsServer, WorkerProcess};

use crate::fleet::{assert_same_records, slow_sweep, Setup};

const TIMEOUT: Duration = Duration::from_secs(60);

fn path(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// A test client trusting `ca` (with `client`'s certificate when given), topology set up.
async fn admin(
    url: &str,
    ca: &TestCa,
    client: Option<&(std::path::PathBuf, std::path::PathBuf)>,
) -> async_nats::jetstream::Context {
    let mut options = ConnectOptions::new().add_root_certificates(ca.ca_file.clone()).require_tls(true);
    if let Some((cert, key)) = client {
        options = options.add_client_certificate(cert.clone(), key.clone());
    }
    let js = async_nats::jetstream::new(options.connect(url).await.expect("the test client connects over TLS"));
    ensure(&js, &TopologyConfig::default()).await.expect("the topology");
    js
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_right_ca_connects_and_a_wrong_one_fails_naming_the_server() {
    let ca = TestCa::new("simfleet-test-ca");
    let stranger = TestCa::new("some-other-ca");
    let server = NatsServer::start_with_config(ca.server_config(false));
    let url = server.client_url();
    let args = ["--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0"];
    // A wrong CA: the worker exits 1 and says which server and which CA.
    let mut bad = WorkerProcess::spawn(&args, &[("SIMFLEET_WORKER__AUTH__TLS_CA_FILE", path(&stranger.ca_file))]);
    assert_eq!(bad.wait_exit(TIMEOUT).await.code(), Some(1), "{:?}", bad.logs());
    let logs = bad.logs().join("\n");
    assert!(logs.contains(&format!("cannot connect to NATS at {url}")), "{logs}");
    assert!(
        logs.contains("not signed by the CA of auth.tls_ca_file") && logs.contains(path(&stranger.ca_file)),
        "{logs}"
    );
    // No CA at all: the server wants TLS the client cannot verify.
    let mut none = WorkerProcess::spawn(&args, &[]);
    assert_eq!(none.wait_exit(TIMEOUT).await.code(), Some(1), "{:?}", none.logs());
    assert!(none.logs().join("\n").contains("auth.tls_ca_file"), "{:?}", none.logs());
    // The coordinator says the same, as an error.
    let env = [("SIMFLEET_COORDINATOR__AUTH__TLS_CA_FILE", path(&stranger.ca_file))];
    let mut c = CoordinatorProcess::spawn(&["status", "--nats-url", &url], &env);
    assert_eq!(c.wait_exit(TIMEOUT).await.code(), Some(2));
    let stderr = c.stderr().join("\n");
    assert!(
        stderr.contains(&format!("cannot connect to NATS at {url}")) && stderr.contains("auth.tls_ca_file"),
        "{stderr}"
    );
    // The right CA: a worker plays a job.
    let js = admin(&url, &ca, None).await;
    let mut good = WorkerProcess::spawn(&args, &[("SIMFLEET_WORKER__AUTH__TLS_CA_FILE", path(&ca.ca_file))]);
    good.wait_for_log("worker started", TIMEOUT).await;
    let sweep = unique_sweep("tls");
    publish_job(&js, &good_job(&sweep, 0, 10)).await;
    let results = collect_results(&js, &sweep, 1, TIMEOUT).await;
    assert_eq!((&results[&0].error, results[&0].records.len()), (&None, 10));
    good.terminate();
    assert!(good.wait_exit(TIMEOUT).await.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_verifies_clients_gets_their_certificates() {
    let ca = TestCa::new("simfleet-test-ca");
    let server = NatsServer::start_with_config(ca.server_config(true));
    let url = server.client_url();
    let args = ["--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
    // The CA alone is not enough.
    let mut bare = WorkerProcess::spawn(&args, &[("SIMFLEET_WORKER__AUTH__TLS_CA_FILE", path(&ca.ca_file))]);
    assert_eq!(bare.wait_exit(TIMEOUT).await.code(), Some(1), "{:?}", bare.logs());
    let logs = bare.logs().join("\n");
    assert!(logs.contains(&format!("cannot connect to NATS at {url}")), "{logs}");
    assert!(logs.contains("set auth.tls_cert_file and auth.tls_key_file"), "{logs}");
    // With a certificate each, a worker and the coordinator play a sweep end to end.
    let test_client = ca.client_cert("test-client");
    admin(&url, &ca, Some(&test_client)).await;
    let (cert, key) = ca.client_cert("worker");
    let worker_env = [
        ("SIMFLEET_WORKER__AUTH__TLS_CA_FILE", path(&ca.ca_file)),
        ("SIMFLEET_WORKER__AUTH__TLS_CERT_FILE", path(&cert)),
        ("SIMFLEET_WORKER__AUTH__TLS_KEY_FILE", path(&key)),
    ];
    let _worker = WorkerProcess::spawn(&args, &worker_env);
    let (cert, key) = ca.client_cert("coordinator");
    let env = [
        ("SIMFLEET_COORDINATOR__AUTH__TLS_CA_FILE", path(&ca.ca_file)),
        ("SIMFLEET_COORDINATOR__AUTH__TLS_CERT_FILE", path(&cert)),
        ("SIMFLEET_COORDINATOR__AUTH__TLS_KEY_FILE", path(&key)),
    ];
    let setup = Setup::new(slow_sweep("tls", 4, Duration::from_millis(20)));
    let (sweep, out) = (setup.path("sweep.toml"), setup.path("fleet.jsonl"));
    let mut c = CoordinatorProcess::spawn(
        &["submit", path(&sweep), "--watch", "--out", path(&out), "--quiet", "--nats-url", &url],
        &env,
    );
    let status = c.wait_exit(TIMEOUT).await;
    assert!(status.success(), "{status}: {:?}", c.stderr());
    assert_same_records(&setup, &out).await;
}
