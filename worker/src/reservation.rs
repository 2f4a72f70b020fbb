//! The fleet-wide hold on a sweep's `llm_max_calls`: before a worker starts a model job of a
//! sweep with the limit, it reserves the job's expected calls
//! ([`simfleet::llm::estimate::expected_job_calls`]) in the counter `<sweep>.llm_calls` of the
//! sweeps KV bucket, with a compare-and-set on the counter's revision, tried again when another
//! worker wrote first. Once the counter has reached the limit, jobs are refused (answered
//! `cancelled`). Every grant saw the counter below the limit, so the calls reserved total at
//! most the limit plus one job's expected calls, however many workers play and however late
//! their results reach `watch`.

use async_nats::jetstream::kv;
use simfleet::names::llm_calls_key;

/// How many compare-and-set rounds one reservation tries before giving up: each lost round
/// means another worker's reservation succeeded, so this many is never reached on a sane fleet.
const MAX_ATTEMPTS: usize = 100;

/// The answer to a reservation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reservation {
    /// The calls are reserved; the counter holds `reserved` now.
    Granted { reserved: u64 },
    /// The counter had reached the limit: the job is not to be played.
    Refused { reserved: u64 },
}

/// Why a reservation could not be made (the server did not answer, or the counter is not a
/// number): the job goes back to the queue.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReservationError {
    #[error("cannot read the counter {key}: {source}")]
    Read { key: String, source: kv::EntryError },
    #[error("cannot write the counter {key}: {detail}")]
    Write { key: String, detail: String },
    #[error("the counter {key} holds {value:?}, not a number of calls")]
    NotANumber { key: String, value: String },
    #[error("the counter {key} kept changing under {MAX_ATTEMPTS} attempts to reserve")]
    Contended { key: String },
}

/// Reserves `calls` calls of `sweep`'s limit `max` unless the counter already reached it.
pub(crate) async fn reserve(
    kv: &kv::Store,
    sweep: &str,
    max: u64,
    calls: u64,
) -> Result<Reservation, ReservationError> {
    let key = llm_calls_key(sweep);
    for _ in 0..MAX_ATTEMPTS {
        let current = kv.entry(&key).await.map_err(|source| ReservationError::Read { key: key.clone(), source })?;
        let current = current.filter(|e| e.operation == kv::Operation::Put);
        let reserved = match &current {
            Some(e) => {
                let text = String::from_utf8_lossy(&e.value);
                text.trim()
                    .parse::<u64>()
                    .map_err(|_| ReservationError::NotANumber { key: key.clone(), value: text.to_string() })?
            }
            None => 0,
        };
        if reserved >= max {
            return Ok(Reservation::Refused { reserved });
        }
        let next = reserved.saturating_add(calls);
        let value: bytes::Bytes = next.to_string().into_bytes().into();
        let written = match &current {
            Some(e) => kv
                .update(&key, value, e.revision)
                .await
                .map(drop)
                .map_err(|e| (e.kind() == kv::UpdateErrorKind::WrongLastRevision, e.to_string())),
            None => kv
                .create(&key, value)
                .await
                .map(drop)
                .map_err(|e| (e.kind() == kv::CreateErrorKind::AlreadyExists, e.to_string())),
        };
        match written {
            Ok(()) => return Ok(Reservation::Granted { reserved: next }),
            // Another worker wrote first (in a cluster, a write of ours that timed out may
            // still be agreed on: "wrong last sequence"): read the counter again.
            Err((conflict, detail)) if conflict || detail.contains("wrong last sequence") => continue,
            Err((_, detail)) => return Err(ReservationError::Write { key, detail }),
        }
    }
    Err(ReservationError::Contended { key })
}
