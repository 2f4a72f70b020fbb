//! The dashboards against real data: a real sweep on a real nats-server, played by the real
//! worker binary and watched by the real coordinator binary, both scraped by a real
//! Prometheus. Every target expression of every panel (and every variable's query) of every
//! dashboard in `dashboards/` must return data through Prometheus's HTTP API, and the episode
//! counts Prometheus reports must match the results file. The sweep has a cell with an `llm`
//! seat against the stand-in model server (which answers 429 to some calls), and the worker a
//! configured token price, so the LLM row's panels have their data too.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use coordinator::fleet::{self, Fleet, FleetSettings};
use coordinator::sweep::Sweep;
use indicatif::ProgressBar;
use simfleet_tests::llm_server::{Behaviour, LlmServer};
use simfleet_tests::prometheus::{free_port, Prometheus};
use simfleet_tests::{coordinator_binary, wait_until, NatsServer, WorkerProcess};

const TIMEOUT: Duration = Duration::from_secs(120);

const SWEEP: &str = r#"
name = "dashboards"
seeds = { start = 0, count = 400 }
episodes_per_job = 100

[[cells]]
game = "bucket_brigade"
scenarios = ["default", "hard", "easy?reward_model=reference"]
[cells.policy_sets]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
random = ["random", "random", "random", "random"]
"#;

/// The `llm` cell, appended with the stand-in's endpoint: 400 short deception episodes, one
/// `llm` seat each, in jobs of 100 like the rest.
fn llm_cell(endpoint: &str) -> String {
    format!(
        "\n[[cells]]\ngame = \"deception\"\nscenarios = [\"quick_4p1i?max_ticks=2\"]\n[cells.policy_sets]\n\
         llm_seat = [\"llm?model=stand-in&endpoint={endpoint}\", \"heuristic\", \"heuristic\", \"heuristic\"]\n"
    )
}

/// The worker's config: a price for the stand-in model, for the cost panels.
const WORKER_TOML: &str = "[[llm_prices]]\nmodel = \"stand-in\"\nprompt_per_1k = 0.15\ncompletion_per_1k = 0.6\n";

/// The substitutions of dashboards/README.md ("Variable substitution contract"), longest first.
const SUBSTITUTIONS: [(&str, &str); 11] = [
    ("${datasource}", ""),
    ("${policy_set}", ".*"),
    ("${scenario}", ".*"),
    ("${game}", "bucket_brigade"),
    ("$__rate_interval", "1m"),
    ("$datasource", ""),
    ("$policy_set", ".*"),
    ("$__interval", "15s"),
    ("$scenario", ".*"),
    ("$__range", "5m"),
    ("$game", "bucket_brigade"),
];

fn substitute(expr: &str) -> String {
    SUBSTITUTIONS.iter().fold(expr.to_string(), |e, (var, value)| e.replace(var, value))
}

/// Every (where, expression) of a dashboard: panel targets, and the selector inside each
/// `label_values(SELECTOR, label)` variable query.
fn expressions(path: &Path) -> Vec<(String, String)> {
    let d: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let mut out = Vec::new();
    for panel in d["panels"].as_array().unwrap() {
        for (i, target) in panel["targets"].as_array().into_iter().flatten().enumerate() {
            if let Some(expr) = target["expr"].as_str() {
                out.push((format!("{name}: panel {:?} target {i}", panel["title"]), expr.to_string()));
            }
        }
    }
    for var in d["templating"]["list"].as_array().unwrap() {
        let query = var["query"]["query"].as_str().or(var["query"].as_str()).unwrap_or_default();
        if let Some(inner) = query.strip_prefix("label_values(").and_then(|q| q.strip_suffix(')')) {
            let selector = inner.rsplit_once(',').map_or(inner, |(s, _)| s).trim();
            out.push((format!("{name}: variable {}", var["name"]), selector.to_string()));
        }
    }
    out
}

fn addr(port: u16) -> SocketAddr {
    format!("127.0.0.1:{port}").parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_panel_returns_data_and_counts_match_the_results() {
    let server = NatsServer::start();
    let url = server.client_url();
    let (worker_port, coordinator_port) = (free_port(), free_port());
    let prom =
        Prometheus::start(&[("worker", vec![addr(worker_port)]), ("coordinator", vec![addr(coordinator_port)])]).await;

    let model =
        LlmServer::start(Behaviour { rate_limit_every: Some(5), retry_after_s: Some(0), ..Behaviour::default() });
    let text = format!("{SWEEP}{}", llm_cell(&model.endpoint()));
    let sweep = Sweep::parse(&text, "dashboards.toml").unwrap();
    let f = Fleet::connect(&FleetSettings::new(&url)).await.unwrap();
    fleet::submit::submit(&f, &sweep, &text, &ProgressBar::hidden()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let worker_toml = dir.path().join("worker.toml");
    std::fs::write(&worker_toml, WORKER_TOML).unwrap();
    let out = dir.path().join("results.jsonl");
    let mut watch = Command::new(coordinator_binary())
        .args(["watch", &sweep.id, "--quiet", "--nats-url", &url])
        .arg("--metrics-listen")
        .arg(addr(coordinator_port).to_string())
        .arg("--out")
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The watcher's progress gauge is scraped before any job is played...
    let total = sweep.job_count() as f64;
    wait_until("Prometheus to scrape the coordinator's sweep gauge", TIMEOUT, || async {
        (prom.sum(r#"simfleet_sweep_jobs{state="total"}"#).await == Some(total)).then_some(())
    })
    .await;
    // ...then a worker plays the sweep and the watcher collects it.
    let _worker = WorkerProcess::spawn(
        &[
            "--nats-url",
            &url,
            "--metrics-listen",
            &addr(worker_port).to_string(),
            "--concurrency",
            "2",
            "--config",
            worker_toml.to_str().unwrap(),
        ],
        &[],
    );
    let status = wait_until("the watch to finish", TIMEOUT, || {
        let status = watch.try_wait().unwrap();
        async move { status }
    })
    .await;
    assert!(status.success(), "watch exited with {status}");

    // What the results file says.
    let lines = std::fs::read_to_string(&out).unwrap();
    let mut outcomes: BTreeMap<String, f64> = BTreeMap::new();
    for line in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        *outcomes.entry(v["outcome"].as_str().unwrap().to_string()).or_default() += 1.0;
    }
    let episodes = lines.lines().count() as f64;
    assert_eq!(episodes, sweep.episode_count() as f64);

    // Prometheus has the final counts from two scrapes or more (rates need two samples).
    wait_until("Prometheus to scrape the final counts twice", TIMEOUT, || async {
        let counted = prom.sum("sum(simfleet_episodes_total)").await;
        let samples = prom.sum("min(count_over_time(simfleet_episodes_total[1m]))").await;
        (counted == Some(episodes) && samples >= Some(2.0)).then_some(())
    })
    .await;
    for (outcome, n) in &outcomes {
        let q = format!(r#"sum(simfleet_episodes_total{{outcome="{outcome}"}})"#);
        assert_eq!(prom.sum(&q).await, Some(*n), "episodes with outcome {outcome}");
    }
    assert_eq!(prom.sum(r#"sum(simfleet_jobs_total{status="ok"})"#).await, Some(total), "jobs ok");
    // docs/metrics.md's "LLM seats" section is what this worker, which played `llm` seats with a
    // price configured, serves.
    let (_, exposition) = simfleet_tests::scrape::http_get(addr(worker_port), "/metrics").await.expect("GET /metrics");
    let wrong = crate::docs::metrics::llm_families_differ(&exposition);
    assert!(wrong.is_empty(), "docs/metrics.md is out of date:\n{}", wrong.join("\n"));
    // The coordinator has exited: its gauge is read back as the dashboards do.
    let done = r#"sum(last_over_time(simfleet_sweep_jobs{state="done"}[5m]))"#;
    assert_eq!(prom.sum(done).await, Some(total), "the sweep gauge's final count");
    assert_eq!(
        prom.sum("sum(simfleet_bucket_brigade_episode_team_reward_count)").await,
        Some(episodes - 400.0),
        "the team reward histogram counts every Bucket Brigade episode"
    );
    // The LLM row's counts are the records' and the stand-in's.
    let llm_seat = |key: &str| -> f64 {
        lines
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter_map(|v| v["stats"]["llm"]["0"][key].as_u64())
            .sum::<u64>() as f64
    };
    let calls = model.requests() as f64;
    assert_eq!(llm_seat("calls"), calls);
    assert_eq!(prom.sum("sum(simfleet_llm_calls_total)").await, Some(calls), "LLM calls");
    assert_eq!(
        prom.sum("sum(simfleet_llm_prompt_tokens_total)").await,
        Some(llm_seat("prompt_tokens")),
        "prompt tokens"
    );
    assert_eq!(
        prom.sum(r#"sum(simfleet_llm_failures_total{kind="rate_limited"})"#).await,
        Some(llm_seat("rate_limited"))
    );

    // Every expression of every dashboard returns data.
    let dashboards = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dashboards");
    let mut checked = 0;
    let mut empty = Vec::new();
    for entry in std::fs::read_dir(&dashboards).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        for (place, expr) in expressions(&path) {
            let promql = substitute(&expr);
            assert!(!promql.contains('$'), "{place}: a variable outside the contract in {expr}");
            match prom.query(&promql).await {
                Ok(result) if !result.is_empty() => checked += 1,
                Ok(_) => empty.push(format!("{place}: no data for {promql}")),
                Err(e) => empty.push(format!("{place}: {e} for {promql}")),
            }
        }
    }
    assert!(empty.is_empty(), "panels without data:\n{}", empty.join("\n"));
    assert!(checked >= 59, "only {checked} expressions found in {}", dashboards.display());
}
