//! Waiting on conditions with timeouts. Tests never sleep in place of a condition: they poll
//! the condition itself, briefly, until it holds or the timeout fails the test with `what`.

use std::future::Future;
use std::time::Duration;

/// How often conditions are polled.
const POLL: Duration = Duration::from_millis(50);

/// Polls `check` until it returns `Some`, or panics after `timeout` naming `what`.
pub async fn wait_until<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out after {timeout:?} waiting for {what}");
        tokio::time::sleep(POLL).await;
    }
}

/// Awaits `fut`, or panics after `timeout` naming `what`.
pub async fn within<T>(what: &str, timeout: Duration, fut: impl Future<Output = T>) -> T {
    match tokio::time::timeout(timeout, fut).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {timeout:?} waiting for {what}"),
    }
}

/// Polls `check` until it returns `Some`, or returns `None` after `timeout`, for callers that
/// fail with their own diagnostics.
pub async fn wait_until_or_none<T>(timeout: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(v) = check() {
            return Some(v);
        }
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(POLL).await;
    }
}
