//! The four games behind one [`Game`] trait, dispatched by [`GameKind`] `match` (no `Box<dyn>`).
//!
//! Each game lives in its own folder, `games/<game>/`, with its rules, scenarios, policies and
//! replay. A game is added with one folder, one [`GameKind`] variant and one [`AnyGame`] arm.

use std::fmt;
use std::str::FromStr;

use crate::protocol::{EpisodeRecord, JobError};
use crate::spec::Spec;
use crate::RunEnv;

pub mod bucket_brigade;
pub mod cogsguard;
pub mod deception;
pub mod trolley;

#[cfg(test)]
mod fingerprint;
#[cfg(test)]
pub(crate) mod testing;

/// Declares [`GameKind`] and [`GameKind::ALL`] from one list of variants, so a game added to
/// the enum is in `ALL` without a second edit (a variant left out of a hand-written `ALL` would
/// compile and be refused at run time).
macro_rules! game_kinds {
    ($($(#[$doc:meta])* $variant:ident,)+) => {
        /// A game id.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum GameKind {
            $($(#[$doc])* $variant,)+
        }

        impl GameKind {
            /// Every game, in the enum's order.
            pub const ALL: [GameKind; [$(GameKind::$variant),+].len()] = [$(GameKind::$variant),+];
        }
    };
}

game_kinds! {
    /// Cooperative firefighting on a ring of houses.
    BucketBrigade,
    /// Dialogue-only social deduction.
    Deception,
    /// Grid world of role-based agents holding junctions against the clips.
    Cogsguard,
    /// The Trolley Problem Arena.
    Trolley,
}

impl GameKind {
    /// The game id used in jobs, subjects, metric names and labels.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameKind::BucketBrigade => "bucket_brigade",
            GameKind::Deception => "deception",
            GameKind::Cogsguard => "cogsguard",
            GameKind::Trolley => "trolley",
        }
    }

    /// The game's static description.
    pub fn info(self) -> &'static GameInfo {
        match self {
            GameKind::BucketBrigade => &bucket_brigade::BucketBrigade::INFO,
            GameKind::Deception => &deception::Deception::INFO,
            GameKind::Cogsguard => &cogsguard::Cogsguard::INFO,
            GameKind::Trolley => &trolley::Trolley::INFO,
        }
    }

    /// The fields a sweep may override in scenario `name` of this game (`NAME?field=value&…`),
    /// each with the value it has when not overridden, in the game's table order; `None` for
    /// an unknown scenario. What `coordinator list GAME` shows.
    pub fn scenario_fields(self, name: &str) -> Option<Vec<FieldDefault>> {
        match self {
            GameKind::BucketBrigade => bucket_brigade::field_defaults(name),
            GameKind::Deception => deception::scenario::field_defaults(name),
            GameKind::Cogsguard => cogsguard::scenario::field_defaults(name),
            GameKind::Trolley => trolley::scenario::field_defaults(name),
        }
    }

    /// Episodes per job when the sweep does not say: a fixed constant per game and scenario,
    /// sized so a job takes well under a second and a message carries enough work.
    pub fn default_episodes_per_job(self, scenario: &Spec) -> u64 {
        match self {
            GameKind::BucketBrigade => bucket_brigade::BucketBrigade::default_episodes_per_job(scenario),
            GameKind::Deception => deception::Deception::default_episodes_per_job(scenario),
            GameKind::Cogsguard => cogsguard::Cogsguard::default_episodes_per_job(scenario),
            GameKind::Trolley => trolley::Trolley::default_episodes_per_job(scenario),
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing an unknown game id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game {0:?} (known: {known})", known = GameKind::ALL.map(GameKind::as_str).join(", "))]
pub struct UnknownGame(pub String);

impl FromStr for GameKind {
    type Err = UnknownGame;
    fn from_str(s: &str) -> Result<GameKind, UnknownGame> {
        GameKind::ALL.into_iter().find(|g| g.as_str() == s).ok_or_else(|| UnknownGame(s.to_string()))
    }
}

pub use crate::aggregate::Buckets;

/// A scenario or policy name with a one-line description, for `coordinator list`.
#[derive(Debug)]
pub struct Entry {
    /// The name (as written in specs).
    pub name: &'static str,
    /// What it is.
    pub about: &'static str,
}

/// A scenario field a sweep may override, and its value when it is not overridden.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FieldDefault {
    /// The field name, as written after `?` in a scenario string.
    pub name: &'static str,
    /// The value in the scenario's own form (`5`, `0.02`, `plurality`, `true`); `None` when the
    /// scenario has none (`note` says what applies).
    pub default: Option<String>,
    /// What applies instead of a plain default, when something does (empty otherwise).
    #[serde(skip_serializing_if = "str::is_empty")]
    pub note: &'static str,
}

impl FieldDefault {
    /// A field with a plain default.
    pub fn new(name: &'static str, default: impl ToString) -> FieldDefault {
        FieldDefault { name, default: Some(default.to_string()), note: "" }
    }
}

/// What a game is, statically: everything the coordinator, exports and metrics need to know.
#[derive(Debug)]
pub struct GameInfo {
    /// The game.
    pub kind: GameKind,
    /// `<game>-rules-<n>`.
    pub rules_version: &'static str,
    /// Named scenarios; the first is the default.
    pub scenarios: &'static [Entry],
    /// Policy names (with their spec syntax in `about`).
    pub policies: &'static [Entry],
    /// The game's stats keys, in the order its spec lists them (one CSV column each).
    pub stat_keys: &'static [&'static str],
    /// The outcome that counts as a win, or none (then summaries show mean team reward).
    pub win_outcome: Option<&'static str>,
    /// Every outcome label the game produces.
    pub outcomes: &'static [&'static str],
    /// Default metric buckets.
    pub buckets: Buckets,
    /// How many times the records-mode default episodes per job a summary job carries: about
    /// one second of play on one core when chosen, 0.1–0.3 s since issue 17's faster engines
    /// (docs/sweeps.md, "Episodes per job"). A summary job publishes one small aggregate, so its
    /// episodes cost only their play, and many times as many of them amortise the fleet's
    /// per-message cost. A constant, not a calibration, so that the expansion and the sweep id
    /// are the same on every machine.
    pub summary_scale: u64,
    /// Decisions one `llm` seat makes per episode, about: what `run` and `submit` print before
    /// playing and what a worker reserves against `llm_max_calls` ([`crate::llm::estimate`]).
    pub llm_decisions: LlmDecisions,
}

/// Decisions one `llm` seat makes per episode, about: `fixed + per_agent × agents`, measured
/// with the scripted fallback deciding.
#[derive(Clone, Copy, Debug)]
pub struct LlmDecisions {
    /// Decisions whatever the number of agents.
    pub fixed: f64,
    /// Further decisions per agent of the episode.
    pub per_agent: f64,
}

impl LlmDecisions {
    /// About `decisions` per episode whatever the number of agents.
    pub const fn fixed(decisions: f64) -> LlmDecisions {
        LlmDecisions { fixed: decisions, per_agent: 0.0 }
    }

    /// The decisions of one seat in an episode of `agents` agents.
    pub fn per_seat_episode(&self, agents: usize) -> f64 {
        self.fixed + self.per_agent * agents as f64
    }
}

/// One played episode: the record, and the JSON replay when it was asked for.
#[derive(Clone, Debug)]
pub struct Episode {
    /// The episode record (identical with or without a replay).
    pub record: EpisodeRecord,
    /// One JSON object, when asked.
    pub replay: Option<String>,
}

/// A game: a validated scenario and team that plays episodes by seed.
///
/// `prepare` does all validation once per job, so `play` cannot fail on input: every
/// episode is a pure function of (scenario, team, seed). Implementations reset every policy
/// per episode, so the same seed gives the same record whatever ran before it.
pub trait Game: Sized + Send {
    /// The game's static description.
    const INFO: GameInfo;

    /// Validates a job's scenario and team. Errors name `scenario.<field>` or
    /// `policy_set[<seat>].<param>` and the offending value.
    fn prepare(scenario: &Spec, team: &[Spec], env: &RunEnv) -> Result<Self, JobError>;

    /// Episodes per job when the sweep does not say.
    fn default_episodes_per_job(scenario: &Spec) -> u64;

    /// Plays one episode.
    fn play(&mut self, seed: u64, replay: bool) -> Episode;
}

/// A prepared game of any kind: the enum the runner dispatches on.
pub enum AnyGame {
    /// Bucket Brigade.
    BucketBrigade(bucket_brigade::BucketBrigade),
    /// Deception.
    Deception(deception::Deception),
    /// CogsGuard.
    Cogsguard(cogsguard::Cogsguard),
    /// Trolley.
    Trolley(trolley::Trolley),
}

impl AnyGame {
    /// Prepares a game of `kind`.
    pub fn prepare(kind: GameKind, scenario: &Spec, team: &[Spec], env: &RunEnv) -> Result<AnyGame, JobError> {
        Ok(match kind {
            GameKind::BucketBrigade => AnyGame::BucketBrigade(Game::prepare(scenario, team, env)?),
            GameKind::Deception => AnyGame::Deception(Game::prepare(scenario, team, env)?),
            GameKind::Cogsguard => AnyGame::Cogsguard(Game::prepare(scenario, team, env)?),
            GameKind::Trolley => AnyGame::Trolley(Game::prepare(scenario, team, env)?),
        })
    }

    /// Plays one episode.
    pub fn play(&mut self, seed: u64, replay: bool) -> Episode {
        match self {
            AnyGame::BucketBrigade(g) => g.play(seed, replay),
            AnyGame::Deception(g) => g.play(seed, replay),
            AnyGame::Cogsguard(g) => g.play(seed, replay),
            AnyGame::Trolley(g) => g.play(seed, replay),
        }
    }
}
