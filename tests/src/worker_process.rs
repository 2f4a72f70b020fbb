//! The real `worker` binary as a child process, for what only a process can show: exit codes,
//! signals, the metrics listener of its own recorder.
//!
//! Cargo builds a package's binaries only for that package's own tests, so this crate cannot
//! name `worker` with `env!("CARGO_BIN_EXE_worker")`. It is looked for in the target dir next
//! to the test executable (`target/<profile>/worker`). **Build it first**: the test command is
//! `cargo build -p simfleet-worker && cargo test -p simfleet-tests` (`.ci/run` builds the
//! workspace binaries before testing). A missing binary fails with that command.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::wait::{wait_until, wait_until_or_none};

/// `target/<profile>/worker`, beside the `deps/` folder of the running test binary.
pub fn worker_binary() -> PathBuf {
    target_binary("worker", "simfleet-worker")
}

/// `target/<profile>/coordinator`.
pub fn coordinator_binary() -> PathBuf {
    target_binary("coordinator", "simfleet-coordinator")
}

/// `target/<profile>/<name>` of cargo package `package`, which must have been built; or
/// `$SIMFLEET_BIN_DIR/<name>`, to run the suite against other builds of the binaries (e.g.
/// `SIMFLEET_BIN_DIR=target/release`, built as the container image builds them).
fn target_binary(name: &str, package: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let profile_dir = match std::env::var_os("SIMFLEET_BIN_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps/<test>").to_path_buf(),
    };
    let bin = profile_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.is_file(),
        "{} is missing: run `cargo build -p {package}` before `cargo test -p simfleet-tests` (scripts/test does)",
        bin.display()
    );
    bin
}

/// A running `worker` process with its stderr (JSON log lines) collected.
#[derive(Debug)]
pub struct WorkerProcess {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    /// Set when stderr reached its end: every line the process wrote is in `lines`.
    stderr_closed: Arc<AtomicBool>,
}

impl WorkerProcess {
    /// Starts `worker --log-format json <args>` with `env` added and every `NATS_URL` and
    /// `SIMFLEET_WORKER__*` of the test's own environment removed.
    pub fn spawn(args: &[&str], env: &[(&str, &str)]) -> WorkerProcess {
        let mut cmd = Command::new(worker_binary());
        cmd.args(["--log-format", "json"]).args(args);
        for (key, _) in std::env::vars() {
            if key == "NATS_URL" || key.starts_with("SIMFLEET_WORKER") {
                cmd.env_remove(key);
            }
        }
        cmd.envs(env.iter().copied()).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("cannot start the worker binary");
        let stderr = child.stderr.take().expect("piped stderr");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        let stderr_closed = Arc::new(AtomicBool::new(false));
        let closed = Arc::clone(&stderr_closed);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().expect("log lines lock").push(line);
            }
            closed.store(true, Ordering::SeqCst);
        });
        WorkerProcess { child, lines, stderr_closed }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Every stderr line so far.
    pub fn logs(&self) -> Vec<String> {
        self.lines.lock().expect("log lines lock").clone()
    }

    /// Waits for a stderr line containing `needle` and returns it; on a timeout, fails with the
    /// last lines of the log.
    pub async fn wait_for_log(&self, needle: &str, timeout: Duration) -> String {
        let found = wait_until_or_none(timeout, || self.logs().into_iter().find(|l| l.contains(needle))).await;
        found.unwrap_or_else(|| {
            let logs = self.logs();
            let tail = logs[logs.len().saturating_sub(30)..].join("\n");
            panic!("no worker log line containing {needle:?} after {timeout:?}; the log ends:\n{tail}")
        })
    }

    /// The address the metrics listener bound (from the startup log line), e.g. after
    /// `--metrics-listen 127.0.0.1:0`.
    pub async fn metrics_addr(&self, timeout: Duration) -> SocketAddr {
        let line = self.wait_for_log("\"metrics_addr\"", timeout).await;
        let v: serde_json::Value = serde_json::from_str(&line).expect("a JSON log line");
        v["metrics_addr"].as_str().and_then(|a| a.parse().ok()).expect("metrics_addr is an address")
    }

    /// Kills the process with SIGKILL: a crash, no drain.
    pub fn kill(&mut self) {
        self.child.kill().expect("kill -9 the worker");
        let _ = self.child.wait();
    }

    /// Sends SIGTERM, as Kubernetes does.
    pub fn terminate(&self) {
        let status = Command::new("kill").args(["-TERM", &self.pid().to_string()]).status().expect("run kill");
        assert!(status.success(), "kill -TERM failed");
    }

    /// Waits for the process to exit and for its last log line to be read.
    pub async fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let pid = self.pid();
        let child = &mut self.child;
        let what = format!("worker {pid} to exit");
        let status = wait_until(&what, timeout, || {
            let status = child.try_wait().expect("try_wait");
            async move { status }
        })
        .await;
        let closed = &self.stderr_closed;
        wait_until("the worker's stderr to close", timeout, || async { closed.load(Ordering::SeqCst).then_some(()) })
            .await;
        status
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
