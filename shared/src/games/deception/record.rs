//! The episode record (§11): outcome, rewards, the game's stats in the spec's key order, and
//! the trajectory hash.

use super::action::GameAction;
use super::agent::{AgentId, Role, Winner};
use super::rules::RuleViolation;
use super::state::{GameState, VoteOutcome};
use super::stats::{AgentName, ByKind, DeceptionStats, Ejection, Names};
use crate::llm::{LlmBySeat, LlmStats};
use crate::protocol::EpisodeRecord;
use crate::seeding::Fnv64;
use crate::stats::Stats;

/// The stats keys of §11, in order.
pub const STAT_KEYS: &[&str] = &[
    "reason",
    "roles",
    "ejections",
    "crewmates_ejected",
    "imposters_ejected",
    "no_ejection_ticks",
    "vote_accuracy",
    "imposter_survival",
    "discussion_turns",
    "votes_proposed",
    "invalid_actions",
    "invalid_by_kind",
    "llm",
];

/// The trajectory hash of §11, fed as the episode is played.
#[derive(Clone, Copy, Debug, Default)]
pub struct TrajectoryHash(Fnv64);

impl TrajectoryHash {
    /// Starts with each seat's role (u8: crewmate 0, imposter 1).
    pub fn start(state: &GameState) -> TrajectoryHash {
        let mut h = Fnv64::new();
        for a in &state.agents {
            h.u8(a.role.code());
        }
        TrajectoryHash(h)
    }

    /// One applied action: tick (u32), seat (u8), code (u8), target seat (u8, 255 if none),
    /// then each text parameter as byte length (u32) and its own FNV-1a 64 (u64).
    pub fn action(&mut self, tick: u32, action: &GameAction) {
        let h = &mut self.0;
        h.u32(tick);
        h.u8(seat_byte(Some(action.agent_id)));
        h.u8(action.kind.code());
        h.u8(seat_byte(action.kind.target()));
        match &action.kind {
            super::action::ActionKind::Discuss { message } => {
                h.u32(message.byte_len());
                h.u64(message.fnv());
            }
            super::action::ActionKind::Defend { reasoning, defense_statement } => {
                for t in [reasoning, defense_statement] {
                    h.u32(t.byte_len());
                    h.u64(t.fnv());
                }
            }
            _ => {}
        }
    }

    /// After each vote: the ejected seat (u8, 255 if none).
    pub fn vote_result(&mut self, ejected: Option<AgentId>) {
        self.0.u8(seat_byte(ejected));
    }

    /// 16 lowercase hex digits.
    pub fn hex(&self) -> String {
        self.0.hex()
    }
}

fn seat_byte(id: Option<AgentId>) -> u8 {
    id.map_or(255, |a| u8::try_from(a.0).unwrap_or(255))
}

/// What the episode loop counts besides the state.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    /// Invalid actions per seat.
    pub invalid_actions: Vec<u64>,
    /// Invalid actions per violation kind, in [`RuleViolation::KINDS`] order.
    pub invalid_by_kind: [u64; RuleViolation::KINDS.len()],
}

impl Counters {
    /// Zeroes the counters for `n` seats (keeps the buffer).
    pub fn reset(&mut self, n: usize) {
        self.invalid_actions.clear();
        self.invalid_actions.resize(n, 0);
        self.invalid_by_kind = Default::default();
    }

    /// Counts one rejected action of `seat`.
    pub fn invalid(&mut self, seat: usize, v: RuleViolation) {
        self.invalid_actions[seat] += 1;
        self.invalid_by_kind[v.kind_index()] += 1;
    }
}

/// Builds the record of a finished game. `llm` lists (seat, stats) of `llm` seats.
pub fn build(
    state: &GameState,
    hash: &TrajectoryHash,
    counters: &Counters,
    llm: &[(usize, LlmStats)],
) -> EpisodeRecord {
    let result = state.result.expect("a record is built once the game is over");
    let team_reward = match result.winner {
        Winner::Crewmates => 1.0,
        Winner::Imposters => -1.0,
        Winner::None => 0.0,
    };
    let agent_rewards =
        state.agents.iter().map(|a| if a.role == Role::Crewmate { team_reward } else { -team_reward }).collect();
    let role_of = |id: AgentId| state.agents[id.index()].role;

    let mut ejections = Vec::new();
    let (mut crew_ejected, mut imp_ejected, mut no_ejection) = (0u64, 0u64, 0u64);
    let (mut crew_votes, mut crew_hits) = (0u64, 0u64);
    for v in &state.votes {
        for b in v.votes.iter().filter(|b| role_of(b.voter) == Role::Crewmate) {
            if let Some(t) = b.target {
                crew_votes += 1;
                crew_hits += u64::from(role_of(t) == Role::Imposter);
            }
        }
        match v.outcome {
            VoteOutcome::Ejected { agent, role } => {
                let votes = v.counts.iter().find(|c| c.target == agent).map_or(0, |c| c.votes);
                ejections.push(Ejection { tick: v.tick, agent: AgentName(agent), role: role.as_str(), votes });
                match role {
                    Role::Crewmate => crew_ejected += 1,
                    Role::Imposter => imp_ejected += 1,
                }
            }
            VoteOutcome::NoEjection { .. } => no_ejection += 1,
        }
    }
    let num_imposters = u64::from(state.scenario.num_imposters);
    let vote_accuracy = (crew_votes > 0).then(|| crew_hits as f64 / crew_votes as f64);
    let imposter_survival = (num_imposters - imp_ejected) as f64 / num_imposters as f64;
    let votes_proposed =
        state.discussion.iter().filter(|m| matches!(m.content, super::action::ActionKind::ProposeVote)).count() as u64;
    // Non-finite shares would be JSON nulls (what `serde_json::Value::from` makes of them).
    let finite = |x: f64| x.is_finite().then_some(x);
    let stats = DeceptionStats {
        reason: result.reason.as_str(),
        roles: Names::from_fn(state.agents.len(), |seat| state.agents[seat].role.as_str()),
        ejections,
        crewmates_ejected: crew_ejected,
        imposters_ejected: imp_ejected,
        no_ejection_ticks: no_ejection,
        vote_accuracy: vote_accuracy.and_then(finite),
        imposter_survival: finite(imposter_survival),
        discussion_turns: state.discussion.len() as u64,
        votes_proposed,
        invalid_actions: counters.invalid_actions.clone(),
        invalid_by_kind: ByKind(counters.invalid_by_kind),
        llm: LlmBySeat(llm.to_vec()),
    };

    EpisodeRecord {
        seed: state.seed,
        outcome: result.winner.as_str().to_string(),
        length: state.tick,
        truncated: result.reason == super::state::EndReason::Timeout,
        team_reward,
        agent_rewards,
        trajectory_hash: hash.hex(),
        stats: Stats::typed(stats),
    }
}
