//! HTTPS model endpoints with a certificate made at test time by a private CA: an untrusted
//! certificate is a clear error naming the endpoint (and every decision falls back, nothing
//! hangs); the CA file makes it work for `coordinator run` (`SIMFLEET_LLM_CA_FILE`) and for
//! the worker (`llm_ca_file`); calls go through `HTTPS_PROXY` unless `NO_PROXY` names the host.

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose};
use simfleet_tests::connect_proxy::ConnectProxy;
use simfleet_tests::llm_server::{Behaviour, LlmServer};
use simfleet_tests::NatsServer;

use super::*;

/// A CA certificate, and a certificate for `localhost` it signed with its key: (CA PEM,
/// certificate PEM, key PEM).
fn certificates() -> (String, String, String) {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, "simfleet test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["localhost".to_string()]).unwrap().signed_by(&key, &*ca).unwrap();
    (ca.pem(), cert.pem(), key.serialize_pem())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_needs_the_ca_file_and_says_so_naming_the_endpoint() {
    let (ca, cert, key) = certificates();
    let model = LlmServer::start_tls(Behaviour::default(), &cert, &key);
    let dir = Dir::with_sweep(&sweep("llm-https", &model.endpoint(), 3, ""));
    let ca_file = dir.path("ca.pem");
    std::fs::write(&ca_file, ca).unwrap();
    let ca_file = ca_file.to_str().unwrap().to_string();

    // Without the CA: every call fails the handshake, every decision falls back, the run ends
    // with exit code 1, naming the error.
    let untrusted = dir.path("untrusted.jsonl");
    let out = coordinator(&["run", &dir.sweep(), "--out", untrusted.to_str().unwrap(), "--quiet"], &[]).await;
    assert_eq!(out.status.code(), Some(1), "every decision fell back");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("failed with tls"), "{stderr}");
    assert!(stderr.contains(&model.endpoint()) && stderr.contains("UnknownIssuer"), "{stderr}");
    assert!(stderr.contains("SIMFLEET_LLM_CA_FILE"), "the error says what to configure: {stderr}");
    let got = records(&untrusted);
    assert_eq!(got.len(), 6);
    assert_eq!(total(&got, "fallbacks"), total(&got, "decisions"));
    assert_eq!(total(&got, "transport_errors"), total(&got, "calls"));
    let exchange = &llm_seats(&got[0])[0]["exchanges"][0];
    assert_eq!(exchange["error"]["kind"], "tls", "{exchange}");
    assert_eq!(model.counters().answered.load(std::sync::atomic::Ordering::SeqCst), 0);

    // With it, in-process.
    let trusted = dir.path("trusted.jsonl");
    let args = ["run", &dir.sweep(), "--out", trusted.to_str().unwrap(), "--quiet"];
    assert_ok(&coordinator(&args, &[("SIMFLEET_LLM_CA_FILE", &ca_file)]).await);
    let run = records(&trusted);
    assert_eq!((run.len(), total(&run, "fallbacks"), total(&run, "transport_errors")), (6, 0, 0));

    // With it, on the fleet: the worker's `llm_ca_file`.
    let server = NatsServer::start();
    let url = server.client_url();
    let _worker = worker(&url, 4, &[("SIMFLEET_WORKER__LLM_CA_FILE", &ca_file)]);
    let fleet_out = dir.path("fleet.jsonl");
    let args = ["submit", &dir.sweep(), "--watch", "--out", fleet_out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    assert_ok(&coordinator(&args, &[]).await);
    let mut fleet: Vec<String> = records(&fleet_out).into_iter().map(|r| without_latencies(r).to_string()).collect();
    let mut embedded: Vec<String> = run.into_iter().map(|r| without_latencies(r).to_string()).collect();
    fleet.sort();
    embedded.sort();
    assert!(fleet == embedded, "the fleet's records over HTTPS differ from the embedded run's");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_go_through_https_proxy_unless_no_proxy_names_the_host() {
    let (ca, cert, key) = certificates();
    let model = LlmServer::start_tls(Behaviour::default(), &cert, &key);
    let proxy = ConnectProxy::start();
    let dir = Dir::with_sweep(&sweep("llm-proxy", &model.endpoint(), 3, ""));
    std::fs::write(dir.path("ca.pem"), ca).unwrap();
    let ca_file = dir.path("ca.pem").display().to_string();
    let out = dir.path("proxied.jsonl");
    let args = ["run", &dir.sweep(), "--out", out.to_str().unwrap(), "--quiet"];
    let env = [("SIMFLEET_LLM_CA_FILE", ca_file.as_str()), ("HTTPS_PROXY", &proxy.url())];
    assert_ok(&coordinator(&args, &env).await);
    assert_eq!(total(&records(&out), "fallbacks"), 0);
    let host = model.endpoint().trim_start_matches("https://").trim_end_matches("/v1").to_string();
    let tunnels = proxy.targets();
    assert!(!tunnels.is_empty() && tunnels.iter().all(|t| *t == host), "{tunnels:?}");

    let direct = dir.path("direct.jsonl");
    let args = ["run", &dir.sweep(), "--out", direct.to_str().unwrap(), "--quiet"];
    let env = [("SIMFLEET_LLM_CA_FILE", ca_file.as_str()), ("HTTPS_PROXY", &proxy.url()), ("NO_PROXY", "localhost")];
    assert_ok(&coordinator(&args, &env).await);
    assert_eq!(total(&records(&direct), "fallbacks"), 0);
    assert_eq!(proxy.targets().len(), tunnels.len(), "NO_PROXY: no new tunnel");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_with_an_unusable_ca_file_exits_2_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("not-a-ca.pem");
    std::fs::write(&bad, "hello\n").unwrap();
    let mut w = WorkerProcess::spawn(&[], &[("SIMFLEET_WORKER__LLM_CA_FILE", bad.to_str().unwrap())]);
    let status = w.wait_exit(TIMEOUT).await;
    assert_eq!(status.code(), Some(2));
    let logs = w.logs().join("\n");
    assert!(logs.contains("llm_ca_file") && logs.contains("no PEM certificate"), "{logs}");
}
