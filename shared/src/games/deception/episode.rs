//! The episode loop (§8): ask each expected actor's policy in seat order, check the answer,
//! substitute the fallback for an invalid one, step, and build the record (and the replay when
//! asked).
//!
//! Every buffer lives in the prepared [`Deception`] and is reused, so after the first episode a
//! scripted episode allocates only its record.

use super::action::{ActionKind, GameAction};
use super::agent::AgentId;
use super::engine;
use super::observation::observe;
use super::record::{self, TrajectoryHash};
use super::replay::{Replay, ReplayAction, ReplayStep};
use super::rules::{self, LegalActions, RuleViolation, Table};
use super::scenario::InvalidActionFallback;
use super::seat_list::SeatList;
use super::state::Phase;
use super::Deception;
use crate::games::{Episode, Game};
use crate::seeding::agent_stream;

impl Deception {
    /// Plays one episode of `seed` (see [`Game::play`]).
    pub(super) fn play_episode(&mut self, seed: u64, replay: bool) -> Episode {
        let this = &mut *self.inner;
        engine::reset_into(&mut this.state, &this.scenario, seed).expect("the scenario was validated in prepare");
        let n = this.seats.len();
        for (seat, (policy, stream)) in this.seats.iter_mut().zip(this.streams.iter_mut()).enumerate() {
            policy.reset(replay, seed);
            // In place: a generator built elsewhere would be copied in (a few hundred bytes).
            stream.reset(seed, agent_stream(seat));
        }
        this.counters.reset(n);
        let mut hash = TrajectoryHash::start(&this.state);
        let mut steps: Vec<ReplayStep> = Vec::new();
        let mut violations: Vec<Option<RuleViolation>> = Vec::new();

        while !engine::is_terminal(&this.state) {
            let state = &this.state;
            let tick = state.tick;
            let phase = state.phase;
            this.actions.clear();
            violations.clear();
            // What every actor of the step shares, computed once: the state does not change
            // until the step is applied.
            let table = Table::of(state);
            let counts = state.active_counts();
            let active = state.active_ids();
            let speaker: [AgentId; 1];
            let actors: &[AgentId] = match (phase, state.current_speaker()) {
                (Phase::Voting, _) => &active,
                (_, Some(s)) => {
                    speaker = [s];
                    &speaker
                }
                (_, None) => &[],
            };
            for id in actors {
                let seat = id.index();
                let legal = LegalActions { kinds: rules::legal_kinds(state), targets: SeatList::new() };
                let mut obs = observe(state, &state.agents[seat], counts, legal);
                obs.legal.targets.copy_without(&active, *id);
                let stream = &mut this.streams[seat];
                let mut action = this.seats[seat].act(&obs, stream);
                // A policy acts for its own seat only.
                action.agent_id = *id;
                let verdict = rules::check_action(&table, &action);
                if let Err(v) = verdict {
                    this.counters.invalid(seat, v);
                    action = match this.scenario.invalid_action_fallback {
                        InvalidActionFallback::Random => this.random_fallback.act(&obs, stream),
                        InvalidActionFallback::Pass if !obs.is_voting() => GameAction::new(*id, ActionKind::Pass),
                        InvalidActionFallback::Pass if obs.allow_abstain => GameAction::new(*id, ActionKind::Abstain),
                        InvalidActionFallback::Pass => {
                            let targets = &obs.legal.targets;
                            GameAction::new(*id, ActionKind::Vote { target: targets[stream.index(targets.len())] })
                        }
                    };
                    // Only this rare path is checked twice: the step below applies what it is
                    // given, so a fallback the rules refuse must stop the episode here (the
                    // runner reports the panic as an engine error) rather than be applied.
                    if let Err(v) = rules::check_action(&table, &action) {
                        panic!(
                            "the {:?} fallback gave an action the rules refuse: {v:?}",
                            this.scenario.invalid_action_fallback
                        );
                    }
                }
                if replay {
                    violations.push(verdict.err());
                }
                hash.action(tick, &action);
                this.actions.push(action);
            }
            this.events.clear();
            // Every action was checked above or replaced by a valid fallback.
            engine::step_validated(&mut this.state, &this.actions, replay.then_some(&mut this.events));
            if phase == Phase::Voting {
                let ejected = this.state.votes.last().and_then(|v| v.outcome.ejected());
                hash.vote_result(ejected);
            }
            if replay {
                steps.push(ReplayStep {
                    tick,
                    phase,
                    actions: this.actions.iter().zip(&violations).map(|(a, v)| ReplayAction::new(a, *v)).collect(),
                    events: this.events.clone(),
                });
            }
        }

        let llm: Vec<_> =
            this.seats.iter().enumerate().filter_map(|(s, p)| p.llm_stats().map(|st| (s, st.clone()))).collect();
        let mut record = record::build(&this.state, &hash, &this.counters, &llm);
        let outside = this.seats.iter().enumerate().filter_map(|(s, p)| p.outside_faults().map(|f| (s, f)));
        crate::outside::add_faults(&mut record, outside);
        let replay = replay.then(|| {
            Replay {
                rules_version: Self::INFO.rules_version,
                game: Self::INFO.kind.as_str(),
                seed: seed.to_string(),
                scenario: &this.scenario,
                policies: &this.policy_specs,
                record: &record,
                roles: this.state.agents.iter().map(|a| a.role).collect(),
                steps: &steps,
                llm_calls: this.seats.iter().flat_map(|p| p.llm_calls()).collect(),
            }
            .to_json()
        });
        Episode { record, replay }
    }
}
