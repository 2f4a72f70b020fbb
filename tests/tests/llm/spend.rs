//! Knowing what the model did and capping it: a sweep whose model refuses every call exits 1
//! naming the cells and the error (`run`, and `submit --watch` on a fleet), and `llm_max_calls`
//! stops `run` from starting model jobs once the sweep's calls reach it, keeping what was
//! played; on a fleet the workers reserve each model job's calls against it first, and a job
//! whose reservation fails goes back to the queue.

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
    assert!(got.len() < 400 && got.len().is_multiple_of(20), "{} records: whole jobs, not all of them", got.len());
    let per_job = got.chunks(20).map(|job| total(job, "calls")).max().unwrap();
    // Before starting a model job a worker reserves its expected calls (20 episodes × 1 model
    // seat × 5 decisions = 100) in the counter `<sweep>.llm_calls`, and refuses the job once the
    // counter reached 500: whatever the timing, at most 500 + 100 calls are reserved, and every
    // job played holds its reservation.
    let (_client, js) = simfleet_tests::connect(&url).await;
    let kv = js.get_key_value(simfleet::names::SWEEPS_BUCKET).await.unwrap();
    let counter = kv.get(simfleet::names::llm_calls_key(&id)).await.unwrap().expect("the reservation counter");
    let reserved: u64 = String::from_utf8_lossy(&counter).parse().unwrap();
    assert!((500..600).contains(&reserved), "{reserved} calls reserved");
    assert!(reserved >= 100 * (got.len() as u64 / 20), "{reserved} reserved for {} jobs played", got.len() / 20);
    assert!(calls <= 500 + per_job, "{calls} calls, {per_job} at most per job");
    eprintln!("llm_max_calls = 500 on two workers: {calls} calls made, {per_job} at most per job, {reserved} reserved");
    let entry: simfleet::names::SweepEntry =
        serde_json::from_slice(&kv.get(&id).await.unwrap().expect("the sweep entry")).unwrap();
    assert_eq!(entry.status, simfleet::names::SweepStatus::Cancelled, "the sweep ends saying it was cut short");
    // The counter sits in the sweeps bucket, but `status` lists sweeps only.
    let listed = coordinator(&["status", "--nats-url", &url], &[]).await;
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains(&id) && !listed.contains("llm_calls"), "{listed}");
    // Every job was answered (played, or cancelled once the cap was reached), and the played ones
    // by both workers.
    let results = simfleet_tests::results::collect_results(&js, &id, 20, TIMEOUT).await;
    let players: std::collections::BTreeSet<&str> =
        results.values().filter(|r| r.error.is_none()).map(|r| r.worker.as_str()).collect();
    assert_eq!(players.len(), 2, "both workers played: {players:?}");
    let cancelled = results.values().filter(|r| r.error.as_ref().is_some_and(|e| e.kind.as_str() == "cancelled"));
    assert_eq!(cancelled.count() + got.len() / 20, 20, "every job not played was answered cancelled");
    let refused = results.values().filter_map(|r| r.error.as_ref()).find(|e| e.to_string().contains("llm_max_calls"));
    assert!(
        refused.is_some(),
        "a job refused by the counter says why: {:?}",
        results.values().find_map(|r| r.error.as_ref())
    );
}

/// The stand-in reports 100 prompt and 20 completion tokens a call: at these prices a call
/// costs $0.10 + $0.10.
const PRICES: &str = "[[llm_prices]]\nmodel = \"stand-in\"\nprompt_per_1k = 1.0\ncompletion_per_1k = 5.0\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_max_dollars_stops_run_once_the_measured_spend_reaches_it_and_says_what_it_will_cost() {
    let model = LlmServer::start(Behaviour::default());
    let llm = format!("llm?model=stand-in&endpoint={}&max_tokens=50", model.endpoint());
    let text = format!(
        "name = \"llm-dollars\"\nseeds = {{ start = 0, count = 20 }}\nepisodes_per_job = 2\nllm_max_dollars = 2.0\n\n\
         [[cells]]\ngame = \"deception\"\nscenarios = [\"quick_4p1i\"]\n[cells.policy_sets]\n\
         capped = [{llm:?}, \"heuristic\", \"heuristic\", \"heuristic\"]\n\n{PRICES}"
    );
    let dir = Dir::with_sweep(&text);
    let out = dir.path("run.jsonl");
    let run =
        coordinator(&["run", &dir.sweep(), "--out", out.to_str().unwrap(), "--quiet", "--threads", "1"], &[]).await;
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "jobs were left unplayed: {stdout}");
    assert!(stdout.contains("the sweep's llm_max_dollars of $2 was reached"), "{stdout}");
    // Before playing: 100 calls, each ≈ 750 prompt tokens ($0.75) and 50 completion tokens
    // ($0.25): ≈ $100; at most 300 calls of 1000 + 50 tokens: $375.
    assert!(
        stderr.contains("expect ≈ 100 model calls (300 at most with every retry), ≈ 75000 prompt tokens"),
        "{stderr}"
    );
    assert!(stderr.contains("≈ $100.00 (at most $375.00)"), "{stderr}");
    assert!(stderr.contains("llm_max_dollars = 2 stops the sweep's model jobs there"), "{stderr}");
    let got = records(&out);
    let calls = total(&got, "calls");
    assert_eq!(calls, model.requests(), "every call made is in the records kept");
    let dollars = |records: &[serde_json::Value]| {
        (total(records, "prompt_tokens") as f64 * 1.0 + total(records, "completion_tokens") as f64 * 5.0) / 1000.0
    };
    let per_job = got.chunks(2).map(dollars).fold(0.0, f64::max);
    assert!(
        dollars(&got) >= 2.0 && dollars(&got) < 2.0 + per_job,
        "${} spent, ${per_job} at most per job",
        dollars(&got)
    );
    assert!(got.len() < 20 && got.len().is_multiple_of(2), "{} records: whole jobs, not all of them", got.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spend_settings_in_the_sweep_file_are_checked_naming_the_line_and_field() {
    let llm = "llm?model=stand-in&endpoint=http://127.0.0.1:9/v1";
    let cell = format!(
        "[[cells]]\ngame = \"deception\"\nscenarios = [\"quick_4p1i\"]\n[cells.policy_sets]\n\
         m = [{llm:?}, \"heuristic\", \"heuristic\", \"heuristic\"]\n"
    );
    let head = "name = \"bad-spend\"\nseeds = { start = 0, count = 2 }\n";
    for (text, wanted) in [
        // No price for the model whose spend is capped: line 3, the limit; a limit below 0.
        (format!("{head}llm_max_dollars = 5.0\n{cell}"), "sweep.toml:3: llm_max_dollars"),
        (format!("{head}llm_max_dollars = -1.0\n{cell}"), "sweep.toml:3: llm_max_dollars"),
        (
            format!(
                "{head}{cell}\n[[llm_prices]]\nmodel = \"stand-in\"\nprompt_per_1k = -0.5\ncompletion_per_1k = 1\n"
            ),
            "sweep.toml:11: llm_prices[0].prompt_per_1k",
        ),
    ] {
        let dir = Dir::with_sweep(&text);
        let out = dir.path("run.jsonl");
        let run = coordinator(&["run", &dir.sweep(), "--out", out.to_str().unwrap(), "--quiet"], &[]).await;
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{text}\n{stderr}");
        assert!(stderr.contains("sweep.toml") && stderr.contains(wanted), "{wanted}: {stderr}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_600_seed_model_sweep_without_episodes_per_job_spreads_over_both_workers_of_a_default_server() {
    // The sweep: deception, one llm seat, 600 seeds, no episodes_per_job, on a
    // nats-server with its default settings (1 MB max_payload) and two worker processes.
    let model = LlmServer::start(Behaviour { delay: Duration::from_millis(20), ..Behaviour::default() });
    let llm = format!("llm?model=stand-in&endpoint={}", model.endpoint());
    let text = format!(
        "name = \"llm-600\"\nseeds = {{ start = 0, count = 600 }}\n\n\
         [[cells]]\ngame = \"deception\"\nscenarios = [\"quick_4p1i\"]\n[cells.policy_sets]\n\
         one_model = [{llm:?}, \"heuristic\", \"heuristic\", \"heuristic\"]\n"
    );
    let sweep = coordinator::sweep::Sweep::parse(&text, "600.toml").unwrap();
    assert!(sweep.job_count() > 10, "{} jobs", sweep.job_count());
    let dir = Dir::with_sweep(&text);
    let server = NatsServer::start();
    let url = server.client_url();
    let _workers = [worker(&url, 8, &[]), worker(&url, 8, &[])];
    let out = dir.path("fleet.jsonl");
    let args = ["submit", &dir.sweep(), "--watch", "--out", out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    let watched = coordinator(&args, &[]).await;
    assert_ok(&watched);
    let got = records(&out);
    assert_eq!(got.len(), 600, "every episode kept");
    assert_eq!(total(&got, "calls"), model.requests(), "every call made is in the records");
    let (_client, js) = simfleet_tests::connect(&url).await;
    let results = simfleet_tests::results::collect_results(&js, &sweep.id, sweep.job_count() as usize, TIMEOUT).await;
    assert!(results.values().all(|r| r.error.is_none()));
    let players: std::collections::BTreeSet<&str> = results.values().map(|r| r.worker.as_str()).collect();
    assert_eq!(players.len(), 2, "both workers played: {players:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summary_cells_show_their_fallbacks_and_fail_like_records_cells() {
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let text = format!("collect = \"summary\"\n{}", sweep("llm-dead-summary", &dead, 3, "&max_retries=0"));
    let dir = Dir::with_sweep(&text);
    let out = dir.path("cells.jsonl");
    let run = coordinator(&["run", &dir.sweep(), "--out", out.to_str().unwrap(), "--quiet"], &[]).await;
    let stderr = String::from_utf8_lossy(&run.stderr);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("2 cell(s) fell back") && stderr.contains("failed with connect"), "{stderr}");
    assert!(stderr.contains("deception quick_4p1i × llm_vs_heuristic"), "{stderr}");
    let table = "deception quick_4p1i × llm_vs_heuristic: ";
    assert!(stdout.contains("model calls per cell with llm seats") && stdout.contains(table), "{stdout}");
    assert!(stdout.contains("fell back (100.0%)"), "{stdout}");
    // `summary` of the summary file shows the same per-cell counts.
    let summary = coordinator(&["summary", out.to_str().unwrap()], &[]).await;
    assert_ok(&summary);
    let shown = String::from_utf8_lossy(&summary.stdout);
    let line = |text: &str| text.lines().find(|l| l.contains(table)).map(str::to_string);
    assert!(line(&shown).is_some_and(|l| l.contains("failed") && l.contains("(100.0%)")), "{shown}");
    assert_eq!(line(&shown), line(&stdout), "the same counts after the sweep and from the file");

    // The same sweep on the fleet: `submit --watch` fails it too.
    let server = NatsServer::start();
    let url = server.client_url();
    let _worker = worker(&url, 4, &[]);
    let fleet_out = dir.path("fleet-cells.jsonl");
    let args = ["submit", &dir.sweep(), "--watch", "--out", fleet_out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    let watched = coordinator(&args, &[]).await;
    let stderr = String::from_utf8_lossy(&watched.stderr);
    assert_eq!(watched.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("2 cell(s) fell back") && stderr.contains("failed with connect"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_fleet_llm_max_dollars_stops_the_sweep_at_its_measured_spend() {
    let model = LlmServer::start(Behaviour { delay: Duration::from_millis(50), ..Behaviour::default() });
    let llm = format!("llm?model=stand-in&endpoint={}", model.endpoint());
    let text = format!(
        "name = \"llm-fleet-dollars\"\nseeds = {{ start = 0, count = 100 }}\nepisodes_per_job = 5\nllm_max_dollars = 4.0\n\n\
         [[cells]]\ngame = \"deception\"\nscenarios = [\"quick_4p1i\"]\n[cells.policy_sets]\n\
         capped = [{llm:?}, \"heuristic\", \"heuristic\", \"heuristic\"]\n\n{PRICES}"
    );
    let dir = Dir::with_sweep(&text);
    let server = NatsServer::start();
    let url = server.client_url();
    let _worker = worker(&url, 2, &[]);
    let out = dir.path("fleet.jsonl");
    let args = ["submit", &dir.sweep(), "--watch", "--out", out.to_str().unwrap(), "--quiet", "--nats-url", &url];
    let watched = coordinator(&args, &[]).await;
    let stdout = String::from_utf8_lossy(&watched.stdout);
    assert_eq!(watched.status.code(), Some(1), "jobs were left unplayed: {stdout}");
    assert!(stdout.contains("the sweep's llm_max_dollars of $4 was reached"), "{stdout}");
    assert!(stdout.contains("every episode played is kept"), "{stdout}");
    let got = records(&out);
    assert_eq!(total(&got, "calls"), model.requests(), "every call made is in the records kept");
    // $0.20 a call: $4 is 20 calls.
    assert!(total(&got, "calls") >= 20 && got.len() < 100, "{} calls, {} records", total(&got, "calls"), got.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_job_whose_calls_cannot_be_reserved_goes_back_to_the_queue_and_plays_once_they_can() {
    let model = LlmServer::start(Behaviour::default());
    let server = NatsServer::start();
    let url = server.client_url();
    let (client, js) = simfleet_tests::connect(&url).await;
    let fleet = coordinator::fleet::Fleet::from_client(client).await.unwrap();
    let sweep = simfleet_tests::jobs::unique_sweep("reserve");
    fleet
        .put_entry(&simfleet::names::SweepEntry {
            id: sweep.clone(),
            name: "reserve".into(),
            status: simfleet::names::SweepStatus::Submitted,
            priority: Default::default(),
            share: 1,
            jobs_total: 1,
            episodes_total: 2,
            jobs_done: 0,
            jobs_failed: 0,
            episodes_played: None,
            definition: String::new(),
            collect: None,
            published: None,
            llm_max_calls: Some(1000),
        })
        .await
        .unwrap();
    // A counter the worker cannot read as a number stands for a reservation that fails.
    let kv = &fleet.topology.sweeps;
    let key = simfleet::names::llm_calls_key(&sweep);
    kv.put(&key, "not a number".into()).await.unwrap();
    let llm = format!("llm?model=stand-in&endpoint={}", model.endpoint());
    let seats = vec![llm, "heuristic".into(), "heuristic".into(), "heuristic".into()];
    let mut job = simfleet_tests::jobs::bb_job(&sweep, 0, "quick_4p1i", "capped", seats, 2);
    job.game = "deception".into();
    simfleet_tests::jobs::publish_job(&js, &job).await;
    let _worker = worker(&url, 2, &[]);
    // Given back (a NAK), delivered again, and neither played nor answered meanwhile.
    let stream = js.get_stream(simfleet::names::JOBS_STREAM).await.unwrap();
    let consumer = simfleet::names::sweep_consumer_name(&sweep);
    simfleet_tests::wait_until("the job delivered a second time", TIMEOUT, || {
        let stream = stream.clone();
        let consumer = consumer.clone();
        async move {
            let mut c: async_nats::jetstream::consumer::PullConsumer = stream.get_consumer(&consumer).await.ok()?;
            (c.info().await.ok()?.num_redelivered >= 1).then_some(())
        }
    })
    .await;
    assert_eq!(model.requests(), 0, "no call made without a reservation");
    assert_eq!(simfleet_tests::results::result_messages(&js, &sweep).await, 0, "the job was not answered");
    // Once the counter can be read, the job reserves its 2 × 5 calls and plays.
    kv.put(&key, "0".into()).await.unwrap();
    let results = simfleet_tests::results::collect_results(&js, &sweep, 1, TIMEOUT).await;
    assert!(results[&0].error.is_none(), "{:?}", results[&0].error);
    assert_eq!(kv.get(&key).await.unwrap().as_deref(), Some(&b"10"[..]));
    assert!(model.requests() > 0);
}
