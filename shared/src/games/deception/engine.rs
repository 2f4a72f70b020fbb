//! The engine (§4, §5): `reset`, `step`, `expected_actors`, `is_terminal`, `snapshot`.
//!
//! It is sans-IO and synchronous. It owns the order of things (opening ticks, advancing turns
//! and rounds, applying a vote, emitting events) and asks [`super::rules`] every question of
//! legality, tallying and winning. `step` validates everything before it mutates anything: on
//! `Err` the state is unchanged.

use std::collections::BTreeMap;
use std::fmt;

use super::action::{ActionKind, GameAction};
use super::agent::{AgentId, AgentState, Role, Status};
use super::env_rng::EnvRng;
use super::event::{DiscussionEndCause, EventKind, GameEvent};
use super::rules::{self, RuleViolation, Table};
use super::scenario::{ConfigError, ScenarioConfig};
use super::seat_list::SeatList;
use super::state::{Ballot, DiscussionMessage, GameState, Phase, VoteOutcome, VoteRound};

/// Why a step was refused (the state is unchanged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepError {
    /// The game is over.
    GameOver,
    /// The first invalid entry, in seat order.
    Invalid {
        /// The actor of the entry.
        agent: AgentId,
        /// What is wrong with it.
        violation: RuleViolation,
    },
    /// Expected actors without an entry (checked once every entry is valid).
    MissingActions {
        /// Who is missing, in seat order.
        agents: SeatList<AgentId>,
    },
    /// A map entry whose key is not the actor of its action (only `step`'s map can say this).
    KeyMismatch {
        /// The map key.
        key: AgentId,
        /// The action's `agent_id`.
        actor: AgentId,
    },
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::GameOver => f.write_str("the game is over"),
            StepError::Invalid { agent, violation } => {
                write!(f, "invalid action of {agent}: {violation}")
            }
            StepError::MissingActions { agents } => {
                f.write_str("missing actions of")?;
                agents.iter().try_for_each(|a| write!(f, " {a}"))
            }
            StepError::KeyMismatch { key, actor } => {
                write!(f, "entry {key} holds an action of {actor}")
            }
        }
    }
}

impl std::error::Error for StepError {}

/// Validates `cfg` and sets up a new game (§5.1). Emits no events.
pub fn reset(cfg: &ScenarioConfig, seed: u64) -> Result<GameState, ConfigError> {
    let mut state = GameState {
        scenario: cfg.clone(),
        seed,
        tick: 1,
        phase: Phase::Voting,
        agents: Vec::with_capacity(cfg.num_agents as usize),
        turn_order: SeatList::new(),
        discussion: Vec::new(),
        votes: Vec::new(),
        result: None,
        steps: 0,
        events: 0,
        env_rng: EnvRng::new(seed),
    };
    reset_into(&mut state, cfg, seed)?;
    Ok(state)
}

/// [`reset`] into an existing state, reusing its buffers (the episode loop's allocation-free
/// path). On `Err` the state is unchanged.
pub fn reset_into(state: &mut GameState, cfg: &ScenarioConfig, seed: u64) -> Result<(), ConfigError> {
    rules::validate_scenario(cfg)?;
    let n = cfg.num_agents as usize;
    state.scenario.clone_from(cfg);
    state.seed = seed;
    state.env_rng.reset(seed);
    let mut v: SeatList<u8> = (0..n as u8).collect();
    state.env_rng.shuffle(v.as_mut_slice());
    state.agents.clear();
    state.agents.extend((0..n).map(|seat| AgentState {
        id: AgentId::seat(seat),
        seat: seat as u32,
        role: Role::Crewmate,
        status: Status::Alive,
        ejected_tick: None,
    }));
    for &seat in &v[..cfg.num_imposters as usize] {
        state.agents[seat as usize].role = Role::Imposter;
    }
    state.tick = 1;
    state.discussion.clear();
    state.votes.clear();
    state.result = None;
    state.steps = 0;
    state.events = 0;
    open_tick(state);
    Ok(())
}

/// Opens tick `state.tick`: the speaking order rotates to start at L[(t − 1) mod A].
fn open_tick(state: &mut GameState) {
    let active = state.active_ids();
    let a = active.len();
    let o = (state.tick as usize - 1) % a;
    state.turn_order.clear();
    for i in 0..a {
        state.turn_order.push(active[(o + i) % a]);
    }
    state.phase = if state.scenario.discussion_rounds_per_tick == 0 {
        Phase::Voting
    } else {
        Phase::Discussion { round: 1, turn: 0 }
    };
}

/// Who must act now: the current speaker in discussion, every active agent in voting, nobody
/// when over. (An inline list rather than a `Vec`, so asking costs no allocation.)
pub fn expected_actors(state: &GameState) -> SeatList<AgentId> {
    match state.phase {
        Phase::Discussion { .. } => state.current_speaker().into_iter().collect(),
        Phase::Voting => state.active().map(|a| a.id).collect(),
        Phase::Over => SeatList::new(),
    }
}

/// Whether the game is over.
pub fn is_terminal(state: &GameState) -> bool {
    state.phase == Phase::Over
}

/// A snapshot of the state (a clone: it continues identically).
pub fn snapshot(state: &GameState) -> GameState {
    state.clone()
}

/// One step (§5.2, §5.3): one discussion turn, or the whole vote of a tick. Validates every
/// entry first; on `Err` the state is unchanged.
pub fn step(state: &mut GameState, actions: &BTreeMap<AgentId, GameAction>) -> Result<Vec<GameEvent>, StepError> {
    if let Some((key, a)) = actions.iter().find(|(k, a)| **k != a.agent_id) {
        if state.phase != Phase::Over {
            return Err(StepError::KeyMismatch { key: *key, actor: a.agent_id });
        }
    }
    let mut events = Vec::new();
    step_iter(state, actions.values(), &mut events)?;
    Ok(events)
}

/// [`step`] on a slice of actions in strictly ascending seat order, appending the events to
/// `events` (a reused buffer): the episode loop's allocation-free path.
pub fn step_into(state: &mut GameState, actions: &[GameAction], events: &mut Vec<GameEvent>) -> Result<(), StepError> {
    debug_assert!(actions.windows(2).all(|w| w[0].agent_id < w[1].agent_id), "actions must be in seat order");
    step_iter(state, actions.iter(), events)
}

fn step_iter<'a, I>(state: &mut GameState, actions: I, events: &mut Vec<GameEvent>) -> Result<(), StepError>
where
    I: Iterator<Item = &'a GameAction> + Clone,
{
    check(state, actions.clone())?;
    // Validated: from here on nothing can fail.
    apply(state, actions, &mut Some(events));
    Ok(())
}

/// Everything `step` refuses, without touching the state.
fn check<'a, I>(state: &GameState, actions: I) -> Result<(), StepError>
where
    I: Iterator<Item = &'a GameAction> + Clone,
{
    if state.phase == Phase::Over {
        return Err(StepError::GameOver);
    }
    let table = Table::of(state);
    for a in actions.clone() {
        rules::check_action(&table, a).map_err(|violation| StepError::Invalid { agent: a.agent_id, violation })?;
    }
    let expected = expected_actors(state);
    let missing: SeatList<AgentId> =
        expected.iter().copied().filter(|id| !actions.clone().any(|a| a.agent_id == *id)).collect();
    if !missing.is_empty() {
        return Err(StepError::MissingActions { agents: missing });
    }
    Ok(())
}

/// [`step_into`] for actions the caller has already checked against this very state with
/// [`rules::check_action`], one per expected actor in seat order: the episode loop validates each
/// answer as it collects it (it must, to substitute fallbacks), so validating again here only
/// repeated that work. Debug builds (the tests) still run the full check first.
///
/// `events` may be `None` when the caller has no use for them (an episode without a replay):
/// their numbering still advances, but they are neither built nor stored.
pub(crate) fn step_validated(state: &mut GameState, actions: &[GameAction], mut events: Events<'_>) {
    debug_assert_eq!(check(state, actions.iter()), Ok(()), "step_validated was given actions step refuses");
    apply(state, actions.iter(), &mut events);
}

/// Where a step's events go, if anywhere.
pub(crate) type Events<'e> = Option<&'e mut Vec<GameEvent>>;

fn apply<'a, I>(state: &mut GameState, actions: I, events: &mut Events<'_>)
where
    I: Iterator<Item = &'a GameAction> + Clone,
{
    match state.phase {
        Phase::Discussion { round, turn } => {
            let action = actions.clone().next().expect("the speaker's entry was checked");
            apply_turn(state, round, turn, action, events);
        }
        Phase::Voting => apply_vote(state, actions, events),
        Phase::Over => unreachable!("checked by the caller"),
    }
    state.steps += 1;
}

/// Numbers the next event; builds it (`kind` may clone texts) only if someone keeps events.
fn emit(state: &mut GameState, events: &mut Events<'_>, actor: Option<AgentId>, kind: impl FnOnce() -> EventKind) {
    if let Some(events) = events {
        events.push(GameEvent { seq: state.events, tick: state.tick, actor, kind: kind() });
    }
    state.events += 1;
}

fn apply_turn(state: &mut GameState, round: u32, turn: u32, action: &GameAction, events: &mut Events<'_>) {
    let speaker = action.agent_id;
    state.discussion.push(DiscussionMessage {
        seq: state.discussion.len() as u32,
        tick: state.tick,
        round,
        speaker,
        content: action.kind.clone(),
    });
    let kind = || match &action.kind {
        ActionKind::Discuss { message } => EventKind::MessagePosted { message: message.clone() },
        ActionKind::Accuse { target } => EventKind::AccusationMade { target: *target },
        ActionKind::Defend { reasoning, defense_statement } => {
            EventKind::DefenseMade { reasoning: reasoning.clone(), defense_statement: defense_statement.clone() }
        }
        ActionKind::ProposeVote => EventKind::VoteProposed,
        ActionKind::Pass => EventKind::TurnPassed,
        ActionKind::Vote { .. } | ActionKind::Abstain => {
            unreachable!("validated as a discussion action")
        }
    };
    emit(state, events, Some(speaker), kind);
    if matches!(action.kind, ActionKind::ProposeVote) {
        emit(state, events, None, || EventKind::DiscussionEnded { cause: DiscussionEndCause::VoteProposed });
        state.phase = Phase::Voting;
        return;
    }
    let (mut round, mut turn) = (round, turn + 1);
    if turn as usize >= state.turn_order.len() {
        round += 1;
        turn = 0;
    }
    if round > state.scenario.discussion_rounds_per_tick {
        emit(state, events, None, || EventKind::DiscussionEnded { cause: DiscussionEndCause::RoundsExhausted });
        state.phase = Phase::Voting;
    } else {
        state.phase = Phase::Discussion { round, turn };
    }
}

fn apply_vote<'a>(state: &mut GameState, actions: impl Iterator<Item = &'a GameAction>, events: &mut Events<'_>) {
    let ballots: SeatList<Ballot> = actions
        .map(|a| Ballot {
            voter: a.agent_id,
            target: match a.kind {
                ActionKind::Vote { target } => Some(target),
                _ => None,
            },
        })
        .collect();
    let active = ballots.len() as u32;
    let cfg = &state.scenario;
    let tally = rules::tally_votes(&ballots, active, cfg.eject_rule, cfg.tie_policy, &mut state.env_rng);
    let outcome = match tally.decision {
        Ok(agent) => VoteOutcome::Ejected { agent, role: state.agents[agent.index()].role },
        Err(cause) => VoteOutcome::NoEjection { cause },
    };
    state.votes.push(VoteRound {
        tick: state.tick,
        votes: ballots,
        counts: tally.counts,
        abstentions: tally.abstentions,
        outcome,
        tie_broken_randomly: tally.tie_broken_randomly,
    });
    for b in ballots.iter() {
        emit(state, events, Some(b.voter), || EventKind::VoteRecorded { choice: b.target });
    }
    emit(state, events, None, || EventKind::VotesTallied {
        counts: tally.counts,
        abstentions: tally.abstentions,
        outcome,
    });
    if let VoteOutcome::Ejected { agent, role } = outcome {
        let a = &mut state.agents[agent.index()];
        a.status = Status::Ejected;
        a.ejected_tick = Some(state.tick);
        emit(state, events, None, || EventKind::AgentEjected { agent, role });
    }
    if let Some(result) = rules::check_win_condition(state) {
        state.result = Some(result);
        state.phase = Phase::Over;
        emit(state, events, None, || EventKind::GameOver { winner: result.winner, reason: result.reason });
    } else {
        state.tick += 1;
        open_tick(state);
    }
}
