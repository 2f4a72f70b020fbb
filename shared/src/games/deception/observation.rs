//! What one agent sees (§6). An observation borrows from the state, so building one costs no
//! allocation; it never exposes the role of another active agent, private notes, votes of the
//! current tick before the tally, or any RNG state.

use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};

use super::action::GameAction;
use super::agent::{AgentId, AgentState, Role, Status};
use super::rules::{self, LegalActions, RuleViolation, Table};
use super::scenario::{EjectRule, TiePolicy};
use super::state::{DiscussionMessage, GameResult, GameState, Phase, VoteRound};

/// The public face of one agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PublicAgent {
    /// Its id.
    pub id: AgentId,
    /// Alive or ejected.
    pub status: Status,
    /// Its role, once ejected.
    pub revealed_role: Option<Role>,
}

/// Every seat's public face. The slice it wraps holds hidden roles, so it stays private to this
/// module: policies only get [`PublicAgent`]s.
#[derive(Clone, Copy, Debug)]
pub struct PublicAgents<'a>(&'a [AgentState]);

impl<'a> PublicAgents<'a> {
    /// Seats.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no seats (never, in a valid game).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The public face of `seat`.
    pub fn get(&self, seat: usize) -> Option<PublicAgent> {
        self.0.get(seat).map(public)
    }

    /// Every seat, in seat order.
    pub fn iter(&self) -> impl Iterator<Item = PublicAgent> + 'a {
        self.0.iter().map(public)
    }
}

fn public(a: &AgentState) -> PublicAgent {
    PublicAgent { id: a.id, status: a.status, revealed_role: (a.status == Status::Ejected).then_some(a.role) }
}

impl Serialize for PublicAgents<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for a in self.iter() {
            seq.serialize_element(&a)?;
        }
        seq.end()
    }
}

/// The observation of one agent (§6).
#[derive(Clone, Debug, Serialize)]
pub struct AgentObservation<'a> {
    /// Who observes.
    pub agent_id: AgentId,
    /// Its seat.
    pub seat: u32,
    /// Its own role (the only hidden role it knows).
    pub own_role: Role,
    /// The current tick.
    pub tick: u32,
    /// The scenario's `max_ticks`.
    pub max_ticks: u32,
    /// The phase (with round and turn in discussion).
    pub phase: Phase,
    /// Round-robins per tick.
    pub discussion_rounds_per_tick: u32,
    /// The current speaker, in discussion.
    pub current_speaker: Option<AgentId>,
    /// This tick's speaking order.
    pub turn_order: &'a [AgentId],
    /// Every seat: id, status, revealed role.
    pub agents: PublicAgents<'a>,
    /// Active imposters (public: starting counts are known and ejections reveal roles).
    pub imposters_remaining: u32,
    /// Active crewmates.
    pub crewmates_remaining: u32,
    /// Every discussion message of every tick.
    pub discussion: &'a [DiscussionMessage],
    /// Every completed vote.
    pub votes: &'a [VoteRound],
    /// The scenario's eject rule.
    pub eject_rule: EjectRule,
    /// The scenario's tie policy.
    pub tie_policy: TiePolicy,
    /// Whether abstaining is allowed.
    pub allow_abstain: bool,
    /// What this agent may do now.
    pub legal: LegalActions,
    /// The result, once over.
    pub result: Option<GameResult>,
}

impl AgentObservation<'_> {
    /// §7 as seen from this observation (it shows everything validation needs), so a policy
    /// can check an answer before returning it.
    pub fn check(&self, action: &GameAction) -> Result<(), RuleViolation> {
        rules::check_action(&self.table(), action)
    }

    fn table(&self) -> Table {
        Table {
            over: self.phase == Phase::Over,
            voting: self.phase == Phase::Voting,
            speaker: self.current_speaker,
            seats: self.agents.len(),
            active: Table::mask(self.agents.iter().map(|a| a.status == Status::Alive)),
            allow_abstain: self.allow_abstain,
        }
    }

    /// Whether this is a voting decision.
    pub fn is_voting(&self) -> bool {
        self.phase == Phase::Voting
    }
}

/// The observation of `agent` (`None` if it is not a seat).
pub fn observation(state: &GameState, agent: AgentId) -> Option<AgentObservation<'_>> {
    let me = state.agent(agent)?;
    Some(observe(state, me, state.active_counts(), rules::legal_actions(state, me.id)))
}

/// The observation of `me`, given what every actor of a step shares: the active
/// (imposters, crewmates) counts and `me`'s legal actions. The episode loop computes those once
/// per step instead of once per actor, and gets the observation by value where it is used
/// (through an `Option` it was built and then copied, a few hundred bytes per actor).
#[inline]
pub(crate) fn observe<'a>(
    state: &'a GameState,
    me: &AgentState,
    (imposters_remaining, crewmates_remaining): (u32, u32),
    legal: LegalActions,
) -> AgentObservation<'a> {
    AgentObservation {
        agent_id: me.id,
        seat: me.seat,
        own_role: me.role,
        tick: state.tick,
        max_ticks: state.scenario.max_ticks,
        phase: state.phase,
        discussion_rounds_per_tick: state.scenario.discussion_rounds_per_tick,
        current_speaker: state.current_speaker(),
        turn_order: &state.turn_order,
        agents: PublicAgents(&state.agents),
        imposters_remaining,
        crewmates_remaining,
        discussion: &state.discussion,
        votes: &state.votes,
        eject_rule: state.scenario.eject_rule,
        tie_policy: state.scenario.tie_policy,
        allow_abstain: state.scenario.allow_abstain,
        legal,
        result: state.result,
    }
}

/// One observation per seat (ejected agents included), in seat order.
pub fn observations(state: &GameState) -> Vec<AgentObservation<'_>> {
    state.agents.iter().filter_map(|a| observation(state, a.id)).collect()
}
