//! [`Store`]: the games in memory, at most `--max-games` of them (§12).
//!
//! Each game has its own `std::sync::Mutex` (one request on a game at a time, so every request
//! is atomic; no lock is held across an `.await`), and the map of games has a `RwLock` held
//! only to find, add or evict a game. Lock order: the map before a game, never the reverse —
//! handlers and the ticker release the map before they lock a game, and only creation (which
//! checks which games have ended) holds both.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use simfleet::games::trolley::TrolleyError;

use super::game::ArenaGame;

/// A game and its id.
#[derive(Debug)]
pub struct Slot {
    /// The game id.
    pub id: String,
    game: Mutex<ArenaGame>,
}

impl Slot {
    /// Locks the game. A handler that panicked while holding the lock cannot have left the
    /// state half-changed (rules validate before they mutate), so a poisoned lock is used as is.
    pub fn lock(&self) -> MutexGuard<'_, ArenaGame> {
        self.game.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[derive(Debug, Default)]
struct Games {
    by_id: HashMap<String, Arc<Slot>>,
    /// Oldest first.
    order: VecDeque<Arc<Slot>>,
}

/// The games.
#[derive(Debug)]
pub struct Store {
    games: RwLock<Games>,
    max_games: usize,
}

impl Store {
    /// An empty store that holds at most `max_games` (at least 1).
    pub fn new(max_games: usize) -> Store {
        Store { games: RwLock::new(Games::default()), max_games: max_games.max(1) }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Games> {
        // Nothing panics while holding the map's lock; if it ever did, the map is still whole.
        self.games.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// The game `id` (`game_not_found`).
    pub fn get(&self, id: &str) -> Result<Arc<Slot>, TrolleyError> {
        self.read().by_id.get(id).cloned().ok_or(TrolleyError::GameNotFound)
    }

    /// Every game, newest first.
    pub fn games(&self) -> Vec<Arc<Slot>> {
        self.read().order.iter().rev().cloned().collect()
    }

    /// Adds a game under the first id of `new_id` not in use. When the store is full, first
    /// evicts the oldest game that has ended (`game_completed` or `game_truncated`); if none
    /// has, `too_many_games`.
    pub fn insert(&self, new_id: impl Fn() -> String, game: ArenaGame) -> Result<Arc<Slot>, TrolleyError> {
        let mut games = self.games.write().unwrap_or_else(PoisonError::into_inner);
        if games.order.len() >= self.max_games {
            let oldest_over = games.order.iter().position(|slot| slot.lock().state().is_terminal());
            let Some(index) = oldest_over else {
                return Err(TrolleyError::TooManyGames);
            };
            if let Some(evicted) = games.order.remove(index) {
                games.by_id.remove(&evicted.id);
            }
        }
        // Ids are random 64-bit values: a clash is unlikely, but would hand out someone's game.
        let id = std::iter::repeat_with(new_id).find(|id| !games.by_id.contains_key(id)).unwrap_or_default();
        let slot = Arc::new(Slot { id: id.clone(), game: Mutex::new(game) });
        games.by_id.insert(id, slot.clone());
        games.order.push_back(slot.clone());
        Ok(slot)
    }
}
