//! The arena's own JSON shapes (§12 Game) and the clock fields of the rules' views.
//!
//! [`super::dto`] renders State, OpenActions, RoundRecord and FeedItem from the rules' state with
//! their wall-clock fields empty; this module fills them from the game's clocks, and renders the Game shape, which is made of arena facts (creation time, clocks).

use super::dto::view::{self, OpenActionsView, RoundRecord, StateView};
use serde::Serialize;
use simfleet::games::trolley::{GameStatus, MinoritySize, Phase, TrolleyConfig, TrolleyError};

use super::body::Timing;
use super::clock::rfc3339;
use super::game::ArenaGame;

/// A game's settings as created (unset `max_rounds` is 4·N, resolved at start).
#[derive(Clone, Debug, Serialize)]
pub struct ConfigView {
    /// Agents needed to start.
    pub min_agents: u8,
    /// Registration cap.
    pub max_agents: u8,
    /// `balanced` or m.
    pub minority_size: MinoritySize,
    /// The round cap, if set.
    pub max_rounds: Option<u32>,
    /// The decision of forced resolutions.
    pub default_decision: simfleet::games::trolley::Decision,
    /// The clocks.
    #[serde(flatten)]
    pub timing: Timing,
}

impl ConfigView {
    fn new(config: &TrolleyConfig, timing: Timing) -> ConfigView {
        ConfigView {
            min_agents: config.min_agents,
            max_agents: config.max_agents,
            minority_size: config.minority_size,
            max_rounds: config.max_rounds,
            default_decision: config.default_decision,
            timing,
        }
    }
}

/// `{agent_id, display_name, seat}` of `GET /api/games/{game_id}`.
#[derive(Clone, Debug, Serialize)]
pub struct AgentLine {
    /// Id.
    pub agent_id: String,
    /// Display name.
    pub display_name: String,
    /// Seat (registration order).
    pub seat: u8,
}

/// The Game shape (§12), with `agents` only in `GET /api/games/{game_id}`.
#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    /// Id.
    pub game_id: String,
    /// Status.
    pub status: GameStatus,
    /// RFC 3339.
    pub created_at: String,
    /// The seed, as a decimal string: seeds use all 64 bits, more than a JSON number keeps
    /// exactly in many clients (the `game_created` event shows it the same way).
    pub seed: String,
    /// Settings.
    pub config: ConfigView,
    /// Registered agents.
    pub agent_count: usize,
    /// 0 before start.
    pub current_round_number: u32,
    /// The current round's id.
    pub current_round_id: Option<String>,
    /// The current round's phase.
    pub current_phase: Option<Phase>,
    /// The roster, in seat order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<AgentLine>>,
}

impl GameView {
    /// The Game shape of `game`; with its roster if `with_agents`.
    pub fn new(id: &str, game: &ArenaGame, with_agents: bool) -> GameView {
        let state = game.state();
        let round = state.current_round();
        GameView {
            game_id: id.to_string(),
            status: state.status(),
            created_at: rfc3339(game.created_at),
            seed: state.seed().to_string(),
            config: ConfigView::new(state.config(), game.timing),
            agent_count: state.agents().len(),
            current_round_number: round.map_or(0, |r| r.number),
            current_round_id: round.map(|r| r.id.to_string()),
            current_phase: round.map(|r| r.phase),
            agents: with_agents.then(|| {
                state
                    .agents()
                    .iter()
                    .map(|a| AgentLine { agent_id: a.id.clone(), display_name: a.display_name.clone(), seat: a.seat })
                    .collect()
            }),
        }
    }
}

/// The State view with its clocks.
pub fn state(id: &str, game: &ArenaGame) -> StateView {
    let mut v = view::state_view(game.state(), id);
    v.phase_deadline_at = game.clock.phase_deadline().map(rfc3339);
    v.next_round_at = game.clock.next_round_at().map(rfc3339);
    v
}

/// The OpenActions view of `seat`; `deadline_at` is when its allowed actions expire.
pub fn open_actions(game: &ArenaGame, seat: usize) -> Result<OpenActionsView, TrolleyError> {
    let mut v = view::open_actions_view(game.state(), seat)?;
    v.deadline_at = game.clock.phase_deadline().filter(|_| v.can_act).map(rfc3339);
    Ok(v)
}

/// The resolved rounds with `resolved_at`.
pub fn history(game: &ArenaGame) -> Vec<RoundRecord> {
    let mut rounds = view::history(game.state());
    for r in &mut rounds {
        r.resolved_at = game.resolved_at(r.round_number).map(rfc3339);
    }
    rounds
}
