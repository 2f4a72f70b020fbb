//! A real Prometheus per test (Debian's `prometheus` package, installed by `scripts/test`):
//! a generated config scraping the given targets every second, a free loopback port, its own
//! TSDB dir, killed on drop. Queries go through the HTTP API, as Grafana's do.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tempfile::TempDir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::wait::wait_until;

/// How to install it.
pub const INSTALL_HINT: &str = "install Prometheus with `apt-get install prometheus` (scripts/test does)";

/// A running Prometheus.
#[derive(Debug)]
pub struct Prometheus {
    child: Child,
    addr: SocketAddr,
    _dir: TempDir,
}

/// A free loopback port (bound, then released: the tiny race is acceptable in tests).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port()
}

impl Prometheus {
    /// Starts Prometheus scraping `jobs` (job name → targets) every second; waits until ready.
    pub async fn start(jobs: &[(&str, Vec<SocketAddr>)]) -> Prometheus {
        let dir = tempfile::Builder::new().prefix("simfleet-prom-").tempdir().expect("a temp dir");
        let mut config = String::from("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n");
        for (job, targets) in jobs {
            let list: Vec<String> = targets.iter().map(|t| format!("\"{t}\"")).collect();
            config.push_str(&format!(
                "  - job_name: {job}\n    static_configs:\n      - targets: [{}]\n",
                list.join(", ")
            ));
        }
        let config_path: PathBuf = dir.path().join("prometheus.yml");
        std::fs::write(&config_path, config).expect("write the config");
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().expect("an address");
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", config_path.display()))
            .arg(format!("--storage.tsdb.path={}", dir.path().join("data").display()))
            .arg(format!("--web.listen-address={addr}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(std::fs::File::create(dir.path().join("prometheus.log")).expect("a log file")))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start prometheus: {e}; {INSTALL_HINT}"));
        let prom = Prometheus { child, addr, _dir: dir };
        wait_until("Prometheus to be ready", Duration::from_secs(30), || async {
            matches!(get(addr, "/-/ready").await, Ok((200, _))).then_some(())
        })
        .await;
        prom
    }

    /// An instant query: the `data.result` array (empty when nothing matched).
    pub async fn query(&self, promql: &str) -> Result<Vec<serde_json::Value>, String> {
        let path = format!("/api/v1/query?query={}", encode(promql));
        let (status, body) = get(self.addr, &path).await.map_err(|e| e.to_string())?;
        let v: serde_json::Value = serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))?;
        if status != 200 || v["status"] != "success" {
            return Err(format!("HTTP {status}: {body}"));
        }
        let data = &v["data"];
        Ok(match data["resultType"].as_str() {
            // A scalar or string result is one value.
            Some("scalar") | Some("string") => vec![data["result"].clone()],
            _ => data["result"].as_array().cloned().unwrap_or_default(),
        })
    }

    /// The sum of the values of an instant vector query (`None` when it returned nothing).
    pub async fn sum(&self, promql: &str) -> Option<f64> {
        let result = self.query(promql).await.ok()?;
        if result.is_empty() {
            return None;
        }
        Some(result.iter().filter_map(|s| s["value"][1].as_str()?.parse::<f64>().ok()).sum())
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Percent-encodes a query parameter value.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `GET path` over HTTP/1.0 (so the body is never chunked).
async fn get(addr: SocketAddr, path: &str) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.write_all(format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    Ok((status, body.to_string()))
}
