//! `llm` seats end to end: sweeps with `llm` seats played by `coordinator run` and by the fleet
//! (`coordinator submit --watch` with the real worker binary on a real nats-server) against
//! the stand-in model server of `simfleet_tests::llm_server`, over HTTP, HTTPS and a proxy;
//! 429s and `rpm` across the fleet, timeouts, malformed answers and dead endpoints; many calls
//! in flight on few cores; exact replays from recorded exchanges; `promtool check metrics` on
//! both binaries.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;
use simfleet_tests::{coordinator_binary, within, WorkerProcess};

mod capacity;
mod cli;
mod failures;
mod https;
mod limits;
mod promtool;
mod replay;
mod spend;

/// Generous: a loaded two-core machine builds and tests at once.
pub const TIMEOUT: Duration = Duration::from_secs(240);

/// A sweep with one `llm` seat in a deception cell and one in a trolley cell, against
/// `endpoint`, `seeds` seeds, 3 episodes per job; `params` is appended to both seats' specs.
pub fn sweep(name: &str, endpoint: &str, seeds: u64, params: &str) -> String {
    let llm = format!("llm?model=stand-in&endpoint={endpoint}{params}");
    format!(
        "name = {name:?}\nseeds = {{ start = 0, count = {seeds} }}\nepisodes_per_job = 3\n\n\
         [[cells]]\ngame = \"deception\"\nscenarios = [\"quick_4p1i\"]\n[cells.policy_sets]\n\
         llm_vs_heuristic = [{llm:?}, \"heuristic\", \"heuristic\", \"heuristic\"]\n\n\
         [[cells]]\ngame = \"trolley\"\nscenarios = [\"trio_3p?max_rounds=1\"]\n[cells.policy_sets]\n\
         llm_and_persuadable = [{llm:?}, \"persuadable\", \"persuadable\"]\n"
    )
}

/// A temporary directory holding `sweep.toml`.
pub struct Dir(pub tempfile::TempDir);

impl Dir {
    /// Writes `text` as `sweep.toml`.
    pub fn with_sweep(text: &str) -> Dir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sweep.toml"), text).unwrap();
        Dir(dir)
    }

    /// A path in the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }

    /// `sweep.toml`, as a string argument.
    pub fn sweep(&self) -> String {
        self.path("sweep.toml").display().to_string()
    }
}

/// Runs the coordinator binary with `args` and `env` (and none of the test's own NATS, proxy or
/// simfleet variables), off the async runtime, within [`TIMEOUT`].
pub async fn coordinator(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(coordinator_binary());
    cmd.args(args);
    for (key, _) in std::env::vars() {
        let k = key.to_ascii_uppercase();
        if k == "NATS_URL" || k.starts_with("SIMFLEET_") || k.ends_with("_PROXY") {
            cmd.env_remove(key);
        }
    }
    cmd.envs(env.iter().copied()).stdin(Stdio::null());
    let what = format!("coordinator {}", args.join(" "));
    within(&what, TIMEOUT, tokio::task::spawn_blocking(move || cmd.output().expect("run the coordinator")))
        .await
        .unwrap()
}

/// Asserts the coordinator succeeded, showing its output if not.
pub fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "coordinator failed ({}):\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A worker process on `url` with `--concurrency 1` and `llm_concurrency`, plus `env`.
pub fn worker(url: &str, llm_concurrency: usize, env: &[(&str, &str)]) -> WorkerProcess {
    let llm = llm_concurrency.to_string();
    let args =
        ["--nats-url", url, "--metrics-listen", "127.0.0.1:0", "--concurrency", "1", "--llm-concurrency", llm.as_str()];
    WorkerProcess::spawn(&args, env)
}

/// The records of a JSON Lines results file.
pub fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Every `llm` seat entry of a record.
pub fn llm_seats(record: &Value) -> Vec<&Value> {
    record["stats"]["llm"].as_object().map(|m| m.values().collect()).unwrap_or_default()
}

/// A record without what differs between two plays against the same deterministic model: the
/// latencies.
pub fn without_latencies(mut record: Value) -> Value {
    if let Some(seats) = record["stats"]["llm"].as_object_mut() {
        for seat in seats.values_mut() {
            seat["latency_ms_total"] = 0.into();
            seat["latency_ms_max"] = 0.into();
            for e in seat["exchanges"].as_array_mut().into_iter().flatten() {
                e["latency_ms"] = 0.into();
            }
        }
    }
    record
}

/// The sum of `key` over every `llm` seat of every record.
pub fn total(records: &[Value], key: &str) -> u64 {
    records.iter().flat_map(llm_seats).map(|s| s[key].as_u64().unwrap()).sum()
}
