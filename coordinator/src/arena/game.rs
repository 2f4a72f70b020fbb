//! [`ArenaGame`]: one live game, the rules' [`TrolleyState`] plus what only the arena has —
//! tokens, clocks, the feed and wall-clock times (§5: the engine stores no wall-clock values).
//!
//! Every change goes through [`ArenaGame::apply`], which runs one rule call and, only if it
//! succeeded, records its events in the feed and restarts the clock that applies now
//! (`ticker.rs`), so no handler can change a game without its feed and deadlines following.

use std::time::Instant;

use super::dto::feed::{feed_item, FeedItem};
use simfleet::games::trolley::{Event, TrolleyError, TrolleyState};

use super::auth;
use super::body::Timing;
use super::clock::rfc3339;
use super::ticker::Clock;

/// A live game. Lives behind its own mutex in the store; nothing here awaits.
#[derive(Debug)]
pub struct ArenaGame {
    /// The rules' state: change it only through [`ArenaGame::apply`].
    state: TrolleyState,
    /// The clocks asked for at creation.
    pub timing: Timing,
    /// When the game was created.
    pub created_at: Instant,
    /// Bearer tokens by seat.
    tokens: Vec<String>,
    /// Every event so far as a feed item; `seq` = index + 1.
    feed: Vec<FeedItem>,
    /// When each resolved round resolved, by round index (rounds resolve in order).
    resolved_at: Vec<Instant>,
    /// The deadline running now (`ticker.rs`).
    pub(super) clock: Clock,
}

impl ArenaGame {
    /// A new game from `new_game`'s result and its events.
    pub fn new(state: TrolleyState, timing: Timing, events: Vec<Event>, now: Instant) -> ArenaGame {
        let mut game = ArenaGame {
            state,
            timing,
            created_at: now,
            tokens: Vec::new(),
            feed: Vec::new(),
            resolved_at: Vec::new(),
            clock: Clock::default(),
        };
        game.record(&events, now);
        game.settle(now);
        game
    }

    /// The rules' state (read-only).
    pub fn state(&self) -> &TrolleyState {
        &self.state
    }

    /// Runs one rule call at `now`. On success its events join the feed and the clocks follow
    /// the new state (which may start the next round at once, with a pause of 0); on error the
    /// rules left the state untouched, so there is nothing to record.
    pub fn apply<T>(
        &mut self,
        now: Instant,
        rule: impl FnOnce(&mut TrolleyState, &mut Vec<Event>) -> Result<T, TrolleyError>,
    ) -> Result<T, TrolleyError> {
        let out = self.run_rule(now, rule)?;
        self.settle(now);
        Ok(out)
    }

    /// [`ArenaGame::apply`] without the clocks: for `settle` itself.
    pub(super) fn run_rule<T>(
        &mut self,
        now: Instant,
        rule: impl FnOnce(&mut TrolleyState, &mut Vec<Event>) -> Result<T, TrolleyError>,
    ) -> Result<T, TrolleyError> {
        let mut events = Vec::new();
        let out = rule(&mut self.state, &mut events)?;
        self.record(&events, now);
        Ok(out)
    }

    /// Appends `events` to the feed, stamped `now`.
    fn record(&mut self, events: &[Event], now: Instant) {
        let created_at = rfc3339(now);
        for event in events {
            if let Event::RoundResolved { .. } = event {
                self.resolved_at.push(now);
            }
            let seq = self.feed.len() as u64 + 1;
            self.feed.push(feed_item(&self.state, event, seq, Some(created_at.clone())));
        }
    }

    /// Registers `display_name` under the fresh opaque `agent_id`, holding `token`; returns the
    /// seat.
    pub fn register(
        &mut self,
        now: Instant,
        display_name: &str,
        agent_id: String,
        token: String,
    ) -> Result<usize, TrolleyError> {
        let seat = self.apply(now, |s, out| s.register(display_name, &agent_id, out))?;
        // Seats are registration order, so the token of seat i is always at index i.
        debug_assert_eq!(seat, self.tokens.len());
        self.tokens.push(token);
        Ok(seat)
    }

    /// Checks (5): the request's bearer token is `seat`'s.
    pub fn authorize(&self, seat: usize, bearer: Option<&str>) -> Result<(), TrolleyError> {
        match (self.tokens.get(seat), bearer) {
            (Some(token), Some(given)) if auth::same(token, given) => Ok(()),
            _ => Err(TrolleyError::Unauthorized),
        }
    }

    /// Every feed item so far, oldest first.
    pub fn feed(&self) -> &[FeedItem] {
        &self.feed
    }

    /// When round `number` resolved, if it has.
    pub fn resolved_at(&self, number: u32) -> Option<Instant> {
        (number as usize).checked_sub(1).and_then(|i| self.resolved_at.get(i)).copied()
    }
}
