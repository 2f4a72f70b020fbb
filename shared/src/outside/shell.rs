//! [`SeatShell`]: one outside seat's shell: its transport, the fallback's counts, and the
//! seat's per-episode faults.

use serde::Serialize;
use serde_json::Value;

use crate::protocol::EpisodeRecord;
use crate::stats::{Stats, StatsMap};

/// What went wrong with one seat's answers in an episode (the record's `outside` stat).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SeatFaults {
    /// Decisions asked of the seat.
    pub decisions: u64,
    /// Answers the game refused as illegal; the fallback decided instead.
    pub illegal: u64,
}

/// An outside seat: its transport `T` and the episode's faults.
#[derive(Clone, Debug)]
pub struct SeatShell<T> {
    /// The seat.
    pub seat: usize,
    /// The transport that answers for it.
    pub transport: T,
    faults: SeatFaults,
}

impl<T> SeatShell<T> {
    /// A shell over `transport` for seat `seat`.
    pub fn new(seat: usize, transport: T) -> SeatShell<T> {
        SeatShell { seat, transport, faults: SeatFaults::default() }
    }

    /// Forgets the episode's faults.
    pub fn reset(&mut self) {
        self.faults = SeatFaults::default();
    }

    /// The episode's faults.
    pub fn faults(&self) -> SeatFaults {
        self.faults
    }

    /// One decision: `ask` the transport, keep the answer if `legal` accepts it, else count it
    /// and take `fallback`'s.
    pub fn decide<A, R>(
        &mut self,
        ask: impl FnOnce(&mut T) -> R,
        legal: impl FnOnce(R) -> Option<A>,
        fallback: impl FnOnce() -> A,
    ) -> A {
        self.faults.decisions += 1;
        match legal(ask(&mut self.transport)) {
            Some(a) => a,
            None => {
                self.faults.illegal += 1;
                fallback()
            }
        }
    }
}

/// Adds the `outside` stat to `record`: per outside seat, its faults (`{"<seat>": {"decisions":
/// D, "illegal": I}}`). Without outside seats the record is left as it is.
pub fn add_faults(record: &mut EpisodeRecord, seats: impl IntoIterator<Item = (usize, SeatFaults)>) {
    let seats: serde_json::Map<String, Value> =
        seats.into_iter().map(|(seat, f)| (seat.to_string(), serde_json::to_value(f).expect("plain counts"))).collect();
    if seats.is_empty() {
        return;
    }
    let mut map: StatsMap = std::mem::take(&mut record.stats).into_map();
    map.insert("outside".into(), Value::Object(seats));
    record.stats = Stats::from(map);
}
