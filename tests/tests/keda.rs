//! KEDA's trigger (deploy/k8s/components/keda/scaledobject.yaml) against a real nats-server:
//! the `/jsz` query it sends and the GJSON path it reads give the jobs stream's backlog, every
//! sweep's jobs together, waiting and in flight. KEDA itself cannot run here; the server's
//! answer and the file's path are the real ones, and the path is evaluated as GJSON does for the
//! two forms it uses (a key; `#(key=="value")`, the first array element whose key has the value).

use std::net::SocketAddr;
use std::path::PathBuf;

use simfleet::nats::topology::{ensure, sweep_consumer, LimitsOwner, TopologyConfig};
use simfleet_tests::jobs::{good_job, publish_job, unique_sweep};
use simfleet_tests::prometheus::free_port;
use simfleet_tests::scrape::http_get;
use simfleet_tests::NatsServer;

/// `key: value` of the trigger's metadata, unquoted.
fn trigger(key: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../deploy/k8s/components/keda/scaledobject.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let line = text.lines().find(|l| l.trim_start().starts_with(&format!("{key}:"))).unwrap_or_else(|| panic!("{key}"));
    let value = line.split_once(':').unwrap().1.trim();
    value.trim_matches(|c| c == '"' || c == '\'').to_string()
}

/// The value at a GJSON path of keys and `#(key=="value")` queries.
fn gjson<'a>(mut v: &'a serde_json::Value, path: &str) -> Option<&'a serde_json::Value> {
    for part in path.split('.') {
        v = match part.strip_prefix("#(").and_then(|q| q.strip_suffix(')')) {
            Some(query) => {
                let (key, want) = query.split_once("==")?;
                let want = want.trim_matches('"');
                v.as_array()?.iter().find(|e| e.get(key).and_then(|k| k.as_str()) == Some(want))?
            }
            None => v.get(part)?,
        };
    }
    Some(v)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_keda_trigger_reads_every_sweeps_backlog_from_jsz() {
    let monitor = free_port();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("monitor.conf");
    std::fs::write(&config, format!("http: 127.0.0.1:{monitor}\n")).unwrap();
    let server = NatsServer::start_with_config(&config);
    let js = async_nats::jetstream::new(async_nats::connect(server.client_url()).await.unwrap());
    let cfg = TopologyConfig::default();
    let topology = ensure(&js, &cfg).await.unwrap();
    // Two sweeps: three jobs waiting in one, two in the other, one of them in flight.
    let (a, b) = (unique_sweep("keda-a"), unique_sweep("keda-b"));
    for i in 0..3 {
        publish_job(&js, &good_job(&a, i, 1)).await;
    }
    for i in 0..2 {
        publish_job(&js, &good_job(&b, i, 1)).await;
    }
    let (consumer, _) = sweep_consumer(&topology.jobs, &cfg, &b, LimitsOwner::Worker).await.unwrap();
    let mut pull = consumer.fetch().max_messages(1).messages().await.unwrap();
    let _in_flight = futures::StreamExt::next(&mut pull).await.unwrap().unwrap();

    let url = trigger("url");
    let query = url.split_once(":8222").expect("the NATS Service's monitoring port").1;
    let addr: SocketAddr = format!("127.0.0.1:{monitor}").parse().unwrap();
    let (status, body) = http_get(addr, query).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let jsz: serde_json::Value = serde_json::from_str(&body).unwrap();
    let backlog = gjson(&jsz, &trigger("valueLocation")).and_then(|v| v.as_u64());
    assert_eq!(backlog, Some(5), "the jobs of both sweeps, the one in flight included; /jsz said {body}");
}
