//! The rules before round 1 (§5, §6): creating a game, registering, starting.
//!
//! Like every rule, each function validates completely before it mutates, pushes its events
//! only on success, and bumps `version` once per successful call.

use super::arguments::ArgumentList;
use super::config::{TrolleyConfig, MIN_AGENTS};
use super::error::{TextField, TrolleyError};
use super::events::{Event, EventSink};
use super::roles::EnvRng;
use super::state::{Agent, RoundId, TrolleyState};
use super::vocab::GameStatus;

/// The most characters of a display name after trimming (§6).
pub const MAX_NAME_CHARS: usize = 40;

/// Case-insensitive equality without allocating (`name_taken`).
fn same_name(a: &str, b: &str) -> bool {
    a.chars().flat_map(char::to_lowercase).eq(b.chars().flat_map(char::to_lowercase))
}

impl TrolleyState {
    /// A new game in `waiting_for_agents` (event `game_created`). Round ids are
    /// `round_id_base + number`: the arena passes a random base per game, headless games 0.
    pub fn new_game(
        config: TrolleyConfig,
        seed: u64,
        round_id_base: u64,
        out: &mut impl EventSink,
    ) -> Result<TrolleyState, TrolleyError> {
        config.validate()?;
        out.emit(|| Event::GameCreated);
        Ok(TrolleyState {
            config,
            seed,
            status: GameStatus::WaitingForAgents,
            agents: Vec::with_capacity(usize::from(config.max_agents)),
            rounds: Vec::new(),
            arguments: ArgumentList::default(),
            skips: Vec::new(),
            env_rng: EnvRng::new(seed),
            version: 0,
            round_id_base,
            minority_size: 0,
            max_rounds: 0,
        })
    }

    /// Agents needed to start: `min_agents`, and never fewer than 3.
    pub fn agents_needed(&self) -> usize {
        usize::from(self.config.min_agents).max(MIN_AGENTS)
    }

    /// Registers an agent under the caller's `id` (headless `agent_<seat>`, the arena's opaque
    /// id; the caller keeps ids unique). Checks `already_started`, `text_length` (1..=40 after
    /// trimming), `name_taken` (trimmed, case-insensitive), `game_full`. Returns the seat.
    pub fn register(&mut self, display_name: &str, id: &str, out: &mut impl EventSink) -> Result<usize, TrolleyError> {
        if !self.status.is_lobby() {
            return Err(TrolleyError::AlreadyStarted);
        }
        let name = display_name.trim();
        let chars = name.chars().count();
        if !(1..=MAX_NAME_CHARS).contains(&chars) {
            return Err(TrolleyError::TextLength { field: TextField::DisplayName, chars });
        }
        if self.agents.iter().any(|a| same_name(&a.display_name, name)) {
            return Err(TrolleyError::NameTaken);
        }
        let max = usize::from(self.config.max_agents);
        if self.agents.len() >= max {
            return Err(TrolleyError::GameFull { max });
        }
        let seat = self.agents.len();
        self.agents.push(Agent {
            id: id.to_string(),
            display_name: name.to_string(),
            seat: seat as u8,
            score: 0,
            has_been_operator: false,
            has_been_majority: false,
            has_been_minority: false,
            rounds_as_operator: 0,
            rounds_as_majority: 0,
            rounds_as_minority: 0,
        });
        if self.agents.len() >= self.agents_needed() {
            self.status = GameStatus::ReadyToStart;
        }
        self.version += 1;
        out.emit(|| Event::AgentRegistered { seat: seat as u8 });
        Ok(seat)
    }

    /// Starts the game atomically: checks `already_started`, then `not_enough_agents`; then
    /// resolves m and `max_rounds` from the final N, sets `in_progress` and creates round 1
    /// (events `game_started`, `round_started`).
    pub fn start(&mut self, out: &mut impl EventSink) -> Result<RoundId, TrolleyError> {
        if !self.status.is_lobby() {
            return Err(TrolleyError::AlreadyStarted);
        }
        let (have, need) = (self.agents.len(), self.agents_needed());
        if have < need {
            return Err(TrolleyError::NotEnoughAgents { have, need });
        }
        // A validated config is valid for every N ≥ min_agents; this guards hand-made snapshots.
        if let Err(reason) = self.config.minority_size.check(have) {
            return Err(TrolleyError::InvalidConfig { field: "minority_size", reason });
        }
        self.minority_size = self.config.minority_size.resolve(have) as u8;
        self.max_rounds = self.config.max_rounds_for(have);
        self.status = GameStatus::InProgress;
        out.emit(|| Event::GameStarted { agents: have as u8 });
        let id = self.begin_round(out);
        self.version += 1;
        Ok(id)
    }

    /// Puts the game back to just after registration, same config and roster, with a new seed:
    /// exactly the state `new_game` plus the same `register` calls would give, but reusing every
    /// buffer, and emitting the same events. The headless engine calls it once per episode.
    pub fn restart(&mut self, seed: u64, out: &mut impl EventSink) {
        for a in &mut self.agents {
            a.score = 0;
            a.has_been_operator = false;
            a.has_been_majority = false;
            a.has_been_minority = false;
            a.rounds_as_operator = 0;
            a.rounds_as_majority = 0;
            a.rounds_as_minority = 0;
        }
        self.seed = seed;
        self.env_rng.reset(seed);
        self.rounds.clear();
        self.arguments.clear();
        self.skips.clear();
        self.status = if self.agents.len() >= self.agents_needed() {
            GameStatus::ReadyToStart
        } else {
            GameStatus::WaitingForAgents
        };
        self.version = self.agents.len() as u64;
        self.minority_size = 0;
        self.max_rounds = 0;
        out.emit(|| Event::GameCreated);
        for seat in 0..self.agents.len() {
            out.emit(|| Event::AgentRegistered { seat: seat as u8 });
        }
    }
}
