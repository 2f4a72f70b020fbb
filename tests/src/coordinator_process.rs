//! The real `coordinator` binary as a child process, for what a user sees: its stdout (the
//! sweep id, tables), its stderr (progress is off with `--quiet`; warnings such as "waiting for
//! JetStream" remain) and its exit code. The first test that needs the binary builds it (see
//! [`crate::worker_process`]), or `$SIMFLEET_BIN_DIR` names a folder of builds to run instead.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::wait::{wait_until, wait_until_or_none};
use crate::worker_process::coordinator_binary;

/// Runs `coordinator <args>` to its end, with no `NATS_URL`, `SIMFLEET_*` or `RUST_LOG` of the
/// test's own environment: what a user's shell without settings would get.
pub fn coordinator_output(args: &[&str]) -> Output {
    let mut cmd = Command::new(coordinator_binary());
    cmd.args(args).stdin(Stdio::null());
    for (key, _) in std::env::vars() {
        if key == "NATS_URL" || key.starts_with("SIMFLEET_") || key == "RUST_LOG" {
            cmd.env_remove(key);
        }
    }
    cmd.output().expect("run the coordinator")
}

/// A running `coordinator` with its output collected.
#[derive(Debug)]
pub struct CoordinatorProcess {
    child: Child,
    stderr: Arc<Mutex<Vec<String>>>,
    stdout: Arc<Mutex<String>>,
    /// How many of stdout and stderr reached their end.
    closed: Arc<AtomicUsize>,
}

impl CoordinatorProcess {
    /// Starts `coordinator <args>` with `env` added and every `NATS_URL` and
    /// `SIMFLEET_COORDINATOR__*` of the test's own environment removed.
    pub fn spawn(args: &[&str], env: &[(&str, &str)]) -> CoordinatorProcess {
        let mut cmd = Command::new(coordinator_binary());
        cmd.args(args);
        for (key, _) in std::env::vars() {
            if key == "NATS_URL" || key.starts_with("SIMFLEET_COORDINATOR") || key == "RUST_LOG" {
                cmd.env_remove(key);
            }
        }
        cmd.envs(env.iter().copied()).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("cannot start the coordinator binary");
        let (out, err) = (child.stdout.take().expect("piped stdout"), child.stderr.take().expect("piped stderr"));
        let closed = Arc::new(AtomicUsize::new(0));
        let stdout = Arc::new(Mutex::new(String::new()));
        let (sink, done) = (Arc::clone(&stdout), Arc::clone(&closed));
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = BufReader::new(out).read_to_string(&mut text);
            sink.lock().expect("stdout lock").push_str(&text);
            done.fetch_add(1, Ordering::SeqCst);
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (sink, done) = (Arc::clone(&stderr), Arc::clone(&closed));
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                sink.lock().expect("stderr lock").push(line);
            }
            done.fetch_add(1, Ordering::SeqCst);
        });
        CoordinatorProcess { child, stderr, stdout, closed }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Every stderr line so far.
    pub fn stderr(&self) -> Vec<String> {
        self.stderr.lock().expect("stderr lock").clone()
    }

    /// Stdout, complete once the process has exited and [`CoordinatorProcess::wait_exit`]
    /// returned.
    pub fn stdout(&self) -> String {
        self.stdout.lock().expect("stdout lock").clone()
    }

    /// Waits for a stderr line containing `needle` and returns it; on a timeout, fails with
    /// the stderr so far.
    pub async fn wait_for_stderr(&self, needle: &str, timeout: Duration) -> String {
        let found = wait_until_or_none(timeout, || self.stderr().into_iter().find(|l| l.contains(needle))).await;
        found.unwrap_or_else(|| {
            panic!(
                "no coordinator stderr line containing {needle:?} after {timeout:?}; stderr:\n{}",
                self.stderr().join("\n")
            )
        })
    }

    /// Kills the process (SIGKILL: no chance to clean up).
    pub fn kill(&mut self) {
        self.child.kill().expect("kill the coordinator");
    }

    /// Whether the process has exited.
    pub fn has_exited(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_some()
    }

    /// Waits for the process to exit and for all of its output to be read.
    pub async fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let child = &mut self.child;
        let status = wait_until("the coordinator to exit", timeout, || {
            let status = child.try_wait().expect("try_wait");
            async move { status }
        })
        .await;
        let closed = &self.closed;
        wait_until("the coordinator's stdout and stderr to close", timeout, || async {
            (closed.load(Ordering::SeqCst) == 2).then_some(())
        })
        .await;
        status
    }
}

impl Drop for CoordinatorProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
