//! [`SeatShell`]: one outside seat's shell: its transport, the fallback's counts, and the
//! seat's per-episode faults.

use serde::Serialize;

/// What went wrong with one seat's answers in an episode (the record's `outside` stat).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SeatFaults {
    /// Decisions asked of the seat.
    pub decisions: u64,
    /// Answers the game refused as illegal; the fallback decided instead.
    pub illegal: u64,
}

/// An outside seat: its transport `T` and the episode's faults.
#[derive(Debug)]
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
