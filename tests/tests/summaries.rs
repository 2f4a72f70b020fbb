//! `collect = "summary"` end to end, through the CLI: the summary table of a summary sweep,
//! played in-process and by a fleet of real workers on a real nats-server, equals the table of
//! the same sweep's records, for all four games, and so does the `compare` table (the paired
//! differences summary jobs collect) and the report's forest plots; summary results stay small on
//! the stream; the table of a records file is the same from every format (Parquet read by column
//! projection).

use std::path::Path;
use std::time::Duration;

use coordinator::records::summary_file::{read_cells, CellRow};
use simfleet::aggregate::Moments;
use simfleet::names::RESULTS_STREAM;
use simfleet_tests::scrape::{http_get, metric_sum};
use simfleet_tests::{CoordinatorProcess, NatsServer, WorkerProcess};

const TIMEOUT: Duration = Duration::from_secs(300);

/// Two policy sets of every game, several jobs per cell so that aggregates are merged.
const SWEEP: &str = r#"
name = "four games"
seeds = { start = 5, count = 60 }
episodes_per_job = 25

[[cells]]
game = "bucket_brigade"
scenarios = ["default", "hard"]
[cells.policy_sets]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
mixed = ["firefighter", "free_rider", "hero", "liar"]

[[cells]]
game = "deception"
scenarios = ["classic_5p1i"]
[cells.policy_sets]
heuristic = ["heuristic", "heuristic", "heuristic", "heuristic", "heuristic"]
random = ["random", "random", "random", "random", "random"]

[[cells]]
game = "trolley"
scenarios = ["balanced_5p"]
[cells.policy_sets]
persuadable = ["persuadable", "persuadable", "persuadable", "persuadable", "persuadable"]
random = ["random", "random", "random", "random", "random"]

[[cells]]
game = "cogsguard"
scenarios = ["arena"]
episodes_per_job = 8
[cells.policy_sets]
balanced = ["pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2", "pinky?miner=2&scout=1&aligner=3&scrambler=2"]
random = ["random", "random", "random", "random", "random", "random", "random", "random"]
"#;

/// Runs `coordinator ARGS` to its end; returns its stdout, failing on a non-zero exit.
async fn coordinator(args: &[&str]) -> String {
    let mut c = CoordinatorProcess::spawn(args, &[]);
    let status = c.wait_exit(TIMEOUT).await;
    assert!(status.success(), "coordinator {args:?}: {status}\n{}\n{}", c.stdout(), c.stderr().join("\n"));
    c.stdout()
}

fn close(what: &str, a: f64, b: f64) {
    let ok = a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
    assert!(ok, "{what}: {a} and {b} differ by more than 1e-9 relative");
}

fn same_moments(what: &str, a: &Moments, b: &Moments) {
    assert_eq!(a.count, b.count, "{what}: count");
    close(&format!("{what}: mean"), a.mean, b.mean);
    close(&format!("{what}: m2"), a.m2, b.m2);
    assert_eq!((a.min, a.min_seed, a.max, a.max_seed), (b.min, b.min_seed, b.max, b.max_seed), "{what}: extremes");
}

/// Counts exactly, moments and intervals to 1e-9 relative, extremes and their seeds exactly.
fn same_cells(label: &str, got: &[CellRow], want: &[CellRow]) {
    assert_eq!(got.len(), want.len(), "{label}: cells");
    for (g, w) in got.iter().zip(want) {
        let cell = format!("{label} {} {} {}", g.game, g.scenario, g.policy_set);
        assert_eq!(
            (&g.sweep, &g.game, &g.engine_version, &g.scenario, &g.policy_set, g.jobs),
            (&w.sweep, &w.game, &w.engine_version, &w.scenario, &w.policy_set, w.jobs),
            "{cell}"
        );
        let (a, b) = (&g.aggregate, &w.aggregate);
        assert_eq!((a.episodes, &a.outcomes, a.truncated), (b.episodes, &b.outcomes, b.truncated), "{cell}");
        assert_eq!(a.histograms, b.histograms, "{cell}: histogram counts");
        assert_eq!((a.llm_episodes, a.llm_tokens), (b.llm_episodes, b.llm_tokens), "{cell}");
        same_moments(&format!("{cell} team_reward"), &a.team_reward, &b.team_reward);
        same_moments(&format!("{cell} length"), &a.length, &b.length);
        assert_eq!(a.agent_rewards.len(), b.agent_rewards.len(), "{cell}: seats");
        for (seat, (x, y)) in a.agent_rewards.iter().zip(&b.agent_rewards).enumerate() {
            same_moments(&format!("{cell} seat {seat}"), x, y);
        }
        assert_eq!(a.stats.keys().collect::<Vec<_>>(), b.stats.keys().collect::<Vec<_>>(), "{cell}: stats");
        for (key, x) in &a.stats {
            same_moments(&format!("{cell} stats.{key}"), x, &b.stats[key]);
        }
        close(&format!("{cell}: ci95"), g.team_reward_ci95.unwrap(), w.team_reward_ci95.unwrap());
        assert!(a.episodes > 0, "{cell}: no episodes");
    }
}

/// `coordinator compare FILE [--baseline B] --out …json`: the table printed, and the
/// comparisons written.
async fn compared(dir: &Path, file: &str, baseline: Option<&str>) -> (String, Vec<serde_json::Value>) {
    let json = path(dir, "compared.json");
    let mut args = vec!["compare", file, "--out", &json];
    if let Some(b) = baseline {
        args.extend(["--baseline", b]);
    }
    let printed = coordinator(&args).await;
    let table = printed.lines().filter(|l| !l.starts_with("comparisons written to")).collect::<Vec<_>>().join("\n");
    (table, serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap())
}

/// The tables string-equal; in the written comparisons, counts exact and every figure to 1e-9.
fn same_comparisons(label: &str, got: &(String, Vec<serde_json::Value>), want: &(String, Vec<serde_json::Value>)) {
    assert_eq!(got.0, want.0, "{label}: the compare table");
    assert_eq!(got.1.len(), want.1.len(), "{label}: comparisons");
    for (g, w) in got.1.iter().zip(&want.1) {
        let (g, w) = (g.as_object().unwrap(), w.as_object().unwrap());
        assert_eq!(g.keys().collect::<Vec<_>>(), w.keys().collect::<Vec<_>>(), "{label}");
        for (key, wv) in w {
            let gv = &g[key];
            match (gv.as_f64(), wv.as_f64()) {
                (Some(a), Some(b)) if !(gv.is_u64() && wv.is_u64()) => close(&format!("{label} {key}"), a, b),
                _ => assert_eq!(gv, wv, "{label} {key}"),
            }
        }
    }
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summary_tables_equal_the_records_tables_embedded_and_fleet() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("sweep.toml"), SWEEP).unwrap();
    let sweep = path(d, "sweep.toml");
    // The reference: every record, then the table and the cells they give.
    coordinator(&["run", &sweep, "--out", &path(d, "records.jsonl"), "--quiet", "--threads", "2"]).await;
    let records_table = coordinator(&["summary", &path(d, "records.jsonl"), "--out", &path(d, "reference.csv")]).await;
    let reference = read_cells(&d.join("reference.csv")).unwrap();
    assert_eq!(reference.len(), 10);
    for g in ["bucket_brigade", "deception", "trolley", "cogsguard"] {
        assert!(reference.iter().any(|c| c.game == g && c.aggregate.team_reward.count == 60), "{g}");
    }
    // Embedded, summary mode (Parquet), and its table read back from the file.
    let ran = coordinator(&[
        "run",
        &sweep,
        "--collect",
        "summary",
        "--out",
        &path(d, "embedded.parquet"),
        "--quiet",
        "--threads",
        "2",
    ])
    .await;
    assert!(ran.contains("600 episodes summarised into 10 cells"), "{ran}");
    let embedded = read_cells(&d.join("embedded.parquet")).unwrap();
    let summary_id = &embedded[0].sweep;
    assert_ne!(summary_id, &reference[0].sweep, "a summary sweep has its own id");
    // A summary cell group's policy sets play together, ⌈25 / 2⌉ seeds of each per job: every
    // game's two cells of a scenario share 5 jobs of 13 seeds (Pinky's 15 of ⌈8 / 2⌉).
    assert_eq!(embedded.iter().map(|r| r.jobs).collect::<Vec<_>>(), [5, 5, 5, 5, 5, 5, 5, 5, 15, 15]);
    let with_id = |rows: &[CellRow]| -> Vec<CellRow> {
        rows.iter()
            .zip(&embedded)
            .map(|(r, e)| CellRow { sweep: summary_id.clone(), jobs: e.jobs, ..r.clone() })
            .collect()
    };
    same_cells("embedded", &embedded, &with_id(&reference));
    let embedded_table = coordinator(&["summary", &path(d, "embedded.parquet")]).await;
    assert_eq!(embedded_table, records_table, "the summary table of the summary file");
    // The fleet: two workers, `submit --collect summary --watch`.
    let server = NatsServer::start();
    let url = server.client_url();
    coordinator(&["setup", "--nats-url", &url]).await;
    let workers: Vec<WorkerProcess> =
        (0..2).map(|_| WorkerProcess::spawn(&["--nats-url", &url, "--metrics-listen", "127.0.0.1:0"], &[])).collect();
    let out = path(d, "fleet.jsonl");
    let watched = coordinator(&[
        "submit",
        &sweep,
        "--collect",
        "summary",
        "--watch",
        "--out",
        &out,
        "--quiet",
        "--nats-url",
        &url,
    ])
    .await;
    assert!(watched.contains("summarised into 10 cells"), "{watched}");
    let fleet = read_cells(Path::new(&out)).unwrap();
    same_cells("fleet", &fleet, &with_id(&reference));
    assert_eq!(fleet, embedded, "the fleet's cells are the embedded run's, value for value");
    assert_eq!(coordinator(&["summary", &out]).await, records_table);
    // The paired comparisons of the summary files are the records file's: `compare` against
    // the default baseline (`random`, the later set of its jobs) and against `firefighters` (the
    // earlier set: its differences negated), from the embedded file, the fleet's, and a directory
    // of shards of the fleet's.
    let shards = d.join("shards");
    std::fs::create_dir(&shards).unwrap();
    let (first, second) = fleet.split_at(4);
    coordinator::records::summary_file::write_cells(&shards.join("a.csv"), first).unwrap();
    coordinator::records::summary_file::write_cells(&shards.join("b.csv"), second).unwrap();
    for baseline in [None, Some("firefighters")] {
        let want = compared(d, &path(d, "records.jsonl"), baseline).await;
        assert!(want.1.len() >= 2, "{baseline:?}: {}", want.0);
        for file in [path(d, "embedded.parquet"), out.clone(), path(d, "shards")] {
            let got = compared(d, &file, baseline).await;
            same_comparisons(&format!("{file} {baseline:?}"), &got, &want);
        }
    }
    // The report of a summary file opens with the forest plots: one panel per (game, scenario)
    // with the baseline, as the records file's report.
    for file in [path(d, "records.jsonl"), out.clone()] {
        let html = path(d, "report.html");
        coordinator(&["report", &file, "--out", &html]).await;
        let html = std::fs::read_to_string(&html).unwrap();
        assert_eq!(html.matches("<svg class=\"forest\"").count(), 3, "{file}: deception, trolley, cogsguard");
    }
    // The workers' Prometheus counts stay exact: counted from the records before aggregating.
    let mut metrics = String::new();
    for worker in &workers {
        let (code, text) = http_get(worker.metrics_addr(TIMEOUT).await, "/metrics").await.unwrap();
        assert_eq!(code, 200);
        metrics.push_str(&text);
    }
    assert_eq!(metric_sum(&metrics, "simfleet_episodes_total", &[]), Some(600.0), "episodes by outcome");
    let bb = "simfleet_bucket_brigade_episode_team_reward_count";
    assert_eq!(metric_sum(&metrics, bb, &[("scenario", "hard"), ("policy_set", "mixed")]), Some(60.0));
    let histogram = &fleet.iter().find(|c| c.game == "bucket_brigade").unwrap().aggregate.histograms.team_reward;
    let le = histogram.bounds[5].to_string();
    let cumulative: u64 = histogram.counts[..=5].iter().sum();
    let scraped = metric_sum(
        &metrics,
        "simfleet_bucket_brigade_episode_team_reward_bucket",
        &[("scenario", "default"), ("policy_set", "firefighters"), ("le", &le)],
    );
    assert_eq!(scraped, Some(cumulative as f64), "the aggregate's buckets are the worker's histogram's (le={le})");
    // `results` exports the summary sweep again from the stream: the same cells.
    let again = path(d, "again.msgpack");
    let exported = coordinator(&["results", summary_id, "--out", &again, "--quiet", "--nats-url", &url]).await;
    assert!(exported.contains("10 cell summaries written"), "{exported}");
    assert_eq!(read_cells(Path::new(&again)).unwrap(), fleet);
    // Each job's result is one aggregate: small on the stream.
    let js = async_nats::jetstream::new(async_nats::connect(&url).await.unwrap());
    let info = js.get_stream(RESULTS_STREAM).await.unwrap().info().await.unwrap().state.clone();
    // The two paired cells of a scenario share their jobs.
    assert_eq!(info.messages, 5 + 5 + 5 + 5 + 15, "one result per job");
    let aggregates = fleet.iter().map(|c| c.jobs).sum::<u64>();
    assert!(info.bytes / aggregates < 2048, "{} bytes per cell's aggregate", info.bytes / aggregates);
}

/// `summary` reads only the columns it needs from a Parquet file (a projection) and whole rows
/// from the other formats: the tables are the same bytes, for all four games.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_summary_table_is_the_same_from_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("sweep.toml"), SWEEP).unwrap();
    let sweep = path(d, "sweep.toml");
    let mut tables = Vec::new();
    for ext in ["jsonl", "csv", "msgpack", "parquet"] {
        let out = path(d, &format!("records.{ext}"));
        coordinator(&["run", &sweep, "--out", &out, "--quiet", "--threads", "2"]).await;
        tables.push((ext, coordinator(&["summary", &out]).await));
    }
    let (_, jsonl) = &tables[0];
    for game in ["bucket_brigade", "deception", "trolley", "cogsguard"] {
        assert!(jsonl.contains(game), "{game} in\n{jsonl}");
    }
    for (ext, table) in &tables[1..] {
        assert_eq!(table, jsonl, "the table of the .{ext} file");
    }
}

/// The lines of `text` whose JSON row is of (`scenario`, `policy_set`) with a seed in `seeds`.
fn rows_of(text: &str, scenario: &str, policy_set: &str, seeds: std::ops::Range<u64>) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["scenario"] == scenario && v["policy_set"] == policy_set && seeds.contains(&v["seed"].as_u64().unwrap())
        })
        .map(String::from)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_on_demand_are_the_records_mode_rows_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A summary sweep file: `records` plays its rows as the records-mode run places them.
    std::fs::write(
        d.join("sweep.toml"),
        SWEEP.replace("episodes_per_job = 25", "episodes_per_job = 25\ncollect = \"summary\""),
    )
    .unwrap();
    let sweep = path(d, "sweep.toml");
    coordinator(&["run", &sweep, "--collect", "records", "--out", &path(d, "all.jsonl"), "--quiet"]).await;
    coordinator(&["run", &sweep, "--collect", "records", "--out", &path(d, "all.csv"), "--quiet"]).await;
    let all = std::fs::read_to_string(d.join("all.jsonl")).unwrap();
    // Seeds 12..41 of one cell cross two of its jobs (25 episodes each from seed 5).
    let said = coordinator(&[
        "records",
        &sweep,
        "--scenario",
        "hard",
        "--policy-set",
        "mixed",
        "--seeds",
        "12..41",
        "--out",
        &path(d, "some.jsonl"),
    ])
    .await;
    assert!(said.starts_with("29 records of bucket_brigade / hard / mixed"), "{said}");
    let got: Vec<String> = std::fs::read_to_string(d.join("some.jsonl")).unwrap().lines().map(String::from).collect();
    assert_eq!(got, rows_of(&all, "hard", "mixed", 12..41));
    // CSV: the header and the rows of the whole cell, byte for byte.
    coordinator(&[
        "records",
        &sweep,
        "--scenario",
        "classic_5p1i",
        "--policy-set",
        "heuristic",
        "--seeds",
        "5..=64",
        "--out",
        &path(d, "cell.csv"),
    ])
    .await;
    let all_csv = std::fs::read_to_string(d.join("all.csv")).unwrap();
    let cell_csv = std::fs::read_to_string(d.join("cell.csv")).unwrap();
    let mut lines = cell_csv.lines();
    assert_eq!(lines.next(), all_csv.lines().next(), "the same header");
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 60);
    let wanted: Vec<&str> = all_csv.lines().filter(|l| l.contains(",classic_5p1i,heuristic,")).collect();
    assert_eq!(rows, wanted);
    // The best episode a summary names is one command away.
    coordinator(&["run", &sweep, "--out", &path(d, "cells.jsonl"), "--quiet"]).await;
    let cells = read_cells(&d.join("cells.jsonl")).unwrap();
    let trolley = cells.iter().find(|c| c.game == "trolley").unwrap();
    let best = trolley.team_reward_max_seed.to_string();
    coordinator(&[
        "records",
        &sweep,
        "--scenario",
        "balanced_5p",
        "--policy-set",
        "persuadable",
        "--seeds",
        &best,
        "--out",
        &path(d, "best.jsonl"),
    ])
    .await;
    let row: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(d.join("best.jsonl")).unwrap().trim()).unwrap();
    assert_eq!(row["team_reward"].as_f64(), Some(trolley.team_reward_max));
    // Seeds outside the sweep are refused with the sweep's range.
    let mut c = CoordinatorProcess::spawn(
        &[
            "records",
            &sweep,
            "--scenario",
            "hard",
            "--policy-set",
            "mixed",
            "--seeds",
            "60..70",
            "--out",
            &path(d, "x.csv"),
        ],
        &[],
    );
    assert_eq!(c.wait_exit(TIMEOUT).await.code(), Some(2));
    assert!(c.stderr().join("\n").contains("are not all in the sweep's seeds 5..65"), "{:?}", c.stderr());
}
