//! The real `worker` and `coordinator` binaries as child processes, for what only a process can
//! show: exit codes, signals, the metrics listener of its own recorder.
//!
//! Cargo hands a package's tests `CARGO_BIN_EXE_<name>` only for that package's own binaries,
//! and these are other packages' binaries, so the first test that needs one builds them: it runs
//! `cargo build --workspace --bins` with the cargo that runs the tests (`$CARGO`), for the test
//! executable's profile and target dir, once per test process. When the binaries are up to date
//! that is a no-op of a second or two, so `cargo test` alone needs no build step before it.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::wait::{wait_until, wait_until_or_none};

/// `target/<profile>/worker`, beside the `deps/` folder of the running test binary.
pub fn worker_binary() -> PathBuf {
    target_binary("worker")
}

/// `target/<profile>/coordinator`.
pub fn coordinator_binary() -> PathBuf {
    target_binary("coordinator")
}

/// `<dir>/<name>`, where `dir` is the test binary's `target/<profile>`, with the workspace's
/// binaries built there first; or `$SIMFLEET_BIN_DIR`, to run the suite against other builds of
/// the binaries (e.g. `SIMFLEET_BIN_DIR=target/release`, built as the container image builds
/// them), which are not built.
fn target_binary(name: &str) -> PathBuf {
    static BIN_DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = BIN_DIR.get_or_init(|| match std::env::var_os("SIMFLEET_BIN_DIR") {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => build_binaries(),
    });
    let dir = dir.as_ref().unwrap_or_else(|e| panic!("{e}"));
    let bin = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.is_file(), "{} is missing", bin.display());
    bin
}

/// Builds the workspace's binaries into the running test binary's `target/<profile>`, and
/// returns that folder.
fn build_binaries() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("the test executable's path: {e}"))?;
    let profile_dir: &Path = exe.parent().and_then(Path::parent).ok_or("the test is not in target/<profile>/deps/")?;
    let target_dir = profile_dir.parent().ok_or("the test is not in target/<profile>/deps/")?;
    // `cargo test` builds tests with the `test` profile into target/debug, the `dev` profile's
    // folder; `--release` with `bench` into target/release; a custom profile into its own name.
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev",
        Some(other) => other,
        None => return Err(format!("{} names no profile", profile_dir.display())),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let mut cmd = Command::new(&cargo);
    cmd.args(["build", "--workspace", "--bins", "--profile", profile]).arg("--manifest-path").arg(&manifest);
    cmd.arg("--target-dir").arg(target_dir);
    // The test runs with the variables cargo gives a crate (CARGO_PKG_NAME, CARGO_MANIFEST_DIR,
    // ...). Some build scripts (ring's) rerun when those change: inherited, they would make this
    // build redo them, and the next `cargo test` redo them again.
    for (key, _) in std::env::vars_os() {
        let Some(name) = key.to_str() else { continue };
        let per_crate = name.starts_with("CARGO_PKG_")
            || matches!(
                name,
                "CARGO_MANIFEST_DIR"
                    | "CARGO_MANIFEST_PATH"
                    | "CARGO_CRATE_NAME"
                    | "CARGO_BIN_NAME"
                    | "CARGO_PRIMARY_PACKAGE"
                    | "CARGO_TARGET_TMPDIR"
                    | "CARGO_RUSTC_CURRENT_DIR"
            );
        if per_crate {
            cmd.env_remove(&key);
        }
    }
    let what = format!("cargo build --workspace --bins --profile {profile} --target-dir {}", target_dir.display());
    eprintln!("building the binaries the integration tests run: {what}");
    let status = cmd.status().map_err(|e| format!("cannot run {}: {e}", cargo.to_string_lossy()))?;
    if !status.success() {
        return Err(format!("building the worker and coordinator binaries failed ({status}): {what}"));
    }
    Ok(profile_dir.to_path_buf())
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
        WorkerProcess::spawn_command(Command::new(worker_binary()), args, env)
    }

    /// [`WorkerProcess::spawn`] inside network namespace `netns` (`ip netns exec`, which
    /// becomes the worker: the pid is the worker's).
    pub fn spawn_in_netns(netns: &str, args: &[&str], env: &[(&str, &str)]) -> WorkerProcess {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", netns]).arg(worker_binary());
        WorkerProcess::spawn_command(cmd, args, env)
    }

    fn spawn_command(mut cmd: Command, args: &[&str], env: &[(&str, &str)]) -> WorkerProcess {
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
