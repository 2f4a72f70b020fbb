//! Knowing what the model did and capping it: a sweep whose model refuses every call exits 1
//! naming the cells and the error (`run`, and `submit --watch` on a fleet), and `llm_max_calls`
//! stops `run` from starting model jobs once the sweep's calls reach it, keeping what was
//! played.

use std::time::Duration;

use simfleet_tests::llm_server::{Behaviour, LlmServer};
use simfleet_tests::NatsServer;

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_whose_model_refuses_every_call_exits_1_naming_the_cells_and_the_error() {
    // A port nobody listens on: every call is refused.
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let dir = Dir::with_sweep(&sweep("llm-dead", &dead, 3, "&max_retries=0"));
    let out = dir.path("run.jsonl");
    let run = coordinator(&["run", &dir.sweep(), "--out", out.to_str().unwrap(), "--quiet"], &[]).await;
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert_eq!(records(&out).len(), 6, "every episode played (by the fallback) and kept");
    assert!(stderr.contains("2 cell(s) fell back") && stderr.contains("more than 5.0%"), "{stderr}");
    assert!(stderr.contains("deception quick_4p1i × llm_vs_heuristic"), "{stderr}");
    assert!(stderr.contains("trolley trio_3p?max_rounds=1 × llm_and_persuadable"), "{stderr}");
    assert!(stderr.contains("failed with connect"), "the error, by kind: {stderr}");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("model calls per cell with llm seats") && stdout.contains("(100.0%)"), "{stdout}");

    // The same on the fleet, through `submit --watch`.
    let server = NatsServer::start();
    let url = server.client_url();
    let _worker = worker(&url, 4, &[]);
    let fleet_out = dir.path("fleet.jsonl");
    let args = ["submit", &dir.sweep(), "--watch", "--out", fleet_out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    let watched = coordinator(&args, &[]).await;
    let stderr = String::from_utf8_lossy(&watched.stderr);
    assert_eq!(watched.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("2 cell(s) fell back") && stderr.contains("failed with connect"), "{stderr}");

    // The knob: a sweep that accepts every decision falling back passes.
    let lenient =
        Dir::with_sweep(&format!("llm_max_fallback_share = 1.0\n{}", sweep("llm-dead", &dead, 3, "&max_retries=0")));
    let out = lenient.path("run.jsonl");
    assert_ok(&coordinator(&["run", &lenient.sweep(), "--out", out.to_str().unwrap(), "--quiet"], &[]).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_max_calls_stops_run_within_one_job_and_keeps_what_was_played() {
    let model = LlmServer::start(Behaviour::default());
    let llm = format!("llm?model=stand-in&endpoint={}", model.endpoint());
    let text = format!(
        "name = \"llm-cap\"\nseeds = {{ start = 0, count = 20 }}\nepisodes_per_job = 2\nllm_max_calls = 10\n\n\
         [[cells]]\ngame = \"deception\"\nscenarios = [\"quick_4p1i\"]\n[cells.policy_sets]\n\
         capped = [{llm:?}, \"heuristic\", \"heuristic\", \"heuristic\"]\n"
    );
    let dir = Dir::with_sweep(&text);
    let out = dir.path("run.jsonl");
    let run =
        coordinator(&["run", &dir.sweep(), "--out", out.to_str().unwrap(), "--quiet", "--threads", "1"], &[]).await;
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "jobs were left unplayed: {stdout}");
    assert!(stdout.contains("llm_max_calls of 10 was reached"), "{stdout}");
    // Before playing, the expected calls: 20 episodes × 1 seat × 5 decisions.
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("deception quick_4p1i × capped: expect ≈ 100 model calls (300 at most"), "{stderr}");
    assert!(stderr.contains("llm_max_calls = 10 stops the sweep's model jobs there"), "{stderr}");
    let got = records(&out);
    let calls = total(&got, "calls");
    assert_eq!(calls, model.requests(), "every call made is in the records kept");
    assert!(calls >= 10, "{calls} calls: the cap is reached before the run stops");
    // One job of two episodes is the most that can start below the cap.
    let per_job = got.chunks(2).map(|job| total(job, "calls")).max().unwrap();
    assert!(calls < 10 + per_job, "{calls} calls, {per_job} at most per job");
    assert!(got.len() < 20 && got.len().is_multiple_of(2), "{} records: whole jobs, not all of them", got.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_fleet_of_two_llm_max_calls_stops_the_sweep_and_its_jobs_spread_over_both() {
    // A model answering in 0.3 s; 400 seeds of one llm seat and no episodes_per_job: 20 jobs.
    let model = LlmServer::start(Behaviour { delay: Duration::from_millis(300), ..Behaviour::default() });
    let llm = format!("llm?model=stand-in&endpoint={}", model.endpoint());
    let text = format!(
        "name = \"llm-fleet-cap\"\nseeds = {{ start = 0, count = 400 }}\nllm_max_calls = 500\n\n\
         [[cells]]\ngame = \"deception\"\nscenarios = [\"quick_4p1i\"]\n[cells.policy_sets]\n\
         capped = [{llm:?}, \"heuristic\", \"heuristic\", \"heuristic\"]\n"
    );
    let id = coordinator::sweep::Sweep::parse(&text, "cap.toml").unwrap().id;
    let dir = Dir::with_sweep(&text);
    let server = NatsServer::start();
    let url = server.client_url();
    let _workers = [worker(&url, 10, &[]), worker(&url, 10, &[])];
    let out = dir.path("fleet.jsonl");
    let args = ["submit", &dir.sweep(), "--watch", "--out", out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    let watched = coordinator(&args, &[]).await;
    let stdout = String::from_utf8_lossy(&watched.stdout);
    assert_eq!(watched.status.code(), Some(1), "jobs were left unplayed: {stdout}");
    assert!(stdout.contains("llm_max_calls of 500 was reached"), "{stdout}");
    let got = records(&out);
    let calls = total(&got, "calls");
    assert_eq!(calls, model.requests(), "every call made is in the records kept");
    assert!(calls >= 500 && got.len() < 400 && got.len().is_multiple_of(20), "{calls} calls, {} records", got.len());
    let per_job = got.chunks(20).map(|job| total(job, "calls")).max().unwrap();
    // Jobs a worker already holds are played (up to 2 × llm_concurrency episodes playing or
    // waiting, plus its prefetch), and it reads the sweep's state at most 2 s old.
    assert!(calls <= 500 + 8 * per_job, "{calls} calls, {per_job} at most per job");
    eprintln!("llm_max_calls = 500 on two workers: {calls} calls made, {per_job} at most per job");
    // Every job was answered (played, or cancelled once the cap was reached), and the played ones
    // by both workers.
    let (_client, js) = simfleet_tests::connect(&url).await;
    let results = simfleet_tests::results::collect_results(&js, &id, 20, TIMEOUT).await;
    let players: std::collections::BTreeSet<&str> =
        results.values().filter(|r| r.error.is_none()).map(|r| r.worker.as_str()).collect();
    assert_eq!(players.len(), 2, "both workers played: {players:?}");
}
