//! Three real nats-servers clustered on loopback, for the cluster tests: routes between them,
//! JetStream with a store dir each, free ports, killed and cleaned up on drop. A server can be
//! killed (`kill -9`), stopped politely (SIGTERM, as a StatefulSet update does) and started
//! again on the same ports and store. Readiness is read, never slept for: the meta leader from
//! each server's `/jsz`, a stream's leader and replicas from its stream info.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use async_nats::jetstream::Context;
use tempfile::TempDir;

use crate::nats_server::{nats_server_binary, wait_ready, INSTALL_HINT};
use crate::scrape::http_get;
use crate::wait::wait_until;

/// How long the cluster may take to elect a leader or catch a stream up. Generous: a server
/// that comes back on a loaded two-core machine (parallel tests, fsync on every write) has been
/// seen to need more than a minute to catch up; a healthy cluster meets the condition in
/// seconds, and only a failing test waits this long.
pub const CLUSTER_TIMEOUT: Duration = Duration::from_secs(150);

/// One server of the cluster.
#[derive(Debug)]
struct Node {
    name: String,
    child: Option<Child>,
    client_port: Option<u16>,
    http_port: u16,
    config: PathBuf,
    starts: u32,
}

/// Three clustered nats-servers with JetStream.
#[derive(Debug)]
pub struct NatsCluster {
    dir: TempDir,
    nodes: Vec<Node>,
}

impl NatsCluster {
    /// Starts three servers named `n0`, `n1`, `n2`; `extra` is added to each config (e.g.
    /// `max_payload: 16MB`). Waits until every server is ready and a meta leader is elected.
    pub async fn start(extra: &str) -> NatsCluster {
        let dir = tempfile::Builder::new().prefix("simfleet-cluster-").tempdir().expect("a temp dir");
        // Hold every port at once so the six are distinct, then let the servers have them.
        let held: Vec<std::net::TcpListener> =
            (0..6).map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port")).collect();
        let ports: Vec<u16> = held.iter().map(|l| l.local_addr().expect("an address").port()).collect();
        drop(held);
        let routes: Vec<String> = ports[..3].iter().map(|p| format!("nats-route://127.0.0.1:{p}")).collect();
        let mut nodes = Vec::new();
        for i in 0..3 {
            let name = format!("n{i}");
            let store = dir.path().join(format!("store-{name}"));
            let config = dir.path().join(format!("{name}.conf"));
            let text = format!(
                "server_name: {name}\nhttp: \"127.0.0.1:{http}\"\njetstream {{ store_dir: {store:?} }}\n\
                 cluster {{\n  name: simfleet-test\n  listen: \"127.0.0.1:{route}\"\n  routes: [{routes}]\n}}\n{extra}\n",
                http = ports[3 + i],
                route = ports[i],
                routes = routes.join(", "),
            );
            std::fs::write(&config, text).expect("write a server config");
            nodes.push(Node { name, child: None, client_port: None, http_port: ports[3 + i], config, starts: 0 });
        }
        let mut cluster = NatsCluster { dir, nodes };
        // Start all three before waiting: each waits for its routes to form anyway.
        for i in 0..3 {
            cluster.spawn(i);
        }
        for i in 0..3 {
            cluster.wait_started(i);
        }
        cluster.wait_meta_leader().await;
        cluster
    }

    fn log_path(&self, i: usize) -> PathBuf {
        self.dir.path().join(format!("{}-{}.log", self.nodes[i].name, self.nodes[i].starts))
    }

    fn spawn(&mut self, i: usize) {
        self.nodes[i].starts += 1;
        let log = self.log_path(i);
        let node = &mut self.nodes[i];
        let port = node.client_port.map_or_else(|| "-1".to_string(), |p| p.to_string());
        let child = Command::new(nats_server_binary())
            .arg("-c")
            .arg(&node.config)
            .args(["-a", "127.0.0.1", "-p", &port])
            .arg("-l")
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start nats-server: {e}; {INSTALL_HINT}"));
        node.child = Some(child);
    }

    fn wait_started(&mut self, i: usize) {
        let log = self.log_path(i);
        let node = &mut self.nodes[i];
        let port = wait_ready(node.child.as_mut().expect("a started server"), &log);
        assert!(node.client_port.is_none_or(|p| p == port), "{} came back on another port", node.name);
        node.client_port = Some(port);
    }

    /// Every server's client URL, comma-separated (what `nats_url` takes for a cluster).
    pub fn url(&self) -> String {
        (0..3).map(|i| self.node_url(i)).collect::<Vec<_>>().join(",")
    }

    /// One server's client URL.
    pub fn node_url(&self, i: usize) -> String {
        format!("nats://127.0.0.1:{}", self.nodes[i].client_port.expect("started once"))
    }

    /// The server names, `n0`, `n1`, `n2`.
    pub fn name(&self, i: usize) -> &str {
        &self.nodes[i].name
    }

    /// Server `i`'s process id, while it runs.
    pub fn pid(&self, i: usize) -> Option<u32> {
        self.nodes[i].child.as_ref().map(Child::id)
    }

    /// Server `i`'s cluster (route) port.
    pub fn route_port(&self, i: usize) -> u16 {
        let text = std::fs::read_to_string(&self.nodes[i].config).expect("the server's config");
        let listen = text.split("listen: \"127.0.0.1:").nth(1).expect("a route listen line");
        listen.split('"').next().and_then(|p| p.parse().ok()).expect("a route port")
    }

    /// Server `i`'s JetStream store dir.
    pub fn store_dir(&self, i: usize) -> PathBuf {
        self.dir.path().join(format!("store-{}", self.nodes[i].name))
    }

    /// The index of the server called `name`.
    pub fn index_of(&self, name: &str) -> usize {
        self.nodes.iter().position(|n| n.name == name).unwrap_or_else(|| panic!("no server {name}"))
    }

    /// Whether server `i` runs.
    pub fn is_up(&self, i: usize) -> bool {
        self.nodes[i].child.is_some()
    }

    /// Kills server `i` with SIGKILL (a crash: no goodbye to its peers) and waits for it.
    pub fn kill(&mut self, i: usize) {
        if let Some(mut child) = self.nodes[i].child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops server `i` with SIGTERM, as Kubernetes does, and waits for it to exit.
    pub fn terminate(&mut self, i: usize) {
        if let Some(mut child) = self.nodes[i].child.take() {
            let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("run kill");
            assert!(status.success(), "kill -TERM failed");
            let _ = child.wait();
        }
    }

    /// Starts server `i` again on its ports and store dir, and waits until it is ready.
    pub fn start_again(&mut self, i: usize) {
        assert!(!self.is_up(i), "{} is running", self.nodes[i].name);
        self.spawn(i);
        self.wait_started(i);
    }

    /// What server `i`'s `/jsz` says, when it answers.
    async fn jsz(&self, i: usize) -> Option<serde_json::Value> {
        let addr = format!("127.0.0.1:{}", self.nodes[i].http_port).parse().expect("an address");
        match http_get(addr, "/jsz").await {
            Ok((200, body)) => serde_json::from_str(&body).ok(),
            _ => None,
        }
    }

    /// Waits until every running server names the same meta leader, itself running; returns it.
    pub async fn wait_meta_leader(&self) -> String {
        wait_until("the cluster's meta leader", CLUSTER_TIMEOUT, || async {
            let mut leaders = Vec::new();
            for i in (0..3).filter(|&i| self.is_up(i)) {
                let leader = self.jsz(i).await?["meta_cluster"]["leader"].as_str()?.to_string();
                leaders.push(leader);
            }
            let first = leaders.first()?.clone();
            let agreed = leaders.iter().all(|l| *l == first) && self.is_up(self.index_of(&first));
            agreed.then_some(first)
        })
        .await
    }

    /// Every server's log so far (all starts), for failure messages.
    pub fn logs(&self) -> String {
        let mut out = String::new();
        for node in &self.nodes {
            for n in 1..=node.starts {
                let path = self.dir.path().join(format!("{}-{n}.log", node.name));
                out.push_str(&format!("--- {} start {n}\n", node.name));
                out.push_str(&std::fs::read_to_string(path).unwrap_or_default());
            }
        }
        out
    }
}

impl Drop for NatsCluster {
    fn drop(&mut self) {
        for i in 0..self.nodes.len() {
            self.kill(i);
        }
    }
}

/// The leader of `stream` once it has one and all its `replicas` are current (caught up and
/// online), e.g. after a server came back.
///
/// A follower restarted after a SIGKILL has been seen (rarely, on a loaded machine) to stay
/// "not current" for minutes while the stream is idle. An operator's remedy is a leader step-down
/// (`nats stream cluster step-down`), after which the new leader brings every follower up to
/// date: if the stream is not healthy after `STEP_DOWN_AFTER`, its leader is asked once to step
/// down. The timeout's message gives the replicas' last reported state.
pub async fn wait_stream_healthy(js: &Context, stream: &str, replicas: usize) -> String {
    const STEP_DOWN_AFTER: Duration = Duration::from_secs(45);
    let start = tokio::time::Instant::now();
    let mut stepped_down = false;
    let mut last = String::from("no stream info");
    loop {
        if let Ok(mut s) = js.get_stream(stream).await {
            if let Ok(info) = s.info().await {
                if let Some(cluster) = info.cluster.as_ref() {
                    let followers = cluster.replicas.iter().filter(|p| p.current && !p.offline).count();
                    if let Some(leader) = cluster.leader.clone().filter(|_| 1 + followers == replicas) {
                        return leader;
                    }
                    last = format!("leader {:?}, replicas {:?}", cluster.leader, cluster.replicas);
                }
            }
        }
        let waited = start.elapsed();
        if !stepped_down && waited >= STEP_DOWN_AFTER {
            stepped_down = true;
            let subject = format!("STREAM.LEADER.STEPDOWN.{stream}");
            let answer: Result<serde_json::Value, _> = js.request(subject, &serde_json::json!({})).await;
            eprintln!("stream {stream} not healthy after {waited:?} ({last}): leader step-down: {answer:?}");
        }
        assert!(
            waited < CLUSTER_TIMEOUT,
            "timed out after {CLUSTER_TIMEOUT:?} waiting for stream {stream} to have a leader and {replicas} current replicas ({last})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The leader of `stream` right now.
pub async fn stream_leader(js: &Context, stream: &str) -> Option<String> {
    let mut s = js.get_stream(stream).await.ok()?;
    let info = s.info().await.ok()?;
    info.cluster.as_ref()?.leader.clone()
}

/// Waits until `stream` is led by a server other than `old` (after `old` was killed).
pub async fn wait_new_leader(js: &Context, stream: &str, old: &str) -> String {
    let what = format!("stream {stream} to elect a leader other than {old}");
    wait_until(&what, CLUSTER_TIMEOUT, || async { stream_leader(js, stream).await.filter(|l| l != old) }).await
}
