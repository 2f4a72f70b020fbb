//! docs/metrics.md is what the binaries serve: every family a real worker exposes after a job of
//! each game (and an error), with its type, label names, buckets and `# HELP`, is in the doc's
//! tables and nothing else is; the coordinator's gauge is rendered by its own recorder code.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use simfleet::protocol::{Job, PolicySet, SeedRange};
use simfleet::{GameKind, PROTOCOL_VERSION};
use simfleet_tests::jobs::{bb_job, publish_job, team, unique_sweep};
use simfleet_tests::results::collect_results;
use simfleet_tests::scrape::{http_get, metric_sum};
use simfleet_tests::{connect, wait_until, NatsServer, WorkerProcess};

use super::session::repo;

/// One metric family as the doc states it or an exposition shows it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Family {
    kind: String,
    labels: BTreeSet<String>,
    help: Option<String>,
}

/// The doc's families by section (`Worker`, `Coordinator`) and its bucket bounds by histogram.
struct Doc {
    families: BTreeMap<String, BTreeMap<String, Family>>,
    buckets: BTreeMap<String, Vec<f64>>,
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

fn ticked(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(String::from).collect()
}

fn parse_doc(text: &str) -> Doc {
    let mut families: BTreeMap<String, BTreeMap<String, Family>> = BTreeMap::new();
    let mut buckets = BTreeMap::new();
    let mut section = String::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            section = h.trim().to_string();
            continue;
        }
        if !line.starts_with("| `simfleet_") {
            continue;
        }
        let c = cells(line);
        let name = ticked(&c[0]).into_iter().next().expect("a ticked metric name");
        if c.len() == 2 {
            let bounds = c[1].split(',').map(|v| v.trim().parse::<f64>().expect("a bucket bound")).collect();
            buckets.insert(name, bounds);
            continue;
        }
        assert_eq!(c.len(), 5, "a metric row has 5 cells: {line}");
        let help = (c[3] != "–").then(|| c[3].clone());
        let family = Family { kind: c[1].clone(), labels: ticked(&c[2]).into_iter().collect(), help };
        let names: Vec<String> = if name.contains("<game>") {
            GameKind::ALL.iter().map(|g| name.replace("<game>", g.as_str())).collect()
        } else {
            vec![name]
        };
        for n in names {
            let mut family = family.clone();
            if let (Some(help), Some(game)) = (&family.help, GameKind::ALL.iter().find(|g| n.contains(g.as_str()))) {
                family.help = Some(help.replace("<game>", game.as_str()));
            }
            families.entry(section.clone()).or_default().insert(n, family);
        }
    }
    Doc { families, buckets }
}

/// `name{k="v",…}` → (name, [(k, v)]), honouring escaped quotes in values.
fn sample(line: &str) -> (String, Vec<(String, String)>) {
    let series = line.rsplit_once(' ').map_or(line, |(s, _)| s);
    let Some((name, rest)) = series.split_once('{') else { return (series.to_string(), Vec::new()) };
    let mut labels = Vec::new();
    let mut chars = rest.trim_end_matches('}').chars().peekable();
    loop {
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if key.is_empty() {
            break;
        }
        chars.next(); // the opening quote
        let mut value = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => value.extend(chars.next()),
                '"' => break,
                c => value.push(c),
            }
        }
        if chars.peek() == Some(&',') {
            chars.next();
        }
        labels.push((key.trim().to_string(), value));
    }
    (name.to_string(), labels)
}

/// Families of an exposition, and the `le` bounds of each histogram.
fn parse_exposition(text: &str) -> (BTreeMap<String, Family>, BTreeMap<String, BTreeSet<String>>) {
    let mut families: BTreeMap<String, Family> = BTreeMap::new();
    let mut les: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in text.lines() {
        let mut words = line.splitn(4, ' ');
        match (words.next(), words.next(), words.next(), words.next()) {
            (Some("#"), Some("TYPE"), Some(name), Some(kind)) => {
                families.entry(name.to_string()).or_default().kind = kind.to_string();
            }
            (Some("#"), Some("HELP"), Some(name), help) => {
                families.entry(name.to_string()).or_default().help = Some(help.unwrap_or("").to_string());
            }
            _ if line.starts_with('#') || line.trim().is_empty() => {}
            _ => {
                let (name, labels) = sample(line);
                let family = ["_bucket", "_sum", "_count"]
                    .iter()
                    .find_map(|s| {
                        name.strip_suffix(s).filter(|f| families.get(*f).is_some_and(|x| x.kind == "histogram"))
                    })
                    .unwrap_or(&name)
                    .to_string();
                for (k, v) in labels {
                    if k == "le" {
                        if v != "+Inf" {
                            les.entry(family.clone()).or_default().insert(v);
                        }
                    } else {
                        families.entry(family.clone()).or_default().labels.insert(k);
                    }
                }
            }
        }
    }
    families.retain(|name, _| name.starts_with("simfleet_"));
    (families, les)
}

fn job(sweep: &str, index: u64, game: &str, scenario: &str, policy: &str, seats: usize) -> Job {
    Job {
        protocol_version: PROTOCOL_VERSION,
        sweep: sweep.to_string(),
        index,
        game: game.to_string(),
        scenario: scenario.to_string(),
        policy_set: PolicySet { name: policy.to_string(), seats: vec![policy.to_string(); seats] },
        seeds: SeedRange { start: index, count: 2 },
        replay: false,
        collect: Default::default(),
        paired: Vec::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_doc_is_what_the_worker_and_coordinator_serve() {
    let doc = parse_doc(&std::fs::read_to_string(repo().join("docs/metrics.md")).unwrap());
    let server = NatsServer::start();
    let (_client, js) = connect(&server.client_url()).await;
    let url = server.client_url();
    let worker =
        WorkerProcess::spawn(&["--nats-url", &url, "--metrics-listen", "127.0.0.1:0", "--concurrency", "2"], &[]);
    let addr = worker.metrics_addr(Duration::from_secs(30)).await;
    let sweep = unique_sweep("metrics-doc");
    let jobs = [
        bb_job(&sweep, 0, "default", "firefighters", team("firefighter"), 2),
        job(&sweep, 1, "deception", "classic_5p1i", "heuristic", 5),
        job(&sweep, 2, "cogsguard", "arena", "noop", 8),
        job(&sweep, 3, "trolley", "balanced_5p", "utilitarian", 5),
        // An invalid job, for the error labels.
        bb_job(&sweep, 4, "default?num_agents=11", "too-many", team("firefighter"), 2),
    ];
    // Each game's histograms are served once it played: a game without a job here would have
    // its documented buckets reported as not served.
    let played: BTreeSet<&str> = jobs.iter().map(|j| j.game.as_str()).collect();
    for game in GameKind::ALL {
        assert!(played.contains(game.as_str()), "a new game ({game}) adds a job of it to the jobs of this test");
    }
    for j in &jobs {
        publish_job(&js, j).await;
    }
    collect_results(&js, &sweep, jobs.len(), Duration::from_secs(120)).await;
    let text = wait_until("no jobs in flight", Duration::from_secs(30), || async {
        let (_, text) = http_get(addr, "/metrics").await.expect("GET /metrics");
        (metric_sum(&text, worker::telemetry::JOBS_IN_FLIGHT, &[]) == Some(0.0)).then_some(text)
    })
    .await;
    worker.terminate();

    let (mut served, les) = parse_exposition(&text);
    // The `llm` families are checked by the dashboards test, whose worker plays `llm` seats.
    served.retain(|name, _| !name.starts_with(LLM_PREFIX));
    let documented = &doc.families["Worker"];
    let mut wrong = Vec::new();
    for (name, family) in &served {
        match documented.get(name) {
            None => wrong.push(format!("{name} is served but not in docs/metrics.md: {family:?}")),
            Some(d) if d != family => wrong.push(format!("{name}: the doc says {d:?}, the worker serves {family:?}")),
            Some(_) => {}
        }
    }
    for name in documented.keys().filter(|n| !served.contains_key(*n)) {
        wrong.push(format!("{name} is in docs/metrics.md but the worker does not serve it"));
    }
    for (name, bounds) in doc.buckets.iter().filter(|(n, _)| !n.starts_with(LLM_PREFIX)) {
        let served: BTreeSet<u64> =
            les.get(name).into_iter().flatten().map(|v| v.parse::<f64>().expect("an le bound").to_bits()).collect();
        let stated: BTreeSet<u64> = bounds.iter().map(|b| b.to_bits()).collect();
        if served != stated {
            wrong.push(format!("{name}: the doc's buckets {bounds:?} are not the served bounds {:?}", les.get(name)));
        }
    }
    let histograms: Vec<&String> = served.iter().filter(|(_, f)| f.kind == "histogram").map(|(n, _)| n).collect();
    for name in histograms.iter().filter(|n| !doc.buckets.contains_key(**n)) {
        wrong.push(format!("{name}: no buckets in docs/metrics.md"));
    }

    // The coordinator's gauge, rendered by the code `watch --metrics-listen` serves.
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    metrics::with_local_recorder(&recorder, || {
        coordinator::fleet::metrics::describe();
        coordinator::fleet::metrics::record_progress("s-000000000000", 3, 1, 1)
    });
    let (coordinator, _) = parse_exposition(&handle.render());
    if coordinator != doc.families["Coordinator"] {
        wrong.push(format!(
            "the coordinator serves {coordinator:?}, docs/metrics.md says {:?}",
            doc.families["Coordinator"]
        ));
    }
    assert!(
        wrong.is_empty(),
        "docs/metrics.md is out of date:\n{}\n(a new game: add a job of it to this test's `jobs` and its \
         histogram buckets to docs/metrics.md, as ARCHITECTURE.md's list of files a game touches says)",
        wrong.join("\n")
    );
}

/// The names of the `llm` seats' families (docs/metrics.md's section "LLM seats").
const LLM_PREFIX: &str = "simfleet_llm_";

/// Checks the `llm` families of a worker's exposition `text` (a worker that played `llm` seats
/// with a token price configured) against docs/metrics.md's section "LLM seats": every family
/// served is documented as served, and every documented one is served. Returns what differs.
pub(crate) fn llm_families_differ(text: &str) -> Vec<String> {
    let doc = parse_doc(&std::fs::read_to_string(repo().join("docs/metrics.md")).unwrap());
    let documented = &doc.families["LLM seats"];
    let (mut served, les) = parse_exposition(text);
    served.retain(|name, _| name.starts_with(LLM_PREFIX));
    let mut wrong = Vec::new();
    for (name, family) in &served {
        match documented.get(name) {
            None => wrong.push(format!("{name} is served but not in docs/metrics.md: {family:?}")),
            Some(d) if d != family => wrong.push(format!("{name}: the doc says {d:?}, the worker serves {family:?}")),
            Some(_) => {}
        }
    }
    for name in documented.keys().filter(|n| !served.contains_key(*n)) {
        wrong.push(format!("{name} is in docs/metrics.md but the worker does not serve it"));
    }
    for (name, bounds) in doc.buckets.iter().filter(|(n, _)| n.starts_with(LLM_PREFIX)) {
        let served: BTreeSet<u64> =
            les.get(name).into_iter().flatten().map(|v| v.parse::<f64>().expect("an le bound").to_bits()).collect();
        if served != bounds.iter().map(|b| b.to_bits()).collect() {
            wrong.push(format!("{name}: the doc's buckets {bounds:?} are not the served bounds {:?}", les.get(name)));
        }
    }
    wrong
}

#[test]
fn expositions_parse_into_families() {
    let text = "# TYPE simfleet_x_total counter\nsimfleet_x_total{game=\"a\\\"b\",status=\"ok\"} 1\n\
                # TYPE simfleet_h histogram\nsimfleet_h_bucket{scenario=\"s,1\",le=\"0.5\"} 1\n\
                simfleet_h_bucket{scenario=\"s,1\",le=\"+Inf\"} 1\nsimfleet_h_sum{scenario=\"s,1\"} 1\n";
    let (f, les) = parse_exposition(text);
    assert_eq!(f["simfleet_x_total"].labels, BTreeSet::from(["game".to_string(), "status".to_string()]));
    assert_eq!(f["simfleet_h"].labels, BTreeSet::from(["scenario".to_string()]));
    assert_eq!(les["simfleet_h"], BTreeSet::from(["0.5".to_string()]));
}
