//! The `wasm:` modules a job names, made ready before it is queued: a module this process has
//! not seen is fetched from the JetStream object store once, checked against its hash and
//! compiled into the process's cache ([`simfleet::outside::wasm::ModuleCache`]); every later
//! job that names it plays from the cache. Fetching is I/O, so it happens here, on the async
//! side, never on a play thread.

use async_nats::jetstream::Context;
use simfleet::nats::modules::{fetch, FetchError};
use simfleet::outside::wasm::{is_hash, ModuleCache};
use simfleet::protocol::{Job, JobError, JobErrorKind};
use simfleet::Spec;

/// What stops a job's modules from being ready.
pub(crate) enum NotReady {
    /// The job cannot be played: answer it with this error.
    Refuse(JobError),
    /// The server did not answer: give the job back for later.
    Retry(String),
}

/// The hashes of the `wasm:` seats `job` plays (its policy set and its paired sets).
fn hashes(job: &Job) -> Vec<String> {
    let seats = job.policy_set.seats.iter().chain(job.paired.iter().flat_map(|p| p.seats.iter()));
    let mut out: Vec<String> = seats
        .filter_map(|s| Spec::parse(s).ok())
        .filter(|s| s.name == "wasm")
        .filter_map(|s| s.arg.filter(|a| is_hash(a)))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Makes every module `job` names ready in this process.
pub(crate) async fn ready(js: &Context, job: &Job) -> Result<(), NotReady> {
    for hash in hashes(job) {
        if ModuleCache::global().get(&hash).is_some() {
            continue;
        }
        let bytes = fetch(js, &hash).await.map_err(|e| match e {
            FetchError::Missing(_) => NotReady::Refuse(JobError::new(JobErrorKind::InvalidJob, e.to_string())),
            FetchError::Unavailable(..) => NotReady::Retry(e.to_string()),
        })?;
        // Compiling takes a while for a large module: off the async threads.
        let checked =
            tokio::task::spawn_blocking(move || ModuleCache::global().insert(&bytes, Some(&hash)).map(|_| ()))
                .await
                .map_err(|e| NotReady::Retry(e.to_string()))?;
        checked.map_err(|e| NotReady::Refuse(JobError::new(JobErrorKind::InvalidJob, format!("module: {e}"))))?;
    }
    Ok(())
}
