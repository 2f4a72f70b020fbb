//! The `heuristic` policy (§10.2): acts by its role from public heat and private suspicion.
//!
//! Its memory is a pure function of the public record: it reads every discussion message and
//! completed vote once, in record order (a tick's messages, then that tick's vote), so a fresh
//! instance catches up on any history (which is how it serves as the `llm` fallback).

use std::sync::Arc;

use super::super::action::{ActionKind, GameAction};
use super::super::agent::{AgentId, Role, MAX_AGENTS};
use super::super::observation::AgentObservation;
use super::super::state::{DiscussionMessage, VoteOutcome, VoteRound};
use super::templates::Templates;
use crate::seeding::Stream;

/// The heuristic's parameters (each in [0, 1], A > 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeuristicParams {
    /// A: heat and suspicion per accusation.
    pub suspicion_from_accusation: f64,
    /// C: how much a defence takes back, as a share of A.
    pub defense_credibility: f64,
    /// B: how much a crewmate follows others' accusations and votes.
    pub bandwagon: f64,
    /// G: chance to accuse instead of only talking.
    pub aggression: f64,
    /// D: chance an imposter turns on whoever suspects it.
    pub deflection: f64,
}

impl Default for HeuristicParams {
    fn default() -> Self {
        HeuristicParams {
            suspicion_from_accusation: 0.3,
            defense_credibility: 0.5,
            bandwagon: 0.5,
            aggression: 0.5,
            deflection: 0.5,
        }
    }
}

/// What the policy has read from the record so far.
#[derive(Clone, Debug, Default)]
struct Memory {
    messages_read: usize,
    votes_read: usize,
    /// Public heat per seat.
    heat: [f64; MAX_AGENTS],
    /// Private suspicion per seat (used as a crewmate).
    suspicion: [f64; MAX_AGENTS],
    /// The latest accusation of me: (tick, seq, accuser).
    accused: Option<(u32, u32, AgentId)>,
    /// My latest defence: (tick, seq).
    defended: Option<(u32, u32)>,
}

impl Memory {
    fn read_message(&mut self, params: &HeuristicParams, me: AgentId, m: &DiscussionMessage) {
        let HeuristicParams { suspicion_from_accusation: a, defense_credibility: c, bandwagon: b, .. } = *params;
        let k = m.speaker;
        match m.content {
            ActionKind::Accuse { target: j } => {
                let heat_before = self.heat[j.index()];
                self.heat[j.index()] += a;
                if k == me {
                    return;
                }
                if j == me {
                    self.suspicion[k.index()] += a;
                    self.accused = Some((m.tick, m.seq, k));
                } else {
                    self.suspicion[j.index()] += b * a;
                    if heat_before <= 0.0 {
                        self.suspicion[k.index()] += (1.0 - b) * a;
                    }
                }
            }
            ActionKind::Defend { .. } => {
                self.heat[k.index()] -= c * a;
                if k == me {
                    self.defended = Some((m.tick, m.seq));
                } else {
                    self.suspicion[k.index()] -= c * a;
                }
            }
            _ => {}
        }
    }

    fn read_vote(&mut self, params: &HeuristicParams, me: AgentId, v: &VoteRound) {
        let HeuristicParams { suspicion_from_accusation: a, bandwagon: b, .. } = *params;
        for ballot in v.votes.iter() {
            let Some(j) = ballot.target else { continue };
            self.heat[j.index()] += a / 2.0;
            let k = ballot.voter;
            if k == me {
                continue;
            }
            if j == me {
                self.suspicion[k.index()] += a / 2.0;
            } else {
                self.suspicion[j.index()] += b * a / 2.0;
            }
        }
        if let VoteOutcome::Ejected { agent: e, role } = v.outcome {
            let delta = if role == Role::Crewmate { a / 2.0 } else { -a / 2.0 };
            for ballot in v.votes.iter().filter(|x| x.target == Some(e) && x.voter != me) {
                self.suspicion[ballot.voter.index()] += delta;
            }
        }
    }
}

/// `heuristic?suspicion_from_accusation=0.3&defense_credibility=0.5&bandwagon=0.5&aggression=0.5&deflection=0.5`.
#[derive(Clone, Debug)]
pub struct HeuristicPolicy {
    /// Parameters.
    pub params: HeuristicParams,
    templates: Arc<Templates>,
    /// Boxed: it is large, and policies sit in an enum with small ones.
    mem: Box<Memory>,
}

impl HeuristicPolicy {
    /// A fresh policy.
    pub fn new(params: HeuristicParams, templates: Arc<Templates>) -> HeuristicPolicy {
        HeuristicPolicy { params, templates, mem: Box::default() }
    }

    /// Forgets the episode (called before every episode).
    pub fn reset(&mut self) {
        *self.mem = Memory::default();
    }

    /// Public heat of `agent` as read so far.
    pub fn heat(&self, agent: AgentId) -> f64 {
        self.mem.heat[agent.index()]
    }

    /// Suspicion of `agent` as read so far.
    pub fn suspicion(&self, agent: AgentId) -> f64 {
        self.mem.suspicion[agent.index()]
    }

    /// Reads every public entry not read yet, in record order.
    pub fn catch_up(&mut self, obs: &AgentObservation<'_>) {
        let (me, params) = (obs.agent_id, &self.params);
        let mem = &mut *self.mem;
        let (messages, votes) = (obs.discussion, obs.votes);
        // Local cursors, stored back once: through `self` they were reloaded and stored per entry.
        let (mut m, mut v) = (mem.messages_read, mem.votes_read);
        loop {
            // A tick's messages come before its vote.
            let until = votes.get(v).map_or(u32::MAX, |vote| vote.tick);
            while let Some(message) = messages.get(m).filter(|message| message.tick <= until) {
                mem.read_message(params, me, message);
                m += 1;
            }
            let Some(vote) = votes.get(v) else { break };
            mem.read_vote(params, me, vote);
            v += 1;
        }
        (mem.messages_read, mem.votes_read) = (m, v);
    }

    /// Whether an accusation of me was posted this tick after my latest defence of this tick.
    fn pending_accusation(&self, tick: u32) -> bool {
        match (self.mem.accused, self.mem.defended) {
            (Some((at, aseq, _)), Some((dt, dseq))) if at == tick && dt == tick => aseq > dseq,
            (Some((at, _, _)), _) => at == tick,
            (None, _) => false,
        }
    }

    /// Decides (§10.2).
    pub fn act(&mut self, obs: &AgentObservation<'_>, rng: &mut Stream) -> GameAction {
        self.catch_up(obs);
        let targets = &obs.legal.targets;
        let imposter = obs.own_role == Role::Imposter;
        let kind = if obs.is_voting() {
            if imposter {
                ActionKind::Vote { target: argmax(targets, &self.mem.heat, rng) }
            } else {
                let t = argmax(targets, &self.mem.suspicion, rng);
                if self.mem.suspicion[t.index()] <= 0.0 && obs.allow_abstain {
                    ActionKind::Abstain
                } else {
                    ActionKind::Vote { target: t }
                }
            }
        } else if self.pending_accusation(obs.tick) {
            let (reasoning, defense_statement) = self.templates.defense(rng);
            ActionKind::Defend { reasoning, defense_statement }
        } else if imposter {
            self.imposter_turn(obs, rng)
        } else {
            let t = argmax(targets, &self.mem.suspicion, rng);
            if self.mem.suspicion[t.index()] > 0.0 {
                if rng.chance(self.params.aggression) {
                    ActionKind::Accuse { target: t }
                } else {
                    ActionKind::Discuss { message: self.templates.suspect(t, rng) }
                }
            } else {
                ActionKind::Discuss { message: self.templates.neutral(rng) }
            }
        };
        GameAction::new(obs.agent_id, kind)
    }

    fn imposter_turn(&self, obs: &AgentObservation<'_>, rng: &mut Stream) -> ActionKind {
        let targets = &obs.legal.targets;
        let accuser = self.mem.accused.filter(|(tick, _, _)| *tick == obs.tick).map(|(_, _, k)| k);
        let p = accuser.or_else(|| {
            let t = argmax(targets, &self.mem.heat, rng);
            (self.mem.heat[t.index()] > 0.0).then_some(t)
        });
        match p {
            Some(p) if rng.chance(self.params.deflection) => return ActionKind::Accuse { target: p },
            Some(_) => {}
            None if rng.chance(self.params.aggression) => {
                return ActionKind::Accuse { target: targets[rng.index(targets.len())] };
            }
            None => {}
        }
        ActionKind::Discuss { message: self.templates.neutral(rng) }
    }
}

/// argmax of `f` over `targets`: the maximum; ties broken by tied[index(len)] (no draw for one).
/// One pass that keeps the tied targets in order, rather than counting them and walking the
/// targets again to find the drawn one.
fn argmax(targets: &[AgentId], f: &[f64; MAX_AGENTS], rng: &mut Stream) -> AgentId {
    let (mut best, mut tied, mut n) = (f64::NEG_INFINITY, [AgentId::default(); MAX_AGENTS], 0usize);
    // Without branches (the comparisons follow the game, which no predictor learns): a new
    // maximum restarts the tied list, every target is written at the list's end, and the list
    // grows only when the target ties or beats the maximum.
    for &t in targets {
        let v = f[t.index()];
        let (above, level) = (v > best, v == best);
        n = if above { 0 } else { n };
        tied[n] = t;
        n += usize::from(above | level);
        best = if above { v } else { best };
    }
    assert!(n > 0, "legal targets are never empty when a policy is asked");
    tied[if n == 1 { 0 } else { rng.index(n) }]
}
