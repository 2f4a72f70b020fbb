//! Deadlines (§12): the clock of what a game waits for, applied before every request on the
//! game and by a ticker task several times a second.
//!
//! The rules say what the game waits for ([`TrolleyState::waiting_on`]) and which rule ends the
//! wait (`expire_phase`, `expire_decision`, `start_next_round`); this module only keeps time. A
//! clock starts whenever the wait changes (another phase, another round) and runs for the
//! game's `phase_deadline_seconds`, `decision_deadline_seconds` or `round_pause_seconds`; `null`
//! waits indefinitely. When it expires, the named rule runs, stamped with the moment it is
//! applied, and the next wait's clock starts from that moment, so an agent always gets the
//! whole window of a phase even if the ticker ran late.

use std::sync::Arc;
use std::time::{Duration, Instant};

use simfleet::games::trolley::{Phase, TrolleyState, Waiting};

use super::game::ArenaGame;
use super::store::Store;

/// How often the ticker looks for expired deadlines. §12 asks for at least once a second;
/// five times keeps a 1-second deadline within a fifth of a second of its time.
pub const TICK: Duration = Duration::from_millis(200);

/// What a game waits for, and since which round and phase: a change of any of them starts a
/// new clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Wait {
    on: Waiting,
    round: u32,
    phase: Option<Phase>,
}

impl Wait {
    fn of(state: &TrolleyState) -> Wait {
        let round = state.current_round();
        Wait { on: state.waiting_on(), round: round.map_or(0, |r| r.number), phase: round.map(|r| r.phase) }
    }
}

/// The running clock of a game.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock {
    /// The wait it times (`None` before the first [`ArenaGame::settle`]).
    wait: Option<Wait>,
    /// When it expires; `None` = never.
    due: Option<Instant>,
}

impl Clock {
    /// When the current debate phase or decision expires.
    pub fn phase_deadline(&self) -> Option<Instant> {
        self.due.filter(|_| self.waiting_on(&[Waiting::Debate, Waiting::Decision]))
    }

    /// When the next round starts.
    pub fn next_round_at(&self) -> Option<Instant> {
        self.due.filter(|_| self.waiting_on(&[Waiting::NextRound]))
    }

    fn waiting_on(&self, on: &[Waiting]) -> bool {
        self.wait.is_some_and(|w| on.contains(&w.on))
    }
}

impl ArenaGame {
    /// Applies every deadline that passed by `now` (several if a pause of 0 follows a forced
    /// resolution), then makes sure the clock times the current wait.
    pub fn settle(&mut self, now: Instant) {
        loop {
            let wait = Wait::of(self.state());
            if self.clock.wait != Some(wait) {
                let [phase, decision, pause] = self.timing.durations();
                let length = match wait.on {
                    Waiting::Debate => phase,
                    Waiting::Decision => decision,
                    Waiting::NextRound => pause,
                    Waiting::Start | Waiting::Over => None,
                };
                self.clock = Clock { wait: Some(wait), due: length.map(|d| now + d) };
            }
            if self.clock.due.is_none_or(|due| due > now) {
                return;
            }
            let expired = match wait.on {
                Waiting::Debate => self.run_rule(now, |s, out| s.expire_phase(out).map(drop)),
                Waiting::Decision => self.run_rule(now, |s, out| s.expire_decision(out).map(drop)),
                Waiting::NextRound => self.run_rule(now, |s, out| s.start_next_round(out).map(drop)),
                Waiting::Start | Waiting::Over => return,
            };
            if expired.is_err() {
                // `waiting_on` named a rule the state refuses: a bug in one of them. Stop this
                // clock rather than retry the same refusal forever.
                self.clock.due = None;
                return;
            }
        }
    }
}

/// Applies deadlines to every game every [`TICK`], until the task is dropped.
pub async fn run(store: Arc<Store>) {
    let mut interval = tokio::time::interval(TICK);
    // After a stall, one catch-up pass is enough: `settle` applies everything overdue.
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        interval.tick().await;
        let now = Instant::now();
        for slot in store.games() {
            slot.lock().settle(now);
        }
    }
}
