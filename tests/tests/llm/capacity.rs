//! Episodes waiting on a model do not hold a core: a worker with `--concurrency 1` keeps many
//! model calls in flight on its I/O threads (`--llm-concurrency`), a scripted sweep submitted
//! meanwhile is played on its play thread while those calls wait, and jobs with `llm` seats
//! that run longer than the ack wait are kept alive by in-progress acks (no redelivery).

use std::sync::atomic::Ordering;
use std::time::Duration;

use simfleet::nats::topology::{ensure, TopologyConfig};
use simfleet_tests::llm_server::{Behaviour, LlmServer};
use simfleet_tests::scrape::{http_get, metric_sum};
use simfleet_tests::{wait_until, NatsServer};
use worker::telemetry;

use super::*;

const BB_SWEEP: &str = r#"
name = "scripted-beside-llm"
seeds = { start = 0, count = 40 }
episodes_per_job = 10

[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_calls_in_flight_on_one_play_thread_while_scripted_jobs_flow() {
    let model = LlmServer::start(Behaviour { delay: Duration::from_millis(400), ..Behaviour::default() });
    let server = NatsServer::start();
    let url = server.client_url();
    // A short ack wait: the jobs with llm seats run longer, kept alive by in-progress acks.
    let js = async_nats::jetstream::new(async_nats::connect(&url).await.unwrap());
    ensure(&js, &TopologyConfig { ack_wait: Duration::from_secs(2), ..TopologyConfig::default() }).await.unwrap();
    let w = worker(&url, 16, &[("SIMFLEET_WORKER__ACK_WAIT_SECONDS", "2")]);
    let addr = w.metrics_addr(TIMEOUT).await;

    // Every deception seat an llm seat: episodes of a dozen calls or more, several seconds each.
    let seat = format!("\"llm?model=stand-in&endpoint={}\"", model.endpoint());
    let llm = Dir::with_sweep(&format!(
        "name = \"llm-capacity\"\nseeds = {{ start = 0, count = 24 }}\nepisodes_per_job = 3\n\n[[cells]]\n\
         game = \"deception\"\nscenarios = [\"quick_4p1i\"]\n[cells.policy_sets]\nall_llm = [{seat}, {seat}, {seat}, {seat}]\n"
    ));
    let llm_out = llm.path("llm.jsonl");
    let llm_args =
        ["submit", &llm.sweep(), "--watch", "--out", llm_out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    let llm_watch = tokio::spawn({
        let args: Vec<String> = llm_args.iter().map(|s| s.to_string()).collect();
        async move { coordinator(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]).await }
    });
    // 24 episodes in 8 jobs: 16 I/O threads keep well over one call in flight.
    wait_until("a dozen model calls in flight at once", TIMEOUT, || async {
        (model.counters().peak_in_flight.load(Ordering::SeqCst) >= 12).then_some(())
    })
    .await;

    // A scripted sweep now: played on the play thread while the model calls wait.
    let bb = Dir::with_sweep(BB_SWEEP);
    let bb_out = bb.path("bb.jsonl");
    let args = ["submit", &bb.sweep(), "--watch", "--out", bb_out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    assert_ok(&coordinator(&args, &[]).await);
    assert_eq!(records(&bb_out).len(), 40);
    assert!(model.counters().in_flight.load(Ordering::SeqCst) > 0, "the llm episodes were still waiting on the model");

    let out = within("the llm sweep", TIMEOUT, llm_watch).await.unwrap();
    assert_ok(&out);
    let got = records(&llm_out);
    assert_eq!(got.len(), 24);
    assert_eq!(total(&got, "calls"), model.requests(), "every call once: no job was played twice");

    let text = http_get(addr, "/metrics").await.unwrap().1;
    assert_eq!(metric_sum(&text, telemetry::JOB_REDELIVERIES_TOTAL, &[]), Some(0.0), "{text}");
    let deception = [("game", "deception")];
    let jobs = metric_sum(&text, &format!("{}_count", telemetry::JOB_DURATION_SECONDS), &deception).unwrap();
    let quick = metric_sum(
        &text,
        &format!("{}_bucket", telemetry::JOB_DURATION_SECONDS),
        &[("game", "deception"), ("le", "2.5")],
    )
    .unwrap();
    assert!(quick < jobs, "some jobs ran longer than the 2 s ack wait ({quick} of {jobs} took under 2.5 s)");
}
