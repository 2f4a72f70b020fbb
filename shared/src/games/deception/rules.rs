//! Every rule of the game as a pure function (§4, §5, §7). The engine calls these and never
//! re-implements them; policies use [`check_action`] through their observation.
//!
//! - [`validate_scenario`] / [`validate_field`]: the ranges of §2.
//! - [`validate_action`]: the violations of §7, in order.
//! - [`legal_actions`]: what an agent may do now.
//! - [`tally_votes`]: §5.4, the only draw a tally makes.
//! - [`check_win_condition`]: §5.5, in order.

use serde::Serialize;

use super::action::{ActionKind, GameAction};
use super::agent::{AgentId, Winner, MAX_AGENTS};
use super::env_rng::EnvRng;
use super::scenario::{ConfigError, EjectRule, ScenarioConfig, ScenarioField, TiePolicy, TimeoutWinner};
use super::seat_list::SeatList;
use super::state::{Ballot, EndReason, GameResult, GameState, NoEjectionCause, Phase, VoteCount};
use super::text::{Text, MAX_NOTE_CHARS, MAX_TEXT_CHARS};

pub use super::violation::{RuleViolation, TextField};

/// Checks one field of §2; fields that depend on others only look at earlier fields of the table.
pub fn validate_field(cfg: &ScenarioConfig, field: ScenarioField) -> Result<(), ConfigError> {
    let err = |reason: String| Err(ConfigError { field, reason });
    match field {
        ScenarioField::NumAgents if !(4..=MAX_AGENTS as u32).contains(&cfg.num_agents) => {
            err(format!("must be within 4..={MAX_AGENTS}"))
        }
        ScenarioField::NumImposters
            if cfg.num_imposters < 1 || u64::from(cfg.num_imposters) * 2 >= u64::from(cfg.num_agents) =>
        {
            err(format!(
                "must be at least 1 with 2·num_imposters < num_agents = {} (imposters start strictly outnumbered)",
                cfg.num_agents
            ))
        }
        ScenarioField::MaxTicks if !(1..=200).contains(&cfg.max_ticks) => err("must be within 1..=200".into()),
        ScenarioField::DiscussionRoundsPerTick if cfg.discussion_rounds_per_tick > 10 => {
            err("must be within 0..=10".into())
        }
        _ => Ok(()),
    }
}

/// Checks every field of §2 in table order; the first failure is returned.
pub fn validate_scenario(cfg: &ScenarioConfig) -> Result<(), ConfigError> {
    ScenarioField::ALL.iter().try_for_each(|f| validate_field(cfg, *f))
}

/// What action validation needs to know about the table: built from the state, or from an
/// agent's observation (which shows exactly this much), so both share one rule implementation.
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// The game is over.
    pub over: bool,
    /// Voting (otherwise discussion, unless over).
    pub voting: bool,
    /// The current speaker, during discussion.
    pub speaker: Option<AgentId>,
    /// How many seats the game has.
    pub seats: usize,
    /// Bit `s` is set when seat `s` is active (a mask, not a list: a table is built per step).
    pub active: u32,
    /// Whether `abstain` is allowed.
    pub allow_abstain: bool,
}

impl Table {
    /// The table of a state.
    pub fn of(state: &GameState) -> Table {
        Table {
            over: state.phase == Phase::Over,
            voting: state.phase == Phase::Voting,
            speaker: state.current_speaker(),
            seats: state.agents.len(),
            active: Table::mask(state.agents.iter().map(|a| a.is_active())),
            allow_abstain: state.scenario.allow_abstain,
        }
    }

    /// The `active` mask of per-seat flags, in seat order.
    pub fn mask(active: impl Iterator<Item = bool>) -> u32 {
        active.enumerate().fold(0, |m, (s, a)| m | u32::from(a) << s)
    }

    fn is_active(&self, id: AgentId) -> Option<bool> {
        id.seat_in(self.seats).map(|s| self.active >> s & 1 == 1)
    }
}

/// §7 on a state.
pub fn validate_action(state: &GameState, action: &GameAction) -> Result<(), RuleViolation> {
    check_action(&Table::of(state), action)
}

/// §7 on a [`Table`]: the first violation, in the order of the spec.
pub fn check_action(t: &Table, action: &GameAction) -> Result<(), RuleViolation> {
    use RuleViolation as V;
    if t.over {
        return Err(V::GameOver);
    }
    match t.is_active(action.agent_id) {
        None => return Err(V::UnknownAgent),
        Some(false) => return Err(V::ActorInactive),
        Some(true) => {}
    }
    if action.kind.is_discussion() == t.voting {
        return Err(V::WrongPhase);
    }
    if !t.voting && t.speaker != Some(action.agent_id) {
        return Err(V::NotYourTurn);
    }
    if let Some(target) = action.kind.target() {
        match t.is_active(target) {
            None => return Err(V::UnknownTarget),
            Some(false) => return Err(V::TargetInactive),
            Some(true) if target == action.agent_id => return Err(V::SelfTarget),
            Some(true) => {}
        }
    }
    let text = |field: TextField, text: &Text| -> Result<(), RuleViolation> {
        match text.chars() {
            0 => Err(V::EmptyText { field }),
            n if n > MAX_TEXT_CHARS => Err(V::TextTooLong { field }),
            _ => Ok(()),
        }
    };
    match &action.kind {
        ActionKind::Discuss { message } => text(TextField::DiscussMessage, message)?,
        ActionKind::Defend { reasoning, defense_statement } => {
            text(TextField::DefendReasoning, reasoning)?;
            text(TextField::DefendStatement, defense_statement)?;
        }
        _ => {}
    }
    if action.note.chars() > MAX_NOTE_CHARS {
        return Err(V::NoteTooLong);
    }
    if matches!(action.kind, ActionKind::Abstain) && !t.allow_abstain {
        return Err(V::AbstainNotAllowed);
    }
    Ok(())
}

/// What an agent may do now: action names and legal targets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LegalActions {
    /// Action names; empty unless the agent is due to act.
    pub kinds: &'static [&'static str],
    /// The other active agents, in seat order (empty unless the agent is due to act).
    pub targets: SeatList<AgentId>,
}

impl LegalActions {
    /// Whether `name` is legal now.
    pub fn allows(&self, name: &str) -> bool {
        self.kinds.contains(&name)
    }
}

/// What `agent` may do in `state`: empty unless it is due to act (the speaker in discussion,
/// any active agent in voting); targets = the other active agents, in seat order.
pub fn legal_actions(state: &GameState, agent: AgentId) -> LegalActions {
    let due = match state.phase {
        Phase::Discussion { .. } => state.current_speaker() == Some(agent),
        Phase::Voting => state.agent(agent).is_some_and(|a| a.is_active()),
        Phase::Over => false,
    };
    if !due {
        return LegalActions::default();
    }
    let mut legal = LegalActions { kinds: legal_kinds(state), targets: SeatList::new() };
    legal.targets.copy_without(&state.active_ids(), agent);
    legal
}

/// The action names legal for whoever is due to act in `state` (not over).
pub(crate) fn legal_kinds(state: &GameState) -> &'static [&'static str] {
    match (state.phase == Phase::Voting, state.scenario.allow_abstain) {
        (false, _) => &["discuss", "accuse", "defend", "propose_vote", "pass"],
        (true, true) => &["vote", "abstain"],
        (true, false) => &["vote"],
    }
}

/// The result of a tally (§5.4). The engine adds the revealed role to make a `VoteOutcome`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    /// Votes per target with at least one, in seat order.
    pub counts: SeatList<VoteCount>,
    /// Abstentions.
    pub abstentions: u32,
    /// The ejected agent, or why nobody is.
    pub decision: Result<AgentId, NoEjectionCause>,
    /// Whether the environment stream broke a tie.
    pub tie_broken_randomly: bool,
}

/// Tallies the ballots of one vote (§5.4). `active_count` = A, abstainers included. The only
/// draw is `index(leaders)` for a plurality tie under `tie_policy = random`.
pub fn tally_votes(
    votes: &[Ballot],
    active_count: u32,
    eject_rule: EjectRule,
    tie_policy: TiePolicy,
    env_rng: &mut EnvRng,
) -> Tally {
    let mut per_seat = [0u32; MAX_AGENTS];
    let mut abstentions = 0;
    for b in votes {
        match b.target.and_then(|t| t.seat_in(MAX_AGENTS)) {
            Some(s) => per_seat[s] += 1,
            None => abstentions += 1,
        }
    }
    let counts: SeatList<VoteCount> = per_seat
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(s, n)| VoteCount { target: AgentId::seat(s), votes: *n })
        .collect();
    let mut tally =
        Tally { counts, abstentions, decision: Err(NoEjectionCause::AllAbstained), tie_broken_randomly: false };
    let Some(c) = counts.iter().map(|vc| vc.votes).max() else {
        return tally;
    };
    let leaders: SeatList<AgentId> = counts.iter().filter(|vc| vc.votes == c).map(|vc| vc.target).collect();
    tally.decision = match eject_rule {
        EjectRule::Plurality if leaders.len() == 1 => Ok(leaders[0]),
        EjectRule::Plurality => match tie_policy {
            TiePolicy::NoEject => Err(NoEjectionCause::Tie),
            TiePolicy::Random => {
                tally.tie_broken_randomly = true;
                Ok(leaders[env_rng.index(leaders.len())])
            }
        },
        EjectRule::AbsoluteMajority if 2 * c > active_count => Ok(leaders[0]),
        EjectRule::AbsoluteMajority => Err(NoEjectionCause::NoMajority),
    };
    tally
}

/// The end check of §5.5, after the vote of tick `state.tick` (ejection applied): the first
/// condition that holds, in order.
pub fn check_win_condition(state: &GameState) -> Option<GameResult> {
    let (imposters, crewmates) = state.active_counts();
    if imposters == 0 {
        Some(GameResult { winner: Winner::Crewmates, reason: EndReason::AllImpostersEjected })
    } else if imposters >= crewmates {
        Some(GameResult { winner: Winner::Imposters, reason: EndReason::ImposterParity })
    } else if state.tick >= state.scenario.max_ticks {
        let winner = match state.scenario.timeout_winner {
            TimeoutWinner::Imposters => Winner::Imposters,
            TimeoutWinner::None => Winner::None,
        };
        Some(GameResult { winner, reason: EndReason::Timeout })
    } else {
        None
    }
}
