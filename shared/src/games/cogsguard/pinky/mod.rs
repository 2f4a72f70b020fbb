//! Pinky (§13.3–§13.11): a role-based scripted team policy with first-class modes, mood, goals
//! with timeouts, role selection by team need, map knowledge built only from observations, and
//! BFS navigation with a path cache and a stuck escape.
//!
//! # Layout
//!
//! - `config.rs`: the spec `pinky?miner=a&scout=b&aligner=c&scrambler=d&timeout=T&review=P`.
//! - `state.rs`: role, mode, mood, goal, dest (and their names).
//! - `knowledge.rs`: per-cell beliefs, F/K sources, safe/out/drain/frontier; `rows.rs`: the
//!   word-wise row comparisons of its update.
//! - `nav.rs`: tiered BFS, path cache, stuck escape; `astar.rs`: its search toward a cell or
//!   an object; `explore.rs`: the explore search.
//! - `mood.rs`: mood, excursion cost and eligibility, retreat entry.
//! - `step.rs`: the per-step decision (§13.8 order), success checks and goal timeouts.
//! - `modes.rs`: universal mode handlers; `roles.rs`: role idle rules and role modes.
//! - `select.rs`: resting, choosing_role, team need and review (§13.9).
//! - `debug.rs`: the debug string and the `mode_occupancy` stats.

mod astar;
mod config;
mod debug;
mod explore;
pub mod knowledge;
mod modes;
pub mod mood;
pub mod nav;
mod roles;
mod rows;
mod select;
pub mod state;
mod step;

#[cfg(test)]
mod tests;

pub use config::PinkyConfig;
pub use debug::occupancy_json;
pub use state::{Dest, DestKind, Goal, GoalKind, Mode, Mood, Role, Thing};

use knowledge::Knowledge;
use nav::Nav;

/// A Pinky agent.
#[derive(Clone, Debug)]
pub struct Pinky {
    /// Parameters.
    pub cfg: PinkyConfig,
    /// Seat (agent id).
    pub id: usize,
    /// Rank among seats with the same spec.
    pub rank: usize,
    /// Whether the role is fixed for the episode.
    pub fixed: bool,
    /// Current role.
    pub role: Role,
    /// Current mode.
    pub mode: Mode,
    /// The mode an `explore` or `move_to` returns to.
    pub resume: Mode,
    /// Mood of this step.
    pub mood: Mood,
    /// Current goal.
    pub goal: Option<Goal>,
    /// What the current `explore` looks for.
    pub explore_for: Thing,
    /// Map knowledge.
    pub know: Knowledge,
    /// Navigation state.
    pub nav: Nav,
    /// Per cell: the step until which it is avoided.
    pub avoid: Vec<u32>,
    /// Whether the agent held gear when it entered retreat.
    retreat_gear: bool,
    /// First step at which a failed frontier search may run again.
    frontier_retry_at: u32,
    /// Agent-steps per (role, mode), indexed by [`Role::index`] and [`Mode::index`].
    pub occupancy: [[u64; 12]; 6],
    debug: String,
}

impl Pinky {
    /// A Pinky agent for seat `id` with rank `rank` (§13.3).
    pub fn new(cfg: PinkyConfig, id: usize, rank: usize) -> Pinky {
        let fixed_role = cfg.fixed_role(rank);
        Pinky {
            cfg,
            id,
            rank,
            fixed: fixed_role.is_some(),
            role: fixed_role.unwrap_or(Role::Resting),
            mode: Mode::Idle,
            resume: Mode::Idle,
            mood: Mood::Cautious,
            goal: None,
            explore_for: Thing::Extractor,
            know: Knowledge::default(),
            nav: Nav::default(),
            avoid: Vec::new(),
            retreat_gear: false,
            frontier_retry_at: 0,
            occupancy: [[0; 12]; 6],
            debug: String::new(),
        }
    }

    /// Resets per-episode state; buffers are resized at the first observation.
    pub fn reset(&mut self) {
        let fixed_role = self.cfg.fixed_role(self.rank);
        self.role = fixed_role.unwrap_or(Role::Resting);
        self.mode = Mode::Idle;
        self.resume = Mode::Idle;
        self.mood = Mood::Cautious;
        self.goal = None;
        self.explore_for = Thing::Extractor;
        // Marks knowledge as stale so the first observation sizes and clears everything.
        self.know.rows = 0;
        self.retreat_gear = false;
        self.frontier_retry_at = 0;
        self.occupancy = [[0; 12]; 6];
        self.debug.clear();
    }

    /// (address, capacity) of every buffer, for the no-allocation check.
    pub fn buffers(&self, out: &mut Vec<(usize, usize)>) {
        self.know.buffers(out);
        self.nav.buffers(out);
        out.push((self.avoid.as_ptr() as usize, self.avoid.capacity()));
        out.push((self.debug.as_ptr() as usize, self.debug.capacity()));
    }

    /// The debug string of the last step (empty unless it was asked for).
    pub fn debug(&self) -> &str {
        &self.debug
    }
}
