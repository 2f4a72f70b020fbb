//! `promtool check metrics` on a live `/metrics` of the worker (after jobs with and without
//! `llm` seats, so every kind of metric is there) and of the coordinator (`watch
//! --metrics-listen`): it must report nothing (every metric has HELP text, counters end in
//! `_total`, no reserved suffixes).

use std::io::Write as _;
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::Duration;

use simfleet_tests::llm_server::{Behaviour, LlmServer};
use simfleet_tests::prometheus::free_port;
use simfleet_tests::scrape::http_get;
use simfleet_tests::{wait_until, NatsServer};

use super::*;

/// What `promtool check metrics` says about `exposition` (empty when clean).
fn promtool(exposition: &str) -> String {
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool (apt-get install prometheus; scripts/test does)");
    child.stdin.take().unwrap().write_all(exposition.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() {
        said
    } else {
        format!("exit {}: {said}", out.status)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn promtool_finds_nothing_to_say_about_either_binary() {
    let model = LlmServer::start(Behaviour {
        delay: Duration::from_millis(50),
        rate_limit_every: Some(4),
        retry_after_s: Some(0),
        ..Behaviour::default()
    });
    let server = NatsServer::start();
    let url = server.client_url();
    let w = worker(&url, 4, &[]);
    let worker_addr = w.metrics_addr(TIMEOUT).await;
    // llm seats and a scripted cell, so every metric family is there.
    let mut text = sweep("promtool", &model.endpoint(), 3, "");
    text.push_str(
        "\n[[cells]]\ngame = \"bucket_brigade\"\nscenarios = [\"default\"]\n[cells.policy_sets]\n\
         firefighters = [\"firefighter\", \"firefighter\", \"firefighter\", \"firefighter\"]\n",
    );
    let dir = Dir::with_sweep(&text);
    let coordinator_addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let out = dir.path("out.jsonl");
    let args: Vec<String> = [
        "submit",
        &dir.sweep(),
        "--watch",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--nats-url",
        &url,
        "--metrics-listen",
        &coordinator_addr.to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let watch =
        tokio::spawn(async move { coordinator(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]).await });

    // The coordinator serves while it watches (and waits up to 15 s for a last scrape).
    let coordinator_text = wait_until("the coordinator's /metrics", TIMEOUT, || async {
        match http_get(coordinator_addr, "/metrics").await {
            Ok((200, body)) if body.contains("simfleet_sweep_jobs") => Some(body),
            _ => None,
        }
    })
    .await;
    assert!(coordinator_text.contains("# HELP simfleet_sweep_jobs"), "{coordinator_text}");
    assert_eq!(promtool(&coordinator_text), "", "promtool on the coordinator's /metrics:\n{coordinator_text}");

    let worker_text = wait_until("the worker's llm and episode metrics", TIMEOUT, || async {
        let body = http_get(worker_addr, "/metrics").await.ok()?.1;
        let all = [
            "simfleet_llm_failures_total",
            "simfleet_llm_call_duration_seconds_bucket",
            "simfleet_bucket_brigade_episode_length_bucket",
        ];
        all.iter().all(|m| body.contains(m)).then_some(body)
    })
    .await;
    assert_eq!(promtool(&worker_text), "", "promtool on the worker's /metrics:\n{worker_text}");
    assert_ok(&within("the watch", TIMEOUT, watch).await.unwrap());
}
