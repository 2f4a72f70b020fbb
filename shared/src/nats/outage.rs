//! JetStream outages: the errors that waiting cures, and waiting while saying so.
//!
//! While a server restarts, a stream's leader is re-elected, or a cluster has lost its quorum
//! (two of three servers down), JetStream answers nothing: requests time out, or find no
//! responders because no server leads the stream. None of that is a reason to give up: the
//! fleet resumes by itself once a majority of the servers is back. So workers, `submit` and
//! `watch` wait through these errors, and log one line per attempt that a person understands
//! ([`WAITING`]) rather than exiting or going quiet.
//!
//! async-nats gives each operation its own error type, so errors are classified by their text
//! (the client's and the server's wording, which both say "timed out", "no responders" or
//! "temporarily unavailable" for exactly these cases).

use std::fmt::Display;
use std::future::Future;
use std::time::Duration;

/// What the log says while JetStream cannot answer.
pub const WAITING: &str = "JetStream is not answering: a NATS server is restarting, a leader is being \
elected, or fewer than a majority of the NATS servers are up (a lost quorum); waiting for it";

/// First and longest pause between attempts.
const PAUSES: (Duration, Duration) = (Duration::from_millis(250), Duration::from_secs(5));

/// Whether an error means "JetStream cannot answer right now" (see the module docs). Takes
/// any error, `anyhow` chains included: the alternate form (`{:#}`) prints the causes too.
pub fn is_transient(error: &dyn Display) -> bool {
    let text = format!("{error:#}").to_lowercase();
    [
        "timed out",
        "timeout",
        "no responders",
        "temporarily unavailable",
        "not connected",
        "disconnected",
        "connection closed",
        "broken pipe",
        "connection reset",
        "heartbeat",
        "no suitable peers",
        "leader",
        // A publish reaching a server that has not yet caught up on which stream takes the
        // subject (right after a restart); a stream that really is gone fails elsewhere first.
        "no stream found for given subject",
    ]
    .iter()
    .any(|needle| text.contains(needle))
}

/// `"; <WAITING>"` when `error` is an outage, else nothing: for messages of loops that retry
/// anyway, so that the retry says why.
pub fn note(error: &dyn Display) -> String {
    if is_transient(error) {
        format!("; {WAITING}")
    } else {
        String::new()
    }
}

/// The pauses between attempts: from 250 ms, doubling, to 5 s.
#[derive(Clone, Debug)]
pub struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { next: PAUSES.0 }
    }
}

impl Backoff {
    /// The next pause (and doubles the one after it).
    pub fn next_pause(&mut self) -> Duration {
        let pause = self.next;
        self.next = (self.next * 2).min(PAUSES.1);
        pause
    }

    /// Back to the first pause, after a success.
    pub fn reset(&mut self) {
        self.next = PAUSES.0;
    }
}

/// Runs `op` until it succeeds or fails with an error that is not [transient](is_transient).
/// While it fails transiently, logs [`WAITING`] with `what` and the error, at `warn`, once per
/// attempt (at most every 5 s), and says so again when JetStream answers.
pub async fn wait_out<T, E, F, Fut>(what: &str, op: F) -> Result<T, E>
where
    E: Display,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    wait_out_if(what, |e: &E| is_transient(e), op).await
}

/// [`wait_out`] with the caller's idea of which errors are transient (e.g.
/// [`TopologyError::is_transient`](super::TopologyError::is_transient)).
pub async fn wait_out_if<T, E, C, F, Fut>(what: &str, transient: C, mut op: F) -> Result<T, E>
where
    E: Display,
    C: Fn(&E) -> bool,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let mut backoff = Backoff::default();
    let mut waited = false;
    loop {
        match op().await {
            Ok(value) => {
                if waited {
                    tracing::warn!(operation = what, "JetStream answers again; carrying on");
                }
                return Ok(value);
            }
            Err(e) if transient(&e) => {
                let pause = backoff.next_pause();
                tracing::warn!(
                    operation = what,
                    error = format!("{e:#}"),
                    retry_in_ms = pause.as_millis() as u64,
                    "{WAITING}"
                );
                waited = true;
                tokio::time::sleep(pause).await;
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outages_are_transient_and_refusals_are_not() {
        assert!(is_transient(&"request timed out"));
        assert!(is_transient(&"error while processing messages from the stream: 503, Some(\"No Responders\")"));
        assert!(is_transient(
            &"jetstream error: JetStream system temporarily unavailable (code 503, error code 10008)"
        ));
        assert!(is_transient(&"ack error: no stream found for given subject"));
        assert!(!is_transient(&"authorization violation"));
        assert!(!is_transient(&"JetStream stream SIMFLEET_JOBS: has retention Limits, expected WorkQueue"));
    }

    #[test]
    fn backoff_doubles_to_a_cap_and_resets() {
        let mut b = Backoff::default();
        let pauses: Vec<u64> = (0..7).map(|_| b.next_pause().as_millis() as u64).collect();
        assert_eq!(pauses, [250, 500, 1000, 2000, 4000, 5000, 5000]);
        b.reset();
        assert_eq!(b.next_pause(), Duration::from_millis(250));
    }
}
