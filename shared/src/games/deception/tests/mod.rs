//! Tests of the deception game, one module per area of the spec's test contract (§12).

use std::collections::BTreeMap;

use super::*;
use crate::spec::Spec;
use crate::RunEnv;

mod determinism;
mod engine_flow;
mod golden;
mod heuristic;
mod llm;
mod prepare;
mod properties;
mod record_stats;
mod typed_stats;
mod validation;
mod voting;
mod win_rates;

/// A named scenario with overrides, e.g. `cfg("classic_5p1i?max_ticks=3")`.
pub(super) fn cfg(s: &str) -> ScenarioConfig {
    ScenarioConfig::from_spec(&Spec::parse(s).unwrap()).unwrap()
}

/// A fresh game of `scenario` whose imposters are exactly `imposters` (roles injected: the
/// rules under test do not depend on how roles were drawn).
pub(super) fn game(scenario: &str, imposters: &[usize]) -> GameState {
    let c = cfg(scenario);
    let mut s = reset(&c, 7).unwrap();
    for a in &mut s.agents {
        a.role = if imposters.contains(&(a.seat as usize)) { Role::Imposter } else { Role::Crewmate };
    }
    s
}

pub(super) fn id(seat: usize) -> AgentId {
    AgentId::seat(seat)
}

pub(super) fn act(seat: usize, kind: ActionKind) -> GameAction {
    GameAction::new(id(seat), kind)
}

pub(super) fn say(seat: usize, text: &str) -> GameAction {
    act(seat, ActionKind::Discuss { message: text.into() })
}

/// Steps one discussion turn of the current speaker (with `pass` unless given).
pub(super) fn turn(s: &mut GameState, kind: ActionKind) -> Vec<GameEvent> {
    let speaker = s.current_speaker().expect("in discussion");
    let mut m = BTreeMap::new();
    m.insert(speaker, GameAction::new(speaker, kind));
    step(s, &m).unwrap()
}

/// Ends the discussion with `propose_vote` (if in discussion), then votes: `ballots[i]` is
/// `(voter, target)`, `None` = abstain.
pub(super) fn vote(s: &mut GameState, ballots: &[(usize, Option<usize>)]) -> Vec<GameEvent> {
    if matches!(s.phase, Phase::Discussion { .. }) {
        turn(s, ActionKind::ProposeVote);
    }
    let m: BTreeMap<AgentId, GameAction> = ballots
        .iter()
        .map(|(v, t)| {
            let kind = match t {
                Some(t) => ActionKind::Vote { target: id(*t) },
                None => ActionKind::Abstain,
            };
            (id(*v), act(*v, kind))
        })
        .collect();
    step(s, &m).unwrap()
}

/// Prepares a game from spec strings.
pub(super) fn prepare(scenario: &str, team: &[&str]) -> Result<Deception, crate::protocol::JobError> {
    let team: Vec<Spec> = team.iter().map(|t| Spec::parse(t).unwrap()).collect();
    Deception::prepare(&Spec::parse(scenario).unwrap(), &team, &RunEnv::default())
}

/// `n` copies of one policy spec.
pub(super) fn all(policy: &str, n: usize) -> Vec<&str> {
    vec![policy; n]
}
