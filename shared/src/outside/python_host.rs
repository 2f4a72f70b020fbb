//! [`PythonHost`]: the transport of a `python:package.module:Class?key=value` seat: a Python
//! process running `python/simfleet/host.py` (embedded here), spoken to in JSON lines over its
//! pipes (docs/agents.md, "The host protocol").
//!
//! A process per seat per job, not an interpreter embedded in the worker: a policy that leaks,
//! crashes or hangs takes down its own process only; the worker kills it and answers the job
//! with a `policy_error`. Each answer is awaited for at most the decision timeout
//! (`SIMFLEET_PYTHON_TIMEOUT` seconds, default 10); the interpreter is `SIMFLEET_PYTHON`
//! (default `python3`), and it finds the policy's module on its `PYTHONPATH`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::{json, Value};

use super::policy_error;
use crate::protocol::JobError;
use crate::spec::Spec;

/// The host script, run with `python -u -c`.
const HOST: &str = include_str!("../../../python/simfleet/host.py");
/// Seconds to wait for one answer when `SIMFLEET_PYTHON_TIMEOUT` does not say.
const DEFAULT_TIMEOUT_SECONDS: f64 = 10.0;
/// Loading imports the module (numpy and the user's package): given at least this long.
const MIN_LOAD_SECONDS: f64 = 60.0;

/// A parsed `python:package.module:Class?key=value` seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PythonSeat {
    /// The seat.
    pub seat: usize,
    /// The spec as written.
    pub spec: String,
    /// `package.module:Class`.
    pub class: String,
    /// The parameters, as strings (the class parses them).
    pub params: Vec<(String, String)>,
}

impl PythonSeat {
    /// Parses seat `seat`'s spec; errors name `policy_set[<seat>]`.
    pub fn parse(seat: usize, spec: &Spec) -> Result<PythonSeat, JobError> {
        let class = spec.arg.clone().unwrap_or_default();
        let (module, name) = class.split_once(':').unwrap_or((&class, ""));
        if module.is_empty() || name.is_empty() {
            return Err(JobError::invalid(
                format!("policy_set[{seat}]"),
                spec,
                "a python seat is python:package.module:Class[?key=value&…]",
            ));
        }
        Ok(PythonSeat { seat, spec: spec.to_string(), class, params: spec.params.clone() })
    }
}

/// One running host process.
#[derive(Debug)]
pub struct PythonHost {
    seat: PythonSeat,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Option<String>>,
    timeout: Duration,
}

fn timeout_seconds() -> f64 {
    std::env::var("SIMFLEET_PYTHON_TIMEOUT").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_TIMEOUT_SECONDS)
}

impl PythonHost {
    /// Starts the host and constructs `Class(seat, **params)`. A module that cannot be imported
    /// or a class that refuses its parameters is an `invalid_job` naming the seat: the error
    /// `coordinator run` and `submit` refuse a sweep with before anything is played.
    pub fn start(seat: &PythonSeat) -> Result<PythonHost, JobError> {
        let python = std::env::var("SIMFLEET_PYTHON").unwrap_or_else(|_| "python3".into());
        let invalid = |why: String| JobError::invalid(format!("policy_set[{}]", seat.seat), &seat.spec, why);
        let mut child = Command::new(&python)
            .args(["-u", "-c", HOST])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| invalid(format!("cannot start the Python host {python:?} (SIMFLEET_PYTHON): {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        // The answers are read on a thread of their own so that a silent host can be timed out.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.ok()).is_err() {
                    return;
                }
            }
            let _ = tx.send(None);
        });
        let timeout = Duration::from_secs_f64(timeout_seconds().max(0.001));
        let mut host = PythonHost { seat: seat.clone(), child, stdin, lines, timeout };
        let params: serde_json::Map<String, Value> =
            seat.params.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect();
        let load = json!({"op": "load", "seat": seat.seat, "class": seat.class, "params": params});
        let wait = Duration::from_secs_f64(timeout_seconds().max(MIN_LOAD_SECONDS));
        match host.call(&load, wait) {
            Ok(_) => Ok(host),
            Err(e) if e.kind == crate::protocol::JobErrorKind::PolicyError => {
                Err(invalid(format!("cannot load {}: {}", seat.class, e.message)))
            }
            Err(e) => Err(e),
        }
    }

    /// Starts an episode with the seat's seed.
    pub fn reset(&mut self, seed: u64) -> Result<(), JobError> {
        self.call(&json!({"op": "reset", "seed": seed}), self.timeout).map(|_| ())
    }

    /// The policy's answer to `obs` (any JSON; the game checks it).
    pub fn act(&mut self, obs: Value) -> Result<Value, JobError> {
        let reply = self.call(&json!({"op": "act", "obs": obs}), self.timeout)?;
        Ok(reply.get("action").cloned().unwrap_or(Value::Null))
    }

    fn error(&self, message: String) -> JobError {
        policy_error(self.seat.seat, &self.seat.spec, message)
    }

    fn call(&mut self, msg: &Value, wait: Duration) -> Result<Value, JobError> {
        let mut line = msg.to_string();
        line.push('\n');
        if self.stdin.write_all(line.as_bytes()).and_then(|_| self.stdin.flush()).is_err() {
            return Err(self.died());
        }
        match self.lines.recv_timeout(wait) {
            Ok(Some(answer)) => {
                let reply: Value = serde_json::from_str(&answer)
                    .map_err(|e| self.error(format!("the host answered {answer:?}, not JSON: {e}")))?;
                match reply.get("error").and_then(Value::as_str) {
                    Some(err) => Err(self.error(format!("{} raised {err}", self.seat.class))),
                    None => Ok(reply),
                }
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => Err(self.died()),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let secs = wait.as_secs_f64();
                Err(self.error(format!(
                    "{} gave no answer within {secs} s (SIMFLEET_PYTHON_TIMEOUT); its host was stopped",
                    self.seat.class
                )))
            }
        }
    }

    fn died(&mut self) -> JobError {
        let status = self.child.wait().map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
        self.error(format!("the host process of {} died ({status})", self.seat.class))
    }
}

impl Drop for PythonHost {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
