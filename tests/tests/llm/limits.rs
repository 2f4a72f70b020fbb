//! A seat's `rpm` is the endpoint's limit for the whole fleet, split across
//! `llm_fleet_workers`: a worker told it is one of two allows half, and the requests reaching
//! the model server never outrun that share (a bucket of one second's worth, refilled
//! continuously), however many episodes wait on it.

use simfleet_tests::llm_server::{Behaviour, LlmServer};
use simfleet_tests::NatsServer;

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_per_minute_hold_for_the_worker_s_share() {
    let model = LlmServer::start(Behaviour::default());
    // 600 a minute for the fleet, two workers: 5 a second for this one.
    let dir = Dir::with_sweep(&sweep("llm-rpm", &model.endpoint(), 6, "&rpm=600"));
    let server = NatsServer::start();
    let url = server.client_url();
    let _worker = worker(&url, 8, &[("SIMFLEET_WORKER__LLM_FLEET_WORKERS", "2")]);
    let out = dir.path("out.jsonl");
    let args = ["submit", &dir.sweep(), "--watch", "--out", out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    assert_ok(&coordinator(&args, &[]).await);
    let got = records(&out);
    assert_eq!((got.len(), total(&got, "fallbacks")), (12, 0), "paced, not refused");

    let arrivals = model.counters().arrivals.lock().unwrap().clone();
    assert!(arrivals.len() >= 20, "enough calls to see the pace: {}", arrivals.len());
    // Any stretch of requests i..=j: at most a burst of 5 plus 5 per second in between (and one
    // for rounding), however the calls of the episodes interleave.
    for i in 0..arrivals.len() {
        for j in i..arrivals.len() {
            let span = arrivals[j].duration_since(arrivals[i]).as_secs_f64();
            let allowed = 5.0 + 5.0 * span + 1.0;
            assert!((j - i + 1) as f64 <= allowed, "{} requests in {span:.2} s", j - i + 1);
        }
    }
}
