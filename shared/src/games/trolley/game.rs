//! [`Trolley`]: the prepared game the runner plays, and its episode loop (§7's "Loop").
//!
//! The loop asks each expected actor's policy (with its seat stream), then applies the actions in
//! seat order through [`apply_action`] (the rules the arena calls), replacing a refused action by
//! its fallback (`skip`, or `decide { default_decision }`), and feeds the trajectory hash. Every
//! buffer lives in the struct and is reused from seed to seed, so a scripted step allocates
//! nothing (an `llm` seat renders its prompt from an owned observation), and nothing is
//! formatted unless a replay is recorded.

use super::engine::{agent_id, apply_action, finish_step, TrolleyAction};
use super::events::{Event, EventSink, NoEvents};
use super::policies::{self, Debater, Drawn, LlmCall, Policy, Reason, Template, Templates};
use super::record::{self, Tally, TrajectoryHash, BUCKETS, OUTCOMES, STAT_KEYS};
use super::replay::{self, ActionLog, ReplayLog};
use super::scenario::{Scenario, SCENARIOS};
use super::state::{RoundId, TrolleyState};
use super::vocab::{Phase, Side, SkipCause};
use super::RULES_VERSION;
use crate::field::scenario_path;
use crate::games::{Episode, Game, GameInfo, GameKind, LlmDecisions};
use crate::llm::LlmStats;
use crate::protocol::{EpisodeRecord, JobError};
use crate::seeding::{agent_stream, Stream};
use crate::spec::Spec;
use crate::RunEnv;

/// The `trolley` game prepared for one job: scenario, policies and reusable buffers.
#[derive(Debug)]
pub struct Trolley {
    scenario: Scenario,
    specs: Vec<String>,
    policies: Vec<Policy>,
    /// The policies again when every seat is a `debater` (or alias): the episode loop's fast
    /// path, which applies each choice as it is drawn.
    debaters: Option<Vec<Debater>>,
    /// Boxed: the state holds the environment's ChaCha block buffer, and `AnyGame` should not
    /// grow to its size.
    buf: Box<Buffers>,
}

/// Everything an episode reuses.
#[derive(Debug)]
struct Buffers {
    /// The roster, registered once; `restart` reuses it every episode.
    state: TrolleyState,
    streams: Vec<Stream>,
    /// Per seat, what its policy chose this step (and why), until the rules apply it.
    asked: Vec<Option<(TrolleyAction, Reason)>>,
    tally: Tally,
}

impl Trolley {
    /// The validated scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The state at the end of the last episode played.
    pub fn state(&self) -> &TrolleyState {
        &self.buf.state
    }

    /// Plays one episode (its events filed into `log` when a replay is recorded) and returns
    /// the trajectory hash; the record is read from the state and tally afterwards.
    fn run(&mut self, seed: u64, mut log: Option<&mut ReplayLog>) -> TrajectoryHash {
        let n = self.policies.len();
        for p in &mut self.policies {
            p.reset(log.is_some(), seed);
        }
        let Buffers { state, streams, asked, tally } = &mut *self.buf;
        let mut events: Vec<Event> = Vec::new();
        let mut sink = Sink { events: log.is_some().then_some(&mut events) };
        state.restart(seed, &mut sink);
        tally.reset(n);
        for (seat, s) in streams.iter_mut().enumerate() {
            s.reset(seed, agent_stream(seat));
        }
        let mut hash = TrajectoryHash::new();
        // All-debater jobs: the current round's summed argument weights, majority then minority.
        let mut weights = [0.0f64; 2];
        // `start` cannot fail: the roster is full and the config was validated in `prepare`.
        if state.start(&mut sink).is_err() {
            return hash;
        }
        hash.round(state, 0);
        if let Some(log) = log.as_deref_mut() {
            log.file_events(sink.events.as_deref_mut().unwrap_or(&mut Vec::new()));
        }
        while !state.is_terminal() {
            let Some(round) = state.current_round() else {
                break;
            };
            let (round, phase, rounds_before) = (round.id, round.phase, state.rounds().len());
            let actors = state.expected_actors();
            let mut step =
                Step { state, tally, hash: &mut hash, log: log.as_deref_mut(), sink: &mut sink, round, phase };
            let mut stuck = false;
            if let Some(debaters) = &self.debaters {
                // Every seat is a debater: its choice reads its role, the phase, its own stream
                // and (the operator, alone in its step) the round's arguments, never what another
                // seat did in this step. Choosing and applying seat by seat is then the same as
                // all choosing against the state before the step, without parking the choices.
                let idx = rounds_before - 1;
                match phase.debate_index() {
                    Some(p) => {
                        if p == 0 {
                            weights = [0.0; 2];
                        }
                        let minority = step.state.rounds()[idx].minority;
                        for seat in actors.iter() {
                            let side = if minority.contains(seat) { Side::Minority } else { Side::Majority };
                            let drawn = debaters[seat].draw(side, p, &mut streams[seat]);
                            if let Some(t) = drawn {
                                // Both sums take an addition, the other side's of +0.0, which
                                // leaves a sum of positive weights from +0.0 unchanged bit for
                                // bit: no branch on the side (it mispredicted).
                                let (w, minor) = (t.text.weight(), side == Side::Minority);
                                weights[0] += if minor { 0.0 } else { w };
                                weights[1] += if minor { w } else { 0.0 };
                            }
                            step.debate(idx, seat, side, drawn);
                        }
                    }
                    None => {
                        // The operator, awaiting its decision: the weights are the round's
                        // arguments' by side, summed in submission order as `choose` would.
                        debug_assert_eq!(weights, argument_weights(step.state, idx));
                        for seat in actors.iter() {
                            let (decision, drawn) =
                                debaters[seat].decide_drawn(weights[0], weights[1], &mut streams[seat]);
                            stuck |= step.settle(seat, TrolleyAction::Decide { decision }, || drawn.reason());
                        }
                    }
                }
            } else {
                // Every actor chooses against the state before the step: a phase's arguments are
                // simultaneous (§7).
                for seat in actors.iter() {
                    asked[seat] = Some(self.policies[seat].act(step.state, seat, &mut streams[seat]));
                }
                for seat in actors.iter() {
                    if let Some((action, reason)) = asked[seat].take() {
                        stuck |= step.settle(seat, action, || reason);
                    }
                }
            }
            if stuck || finish_step(state, &mut sink).is_err() {
                break;
            }
            if let Some(log) = log.as_deref_mut() {
                log.file_events(sink.events.as_deref_mut().unwrap_or(&mut Vec::new()));
            }
            if state.rounds().len() > rounds_before {
                hash.round(state, rounds_before);
            }
        }
        hash
    }

    /// The capacities of every reusable buffer (tests check that playing does not grow them).
    #[cfg(test)]
    pub(crate) fn capacities(&self) -> Vec<usize> {
        let b = &self.buf;
        vec![
            b.state.agents.capacity(),
            b.state.rounds.capacity(),
            b.state.arguments.capacity(),
            b.state.skips.capacity(),
            b.streams.capacity(),
            b.asked.capacity(),
            b.tally.invalid.capacity(),
            b.tally.decision_fallback.capacity(),
        ]
    }

    /// Plays one episode and returns its record (and the replay's raw log when asked).
    pub fn play_record(&mut self, seed: u64, replay: bool) -> (EpisodeRecord, Option<ReplayLog>) {
        let mut log = replay.then(ReplayLog::default);
        let hash = self.run(seed, log.as_mut());
        let llm: Vec<(usize, LlmStats)> =
            self.policies.iter().enumerate().filter_map(|(seat, p)| p.llm_stats().map(|s| (seat, s.clone()))).collect();
        let mut record = record::record(&self.buf.state, &self.buf.tally, &hash, llm);
        let outside = self.policies.iter().enumerate().filter_map(|(s, p)| p.outside_faults().map(|f| (s, f)));
        crate::outside::add_faults(&mut record, outside);
        (record, log)
    }
}

/// One step's application: the rules apply the chosen actions in seat order. Each rule checks
/// its action completely before it changes anything, and no action changes another seat's
/// validity (the actors are distinct and the phase closes only after the last one), so a refusal
/// here is the refusal the state before the step would give: one check per action.
struct Step<'s, 'e> {
    state: &'s mut TrolleyState,
    tally: &'s mut Tally,
    hash: &'s mut TrajectoryHash,
    log: Option<&'s mut ReplayLog>,
    sink: &'s mut Sink<'e>,
    round: RoundId,
    phase: Phase,
}

impl Step<'_, '_> {
    /// Applies a scripted side agent's draw in round `idx`: its template argument, or a skip.
    /// Both pass every check of their rule by construction (the seat is a side agent that has
    /// not acted in this debate phase, and every template is 1..=500 characters, which
    /// `templates.rs` tests), so this goes straight to the rules' changes, and asserts the
    /// checks in debug builds.
    #[inline]
    fn debate(&mut self, idx: usize, seat: usize, side: Side, drawn: Option<Template>) {
        let code = self.phase.hash_code();
        match drawn {
            Some(t) => {
                debug_assert_eq!(self.state.check_argument(self.round, seat, t.text), Ok(()));
                self.state.add_argument(idx, seat, side, t.text, self.sink);
                self.hash.action(code, seat, 0, Some(t.text));
                if let Some(log) = self.log.as_deref_mut() {
                    let (action, reason) = (
                        TrolleyAction::Argue { text: t.text.clone() },
                        Drawn::Argued { strong: t.strong, template: t.index }.reason(),
                    );
                    log.action(ActionLog { phase: self.phase, seat, action, reason, invalid: None });
                }
            }
            None => {
                debug_assert_eq!(self.state.check_skip(self.round, seat), Ok(()));
                self.state.add_skip(idx, seat, SkipCause::Agent, self.sink);
                self.hash.action(code, seat, TrolleyAction::SKIP.hash_code(), None);
                if let Some(log) = self.log.as_deref_mut() {
                    let (action, reason) = (TrolleyAction::SKIP, Drawn::Skipped.reason());
                    log.action(ActionLog { phase: self.phase, seat, action, reason, invalid: None });
                }
            }
        }
    }

    /// Applies the action of `seat` (its fallback if refused) and feeds the hash and the log;
    /// `reason` is built only for the log. Returns whether the fallback was refused too.
    #[inline]
    fn settle(&mut self, seat: usize, mut action: TrolleyAction, reason: impl FnOnce() -> Reason) -> bool {
        let (round, phase) = (self.round, self.phase);
        let mut invalid = None;
        let mut stuck = false;
        if let Err(e) = apply_action(self.state, round, seat, &action, self.sink) {
            self.tally.invalid_action(seat, &e);
            action = fallback(self.state, phase);
            invalid = Some(e);
            // A fallback is valid by construction; if not, stop rather than loop.
            stuck = apply_action(self.state, round, seat, &action, self.sink).is_err();
        }
        if phase == Phase::AwaitingDecision {
            self.tally.decision_fallback.push(invalid.is_some());
        }
        let text = match &action {
            TrolleyAction::Argue { text } => Some(text),
            _ => None,
        };
        self.hash.action(phase.hash_code(), seat, action.hash_code(), text);
        if let Some(log) = self.log.as_deref_mut() {
            log.action(ActionLog { phase, seat, action, reason: reason(), invalid });
        }
        stuck
    }
}

/// The summed argument weights of round `idx`, majority then minority, as [`Debater::choose`]
/// sums them (checks the engine's running sums in debug builds).
fn argument_weights(state: &TrolleyState, idx: usize) -> [f64; 2] {
    let mut w = [0.0; 2];
    for a in state.round_arguments(idx) {
        w[a.side as usize] += a.text.weight();
    }
    w
}

/// The fallback of an invalid action (§7): `skip` in a debate phase, else the default decision.
fn fallback(state: &TrolleyState, phase: Phase) -> TrolleyAction {
    if phase.debate_index().is_some() {
        TrolleyAction::SKIP
    } else {
        TrolleyAction::Decide { decision: policies::fallback_decision(state) }
    }
}

/// Events go nowhere unless a replay is being recorded.
struct Sink<'a> {
    events: Option<&'a mut Vec<Event>>,
}

impl EventSink for Sink<'_> {
    #[inline]
    fn emit(&mut self, make: impl FnOnce() -> Event) {
        if let Some(v) = self.events.as_deref_mut() {
            v.push(make());
        }
    }
}

/// Episodes per job for N agents: an episode's cost grows about as N² (N rounds of N−1
/// speakers), and 25 000 / N² makes a job about 10 ms on one core (1000 episodes of
/// `balanced_5p`, 250 of `large_10p`).
const fn episodes_per_job(n: u64) -> u64 {
    25_000 / (n * n)
}

impl Game for Trolley {
    const INFO: GameInfo = GameInfo {
        kind: GameKind::Trolley,
        rules_version: RULES_VERSION,
        scenarios: &SCENARIOS,
        policies: &policies::POLICIES,
        stat_keys: &STAT_KEYS,
        win_outcome: None,
        outcomes: &OUTCOMES,
        buckets: BUCKETS,
        summary_scale: 50,
        // Measured (20 seeds each): 7 in `trio_3p`, 13 in `balanced_5p`, about 2.6 per agent.
        llm_decisions: LlmDecisions { fixed: 0.0, per_agent: 2.6 },
    };

    fn prepare(scenario: &Spec, team: &[Spec], env: &RunEnv) -> Result<Trolley, JobError> {
        let scenario = Scenario::from_spec(scenario)?;
        let n = usize::from(scenario.num_agents);
        if team.len() != n {
            return Err(JobError::invalid(
                scenario_path("num_agents"),
                n,
                format!("the policy set has {} seats; it needs one per agent", team.len()),
            ));
        }
        let m = scenario.minority();
        let templates = Templates::for_sides(n - 1 - m, m);
        let policies = team
            .iter()
            .enumerate()
            .map(|(seat, s)| Policy::parse(seat, s, templates, env))
            .collect::<Result<Vec<_>, _>>()?;
        let to_job_error = |e: super::error::TrolleyError| JobError::invalid("scenario", &scenario.name, e.to_string());
        let mut state = TrolleyState::new_game(scenario.config(), 0, 0, &mut NoEvents).map_err(to_job_error)?;
        for seat in 0..n {
            let id = agent_id(seat);
            state.register(&id, &id, &mut NoEvents).map_err(to_job_error)?;
        }
        let debaters = policies
            .iter()
            .map(|p| match p {
                Policy::Debater(d) => Some(d.clone()),
                Policy::Llm(_) | Policy::Outside(_) => None,
            })
            .collect();
        Ok(Trolley {
            specs: team.iter().map(Spec::to_string).collect(),
            policies,
            debaters,
            buf: Box::new(Buffers {
                state,
                streams: (0..n).map(|seat| Stream::agent(0, seat)).collect(),
                asked: vec![None; n],
                tally: Tally::default(),
            }),
            scenario,
        })
    }

    fn default_episodes_per_job(scenario: &Spec) -> u64 {
        // An invalid scenario fails in `prepare`; any constant will do for it.
        let n = Scenario::from_spec(scenario).map_or(5, |s| u64::from(s.num_agents));
        episodes_per_job(n)
    }

    fn play(&mut self, seed: u64, replay: bool) -> Episode {
        let (record, log) = self.play_record(seed, replay);
        let replay = log.map(|log| {
            // `llm_calls` only when the job has `llm` seats: scripted replays keep their shape.
            let has_llm = self.policies.iter().any(|p| p.llm_stats().is_some());
            let calls = has_llm.then(|| self.policies.iter().flat_map(Policy::llm_calls).collect::<Vec<&LlmCall>>());
            replay::render(&self.buf.state, &self.scenario, &self.specs, &record, &log, calls.as_deref())
        });
        Episode { record, replay }
    }
}
