//! What goes wrong with a model endpoint ends in counted retries or the seat's fallback, never
//! a lost episode or a stuck job: 429s are waited out without using an attempt (so even with
//! no retry at all nothing falls back), timeouts and malformed answers are retried, a dead
//! endpoint falls back; every episode is written and the worker counts each kind.

use simfleet_tests::llm_server::{Behaviour, LlmServer};
use simfleet_tests::scrape::{http_get, metric_sum};
use simfleet_tests::NatsServer;
use worker::telemetry;

use super::*;

async fn worker_metrics(w: &WorkerProcess) -> String {
    let addr = w.metrics_addr(TIMEOUT).await;
    http_get(addr, "/metrics").await.unwrap().1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_third_of_calls_rate_limited_still_gives_every_episode_without_fallbacks() {
    let behaviour = Behaviour { rate_limit_every: Some(3), retry_after_s: Some(0), ..Behaviour::default() };
    let model = LlmServer::start(behaviour);
    // No retry at all: a 429 that used an attempt would be a fallback.
    let dir = Dir::with_sweep(&sweep("llm-429", &model.endpoint(), 6, "&max_retries=0"));
    let server = NatsServer::start();
    let url = server.client_url();
    let w = worker(&url, 8, &[]);
    let out = dir.path("out.jsonl");
    let args = ["submit", &dir.sweep(), "--watch", "--out", out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    assert_ok(&coordinator(&args, &[]).await);
    let got = records(&out);
    assert_eq!(got.len(), 12, "every episode");
    assert_eq!(total(&got, "fallbacks"), 0, "429s use no attempt");
    let limited = total(&got, "rate_limited");
    assert!(limited > 0, "a third of the calls were answered 429");
    assert_eq!(limited, model.counters().rate_limited.load(std::sync::atomic::Ordering::SeqCst));

    let text = worker_metrics(&w).await;
    let kind = [("kind", "rate_limited"), ("model", "stand-in")];
    assert_eq!(metric_sum(&text, telemetry::LLM_FAILURES_TOTAL, &kind), Some(limited as f64), "{text}");
    assert_eq!(metric_sum(&text, telemetry::LLM_RETRIES_TOTAL, &[]), Some(limited as f64), "each 429 retried once");
    assert_eq!(metric_sum(&text, telemetry::LLM_CALLS_TOTAL, &[]), Some(total(&got, "calls") as f64));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_malformed_answers_and_a_dead_endpoint_end_in_retries_or_fallbacks() {
    let behaviour = Behaviour { malformed_every: Some(4), hang_every: Some(5), ..Behaviour::default() };
    let flaky = LlmServer::start(behaviour);
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let seat = |endpoint: &str| format!("llm?model=stand-in&endpoint={endpoint}&timeout_s=0.5&max_retries=1");
    let text = format!(
        "name = \"llm-failures\"\nseeds = {{ start = 0, count = 6 }}\nepisodes_per_job = 3\n\
         llm_max_fallback_share = 1.0\n\n\
         [[cells]]\ngame = \"deception\"\nscenarios = [\"quick_4p1i\"]\n[cells.policy_sets]\n\
         flaky = [{:?}, \"heuristic\", \"heuristic\", \"heuristic\"]\n\n\
         [[cells]]\ngame = \"trolley\"\nscenarios = [\"trio_3p?max_rounds=1\"]\n[cells.policy_sets]\n\
         dead = [{:?}, \"persuadable\", \"persuadable\"]\n",
        seat(&flaky.endpoint()),
        seat(&dead),
    );
    let dir = Dir::with_sweep(&text);
    let server = NatsServer::start();
    let url = server.client_url();
    let w = worker(&url, 8, &[]);
    let out = dir.path("out.jsonl");
    let args = ["submit", &dir.sweep(), "--watch", "--out", out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    assert_ok(&coordinator(&args, &[]).await);
    let got = records(&out);
    assert_eq!(got.len(), 12, "every episode, none lost");
    let (flaky_records, dead_records): (Vec<Value>, Vec<Value>) =
        got.into_iter().partition(|r| r["policy_set"] == "flaky");
    assert_eq!((flaky_records.len(), dead_records.len()), (6, 6));
    assert!(total(&flaky_records, "transport_errors") > 0);
    assert!(total(&flaky_records, "calls") > total(&flaky_records, "decisions"), "failures were retried");
    assert_eq!(total(&dead_records, "fallbacks"), total(&dead_records, "decisions"), "a dead endpoint falls back");
    assert_eq!(total(&dead_records, "calls"), 2 * total(&dead_records, "decisions"), "two attempts each");

    let text = worker_metrics(&w).await;
    for kind in ["malformed", "timeout", "connect"] {
        let n = metric_sum(&text, telemetry::LLM_FAILURES_TOTAL, &[("kind", kind)]).unwrap_or(0.0);
        assert!(n > 0.0, "failures of kind {kind} are counted: {text}");
    }
    let fallbacks = metric_sum(&text, telemetry::LLM_FALLBACKS_TOTAL, &[("game", "trolley")]);
    assert_eq!(fallbacks, Some(total(&dead_records, "fallbacks") as f64));
}

/// A model whose every answer the game refuses (an action no game has): `run` exits 1, and
/// its message names, per cell, the failure kind `invalid_output` and the first refusal,
/// with the illegal action, not only how many decisions fell back. In both collect modes: a
/// summary cell's aggregate keeps the first refusal too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_answers_fail_the_sweep_naming_invalid_output_and_the_illegal_action() {
    let model = LlmServer::start(Behaviour { illegal_every: Some(1), ..Behaviour::default() });
    let dir = Dir::with_sweep(&sweep("llm-refused", &model.endpoint(), 3, "&max_retries=1"));
    for mode in ["records", "summary"] {
        let out = dir.path(&format!("{mode}.jsonl"));
        let args = ["run", &dir.sweep(), "--out", out.to_str().unwrap(), "--quiet", "--collect", mode];
        let run = coordinator(&args, &[]).await;
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{mode}: {stderr}");
        for cell in ["deception quick_4p1i × llm_vs_heuristic", "trolley trio_3p?max_rounds=1 × llm_and_persuadable"]
        {
            let at = stderr.rfind(cell).unwrap_or_else(|| panic!("{mode}: {cell} is named: {stderr}"));
            let said = stderr[at..].lines().take(3).collect::<Vec<_>>().join("\n");
            assert!(said.contains("refused by the game as invalid_output, the first: "), "{mode}: {said}");
            assert!(said.contains("dance"), "{mode}: the illegal action is named: {said}");
        }
    }
}
