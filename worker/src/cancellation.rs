//! What a worker needs to know of each sweep: whether it is cancelled, and its class and share
//! on the fleet (`schedule`). Read from the sweep's entry in the `simfleet_sweeps` KV bucket,
//! cached.
//!
//! `coordinator cancel` sets the entry's status to `cancelled` and purges the sweep's jobs, but
//! jobs already delivered (or published during the purge) still reach workers; those are
//! answered `cancelled` without playing. A short TTL cache keeps this to one KV read per sweep
//! every few seconds instead of one per job, and survives reconnects without the bookkeeping a
//! KV watch would need. When the KV read fails the job is played: a cancel is a saving, not a
//! correctness matter, and a spurious `cancelled` would lose work. A model job is the exception:
//! it is given back instead, since its sweep's `llm_max_calls` is unknown (`job`).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_nats::jetstream::kv;
use simfleet::names::{Priority, SweepEntry, SweepStatus, DEFAULT_SHARE};

/// How long a sweep's state is trusted before a job reads it again.
pub const SWEEP_STATE_TTL: Duration = Duration::from_secs(2);

/// How often a queued job with `llm` seats reads its sweep's state again while it waits to
/// start: a sweep stopped at its `llm_max_calls` (or cancelled) must not start the model jobs a
/// worker already holds, each worth many paid calls.
pub const QUEUED_MODEL_JOB_RECHECK: Duration = Duration::from_millis(250);

/// The sweeps this worker has seen cancelled, readable without waiting (the I/O threads look
/// here right before a job with `llm` seats starts).
#[derive(Clone, Default)]
pub(crate) struct StoppedSweeps(Arc<Mutex<HashSet<String>>>);

impl StoppedSweeps {
    pub(crate) fn contains(&self, sweep: &str) -> bool {
        self.lock().contains(sweep)
    }

    fn retain(&self, keep: impl Fn(&str) -> bool) {
        self.lock().retain(|s| keep(s));
    }

    fn set(&self, sweep: &str, stopped: bool) {
        let mut set = self.lock();
        if stopped {
            set.insert(sweep.to_string());
        } else {
            set.remove(sweep);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A sweep's state as a worker uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SweepState {
    pub(crate) cancelled: bool,
    pub(crate) priority: Priority,
    pub(crate) share: u32,
    /// The sweep file's `llm_max_calls`, which a model job reserves against
    /// ([`crate::reservation`]).
    pub(crate) llm_max_calls: Option<u64>,
    /// Whether the entry could be read: a model job whose limit is unknown is not started.
    pub(crate) known: bool,
}

impl SweepState {
    /// A sweep without a (readable) entry: live, normal, share 1. Jobs published straight to
    /// the queue, without `coordinator submit`, have none.
    const LIVE: SweepState = SweepState {
        cancelled: false,
        priority: Priority::Normal,
        share: DEFAULT_SHARE,
        llm_max_calls: None,
        known: true,
    };
}

/// A cache of sweep states read from the KV bucket.
pub(crate) struct SweepStates {
    kv: kv::Store,
    ttl: Duration,
    /// Every sweep last read cancelled.
    stopped: StoppedSweeps,
    /// `std::sync::Mutex`: held only to read or write the map, never across an `.await`.
    cache: Mutex<HashMap<String, (Instant, SweepState)>>,
}

impl SweepStates {
    pub(crate) fn new(kv: kv::Store, ttl: Duration, stopped: StoppedSweeps) -> SweepStates {
        SweepStates { kv, ttl, stopped, cache: Mutex::new(HashMap::new()) }
    }

    /// The sweeps bucket, where model jobs reserve their calls.
    pub(crate) fn kv(&self) -> &kv::Store {
        &self.kv
    }

    /// `sweep`'s state, as of at most `ttl` ago.
    pub(crate) async fn state(&self, sweep: &str) -> SweepState {
        self.state_within(sweep, self.ttl).await
    }

    /// `sweep`'s state, as of at most `max_age` ago.
    pub(crate) async fn state_within(&self, sweep: &str, max_age: Duration) -> SweepState {
        if let Some((at, state)) = self.lock().get(sweep) {
            if at.elapsed() < max_age {
                return *state;
            }
        }
        self.read(sweep).await
    }

    /// `sweep`'s state read now (and cached): the pull loop reads the class and share of the
    /// sweeps with jobs once a second, so that `coordinator priority` takes effect within one.
    pub(crate) async fn read(&self, sweep: &str) -> SweepState {
        let state = match self.kv.get(sweep).await {
            Ok(Some(bytes)) => match serde_json::from_slice::<SweepEntry>(&bytes) {
                Ok(entry) => SweepState {
                    cancelled: entry.status == SweepStatus::Cancelled,
                    priority: entry.priority,
                    share: entry.share.max(1),
                    llm_max_calls: entry.llm_max_calls,
                    known: true,
                },
                Err(e) => {
                    tracing::warn!(sweep, error = %e, "the sweep's KV entry is not a SweepEntry; treating it as live");
                    SweepState::LIVE
                }
            },
            Ok(None) => SweepState::LIVE,
            Err(e) => {
                tracing::warn!(sweep, error = %e, "cannot read the sweep's KV entry; treating it as live");
                return SweepState { known: false, ..SweepState::LIVE };
            }
        };
        let now = Instant::now();
        let mut cache = self.lock();
        // Forget sweeps not seen for a while, so a long-lived worker does not grow without bound.
        cache.retain(|_, (at, _)| now.duration_since(*at) < self.ttl * 100);
        self.stopped.retain(|s| cache.contains_key(s));
        cache.insert(sweep.to_string(), (now, state));
        self.stopped.set(sweep, state.cancelled);
        state
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Instant, SweepState)>> {
        // Poisoning needs a panic while the lock is held; the code above cannot panic there.
        self.cache.lock().expect("sweep state cache lock")
    }
}
