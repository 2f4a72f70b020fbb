//! The worker's configuration: the layers in order (defaults < `NATS_URL` < file <
//! `SIMFLEET_WORKER__*` < flags), errors as one line naming the key, and the binary's exit
//! code 2 on them.

use std::collections::HashMap;
use std::time::Duration;

use simfleet_tests::WorkerProcess;
use worker::settings::{DEFAULT_METRICS_LISTEN, DEFAULT_NATS_URL};
use worker::{Cli, ConfigError, Settings};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misspelt_key_is_one_line_naming_it_and_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("worker.toml");
    std::fs::write(&file, "concurrency = 2\nack_wait_secs = 10\n").unwrap();
    let mut worker = WorkerProcess::spawn(&["--config", file.to_str().unwrap()], &[]);
    let status = worker.wait_exit(Duration::from_secs(20)).await;
    assert_eq!(status.code(), Some(2));
    let logs = worker.logs();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert!(logs[0].contains("ack_wait_secs"), "{logs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_value_from_the_environment_names_its_key() {
    let mut worker = WorkerProcess::spawn(&[], &[("SIMFLEET_WORKER__MAX_DELIVER", "lots")]);
    let status = worker.wait_exit(Duration::from_secs(20)).await;
    assert_eq!(status.code(), Some(2));
    assert!(worker.logs().iter().any(|l| l.contains("max_deliver")), "{:?}", worker.logs());
}

/// Loads settings from the given flags (`--config`, `--nats-url`, `--metrics-listen`,
/// `--concurrency`, `--prefetch`, `--llm-concurrency`) and environment.
fn load(args: &[&str], env: &[(&str, &str)]) -> Result<Settings, ConfigError> {
    let mut cli = Cli::default();
    for pair in args.chunks(2) {
        let value = pair[1].to_string();
        match pair[0] {
            "--config" => cli.config = Some(value.into()),
            "--nats-url" => cli.nats_url = Some(value),
            "--metrics-listen" => cli.metrics_listen = Some(value),
            "--concurrency" => cli.concurrency = Some(value.parse().unwrap()),
            "--prefetch" => cli.prefetch = Some(value.parse().unwrap()),
            "--llm-concurrency" => cli.llm_concurrency = Some(value.parse().unwrap()),
            other => panic!("no flag {other} in this helper"),
        }
    }
    let env: HashMap<String, String> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Settings::load(&cli, &env)
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("simfleet-settings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn defaults_apply() {
    let s = load(&[], &[]).unwrap();
    assert_eq!(s.nats_url, DEFAULT_NATS_URL);
    assert_eq!(s.ack_wait, Duration::from_secs(30));
    assert_eq!(s.max_deliver, 5);
    assert_eq!(s.drain_timeout, Duration::from_secs(25));
    assert_eq!(s.metrics_listen.to_string(), DEFAULT_METRICS_LISTEN);
    assert_eq!(s.fetch_batch, s.concurrency);
    assert_eq!(s.prefetch, s.concurrency);
    assert_eq!(s.runtime_threads, worker::settings::default_runtime_threads(s.concurrency));
    let s = load(&["--concurrency", "3", "--prefetch", "0"], &[]).unwrap();
    assert_eq!((s.concurrency, s.prefetch, s.runtime_threads), (3, 0, 1));
    // One runtime thread per 16 play threads.
    let threads = |c: &str| load(&["--concurrency", c], &[]).unwrap().runtime_threads;
    assert_eq!((threads("16"), threads("17"), threads("64")), (1, 2, 4));
    let s = load(&["--concurrency", "3"], &[("SIMFLEET_WORKER__RUNTIME_THREADS", "3")]).unwrap();
    assert_eq!(s.runtime_threads, 3);
    let err = load(&[], &[("SIMFLEET_WORKER__RUNTIME_THREADS", "0")]).unwrap_err().to_string();
    assert!(err.contains("runtime_threads"), "{err}");
    let s = load(&["--concurrency", "3"], &[("SIMFLEET_WORKER__PREFETCH", "5")]).unwrap();
    assert_eq!((s.concurrency, s.prefetch), (3, 5));
}

#[test]
fn layers_override_in_order() {
    let file = temp_file("layers.toml", "nats_url = \"nats://file:1\"\nconcurrency = 3\nack_wait_seconds = 9\n");
    let f = file.to_str().unwrap();
    let s = load(&["--config", f], &[("NATS_URL", "nats://env:1")]).unwrap();
    assert_eq!((s.nats_url.as_str(), s.concurrency, s.ack_wait.as_secs()), ("nats://file:1", 3, 9));
    let env = [("NATS_URL", "nats://env:1"), ("SIMFLEET_WORKER__CONCURRENCY", "5")];
    let s = load(&["--config", f], &env).unwrap();
    assert_eq!(s.concurrency, 5);
    let s = load(&["--config", f, "--concurrency", "7", "--nats-url", "nats://flag:1"], &env).unwrap();
    assert_eq!((s.nats_url.as_str(), s.concurrency), ("nats://flag:1", 7));
    let s = load(&[], &[("NATS_URL", "nats://env:1")]).unwrap();
    assert_eq!(s.nats_url, "nats://env:1");
}

#[test]
fn errors_name_the_key() {
    let file = temp_file("typo.toml", "concurency = 3\n");
    let err = load(&["--config", file.to_str().unwrap()], &[]).unwrap_err().to_string();
    assert!(err.contains("concurency") && !err.contains('\n'), "{err}");
    let err = load(&[], &[("SIMFLEET_WORKER__CONCURRENCY", "many")]).unwrap_err().to_string();
    assert!(err.contains("concurrency"), "{err}");
    let err = load(&[], &[("SIMFLEET_WORKER__ACK_WAIT_SECONDS", "0")]).unwrap_err().to_string();
    assert!(err.contains("ack_wait_seconds"), "{err}");
    let err = load(&["--metrics-listen", "nowhere"], &[]).unwrap_err().to_string();
    assert!(err.contains("metrics_listen"), "{err}");
    let file = temp_file("auth.toml", "[auth]\nuser = \"u\"\npasword = \"p\"\n");
    let err = load(&["--config", file.to_str().unwrap()], &[]).unwrap_err().to_string();
    assert!(err.contains("pasword"), "{err}");
}

#[test]
fn nested_keys_come_from_the_environment() {
    let secret = temp_file("pw", "pw\n");
    let env =
        [("SIMFLEET_WORKER__AUTH__USER", "alice"), ("SIMFLEET_WORKER__AUTH__PASSWORD_FILE", secret.to_str().unwrap())];
    let s = load(&[], &env).unwrap();
    assert!(
        matches!(s.auth.credentials, simfleet::nats::Credentials::UserPassword { ref user, .. } if user == "alice")
    );
    assert!(!format!("{s:?}").contains("pw\""));
}

#[test]
fn bucket_overrides_are_checked() {
    let file = temp_file("buckets.toml", "[buckets.bucket_brigade]\nlength = [1.0, 2.0, 5.0]\n");
    let s = load(&["--config", file.to_str().unwrap()], &[]).unwrap();
    assert_eq!(s.buckets["simfleet_bucket_brigade_episode_length"], vec![1.0, 2.0, 5.0]);
    let file = temp_file("bad-buckets.toml", "[buckets.bucket_brigade]\nlength = [2.0, 1.0]\n");
    let err = load(&["--config", file.to_str().unwrap()], &[]).unwrap_err().to_string();
    assert!(err.contains("buckets.bucket_brigade.length"), "{err}");
    let file = temp_file("bad-game.toml", "[buckets.chess]\nlength = [1.0]\n");
    let err = load(&["--config", file.to_str().unwrap()], &[]).unwrap_err().to_string();
    assert!(err.contains("buckets.chess"), "{err}");
}

#[test]
fn settings_print_without_secrets() {
    let env = [
        ("SIMFLEET_WORKER__NATS_URL", "nats://alice:url-secret@nats:4222"),
        ("SIMFLEET_WORKER__AUTH__TOKEN", "token-secret"),
    ];
    let printed = format!("{:?}", load(&[], &env).unwrap());
    assert!(printed.contains("nats://alice:***@nats:4222"), "{printed}");
    assert!(!printed.contains("url-secret") && !printed.contains("token-secret"), "{printed}");
}

#[test]
fn llm_keys_layer_like_the_others_and_are_checked() {
    let s = load(&[], &[]).unwrap();
    assert_eq!((s.llm_concurrency, s.llm_fleet_workers, s.llm_ca_file.is_none()), (64, 1, true));
    let file = temp_file(
        "llm.toml",
        "llm_concurrency = 32\nllm_fleet_workers = 4\n\n[[llm_prices]]\nmodel = \"m\"\nprompt_per_1k = 0.5\ncompletion_per_1k = 1.5\n",
    );
    let f = file.to_str().unwrap();
    let s = load(&["--config", f], &[]).unwrap();
    assert_eq!((s.llm_concurrency, s.llm_fleet_workers), (32, 4));
    assert_eq!((s.llm_prices[0].model.as_str(), s.llm_prices[0].completion_per_1k), ("m", 1.5));
    let env = [("SIMFLEET_WORKER__LLM_CONCURRENCY", "48"), ("SIMFLEET_WORKER__LLM_FLEET_WORKERS", "6")];
    let s = load(&["--config", f], &env).unwrap();
    assert_eq!((s.llm_concurrency, s.llm_fleet_workers), (48, 6));
    let s = load(&["--config", f, "--llm-concurrency", "200"], &env).unwrap();
    assert_eq!(s.llm_concurrency, 200);
    let err = load(&["--llm-concurrency", "0"], &[]).unwrap_err().to_string();
    assert!(err.contains("llm_concurrency"), "{err}");
    let err = load(&[], &[("SIMFLEET_WORKER__LLM_CA_FILE", "/nonexistent/ca.pem")]).unwrap_err().to_string();
    assert!(err.contains("llm_ca_file") && err.contains("/nonexistent/ca.pem"), "{err}");
    let file =
        temp_file("bad-price.toml", "[[llm_prices]]\nmodel = \"m\"\nprompt_per_1k = -1.0\ncompletion_per_1k = 1.0\n");
    let err = load(&["--config", file.to_str().unwrap()], &[]).unwrap_err().to_string();
    assert!(err.contains("llm_prices[0]"), "{err}");
}

#[test]
fn a_server_list_and_stream_replicas_load_and_bad_ones_name_their_key() {
    let list = "nats://10.0.0.1:4222,nats://10.0.0.2:4222,nats://10.0.0.3:4222";
    let s = load(&["--nats-url", list], &[("SIMFLEET_WORKER__STREAM_REPLICAS", "3")]).unwrap();
    assert_eq!((s.nats_url.as_str(), s.stream_replicas, s.topology_config().replicas), (list, 3, 3));
    let e = load(&["--nats-url", "nats://10.0.0.1:4222,http://10.0.0.2"], &[]).unwrap_err();
    assert_eq!(e.key(), Some("nats_url"), "{e}");
    let e = load(&[], &[("SIMFLEET_WORKER__STREAM_REPLICAS", "0")]).unwrap_err();
    assert_eq!(e.key(), Some("stream_replicas"), "{e}");
}

/// The benchmark-only free play (`scripts/bench-scale`) is a cargo feature no shipped build
/// has: the worker binary the suite runs, built as the image builds it but for the profile,
/// holds no trace of its switch.
#[test]
fn the_worker_binary_has_no_benchmark_only_switch() {
    let bytes = std::fs::read(simfleet_tests::worker_binary()).unwrap();
    let needle = concat!("SIMFLEET_BENCH_", "FREE_PLAY").as_bytes();
    assert!(!bytes.windows(needle.len()).any(|w| w == needle), "the worker binary carries the free-play switch");
    // The check can see a string the binary does carry.
    let known = b"drain_timeout_seconds";
    assert!(bytes.windows(known.len()).any(|w| w == known));
}
