//! [`PythonHost`]: the transport of a `python:package.module:Class?key=value` seat: a Python
//! process running `python/simfleet/host.py` (embedded here), spoken to in JSON lines over its
//! pipes (docs/agents.md, "The host protocol").
//!
//! A process per seat per job, not an interpreter embedded in the worker: a policy that leaks,
//! crashes or hangs takes down its own process only; the worker kills it and answers the job
//! with a `policy_error`. Each answer is awaited for at most the decision timeout
//! (`SIMFLEET_PYTHON_TIMEOUT` seconds, default 10); the interpreter is `SIMFLEET_PYTHON`
//! (default `python3`), and it finds the policy's module on its `PYTHONPATH`.
//!
//! The engine reads the host's answers itself, blocking: a decision is then one round trip
//! between two processes and no third thread on its path (a reader thread handing lines over a
//! channel cost a wake-up per decision, a fifth of a decision's time). A watchdog thread per
//! host enforces the timeout from the side: it looks at the pending call's start a few times
//! per timeout and kills a host that overran it, which ends the engine's read.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

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
    child: Arc<Mutex<Child>>,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    watch: Arc<Watch>,
    timeout: Duration,
    line: String,
}

/// What the engine and the host's watchdog share: the pending call, if any.
#[derive(Debug)]
struct Watch {
    epoch: Instant,
    /// When the pending call started, in nanoseconds since `epoch`, plus one; 0: none pending.
    started: AtomicU64,
    /// How long the pending call may take, in nanoseconds.
    allowed: AtomicU64,
    /// Set when the watchdog killed the host for overrunning a call.
    fired: AtomicBool,
    stop: Mutex<bool>,
    stopped: Condvar,
}

impl Watch {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Until the host is dropped: a few looks per timeout at the pending call; kills the host
    /// when it overran.
    fn run(&self, child: &Mutex<Child>, period: Duration) {
        let mut stop = self.stop.lock().unwrap_or_else(|e| e.into_inner());
        while !*stop {
            let started = self.started.load(Ordering::Acquire);
            if started != 0 && self.now() > (started - 1).saturating_add(self.allowed.load(Ordering::Acquire)) {
                self.fired.store(true, Ordering::Release);
                let _ = child.lock().unwrap_or_else(|e| e.into_inner()).kill();
            }
            stop = self.stopped.wait_timeout(stop, period).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
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
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let timeout = Duration::from_secs_f64(timeout_seconds().max(0.001));
        let child = Arc::new(Mutex::new(child));
        let watch = Arc::new(Watch {
            epoch: Instant::now(),
            started: AtomicU64::new(0),
            allowed: AtomicU64::new(0),
            fired: AtomicBool::new(false),
            stop: Mutex::new(false),
            stopped: Condvar::new(),
        });
        // A look every quarter of the timeout: an overrun is caught within 1.25 timeouts.
        let period = (timeout / 4).clamp(Duration::from_millis(1), Duration::from_secs(1));
        let (w, c) = (watch.clone(), child.clone());
        std::thread::Builder::new()
            .name(format!("python-seat-{}", seat.seat))
            .spawn(move || w.run(&c, period))
            .map_err(|e| invalid(format!("cannot start the Python host's watchdog: {e}")))?;
        let mut host = PythonHost { seat: seat.clone(), child, stdin, stdout, watch, timeout, line: String::new() };
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
        let allowed = u64::try_from(wait.as_nanos()).unwrap_or(u64::MAX);
        self.watch.allowed.store(allowed, Ordering::Release);
        self.watch.started.store(self.watch.now() + 1, Ordering::Release);
        self.line.clear();
        let read = self.stdout.read_line(&mut self.line);
        self.watch.started.store(0, Ordering::Release);
        if self.watch.fired.load(Ordering::Acquire) {
            let secs = wait.as_secs_f64();
            return Err(self.error(format!(
                "{} gave no answer within {secs} s (SIMFLEET_PYTHON_TIMEOUT); its host was stopped",
                self.seat.class
            )));
        }
        match read {
            Ok(n) if n > 0 => {
                let answer = self.line.trim_end();
                let reply: Value = serde_json::from_str(answer)
                    .map_err(|e| self.error(format!("the host answered {answer:?}, not JSON: {e}")))?;
                match reply.get("error").and_then(Value::as_str) {
                    Some(err) => Err(self.error(format!("{} raised {err}", self.seat.class))),
                    None => Ok(reply),
                }
            }
            _ => Err(self.died()),
        }
    }

    fn died(&mut self) -> JobError {
        let status = self.child.lock().unwrap_or_else(|e| e.into_inner()).wait();
        let status = status.map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
        self.error(format!("the host process of {} died ({status})", self.seat.class))
    }
}

impl Drop for PythonHost {
    fn drop(&mut self) {
        *self.watch.stop.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.watch.stopped.notify_all();
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        let _ = child.kill();
        let _ = child.wait();
    }
}
