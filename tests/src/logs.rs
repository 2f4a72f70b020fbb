//! The log lines of `simfleet::nats` in this test process, for tests that drive the shared NATS
//! code in-process (the same code, and so the same log lines, as the worker binary's) and must
//! show what it reports. One global subscriber collects `simfleet`'s events at `info` and up as
//! JSON lines; a test picks its own lines by a connection name no other test uses.

use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::wait::wait_until;

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Sink;

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let mut lines = LINES.lock().expect("log lines lock");
        lines.extend(text.lines().filter(|l| !l.is_empty()).map(str::to_string));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Starts collecting (once per process; later calls do nothing).
pub fn collect() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let _ = tracing_subscriber::fmt()
            .json()
            .with_env_filter(tracing_subscriber::EnvFilter::new("simfleet=info"))
            .with_writer(|| Sink)
            .try_init();
    });
}

/// Every collected line containing all of `needles`.
pub fn lines_with(needles: &[&str]) -> Vec<String> {
    let lines = LINES.lock().expect("log lines lock");
    lines.iter().filter(|l| needles.iter().all(|n| l.contains(n))).cloned().collect()
}

/// Waits for a collected line containing all of `needles` and returns it.
pub async fn wait_for(needles: &[&str], timeout: Duration) -> String {
    let what = format!("a log line containing {needles:?}");
    wait_until(&what, timeout, || async { lines_with(needles).into_iter().next() }).await
}
