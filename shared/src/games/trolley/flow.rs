//! The flow of a round (§4, §12): phases closing by deadline or admin, resolution, the end
//! condition, the next round, and what an agent may do now.
//!
//! Like `rules.rs`, every public function checks before it mutates; the private helpers below
//! the checks are the only code that changes phases, scores and coverage.

use super::error::TrolleyError;
use super::events::{Event, EventSink};
use super::roles::{assign_roles, Coverage};
use super::rules::Resolution;
use super::seats::{SeatSet, MAX_AGENTS};
use super::state::{Round, RoundId, Skip, TrolleyState};
use super::vocab::{ActionKind, AdvanceCause, Decision, GameStatus, Phase, Role, SkipCause};

/// An admin advance (§12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdvanceAction<'a> {
    /// Move a debate phase on, or start the next round after resolution.
    NextPhase,
    /// Resolve now with `decision` (default `default_decision`), forced.
    ResolveRound {
        /// The decision as sent, if any.
        decision: Option<&'a str>,
    },
}

impl<'a> AdvanceAction<'a> {
    /// Parses the body's `action` (`next_phase` when absent) and `decision`.
    pub fn parse(action: Option<&str>, decision: Option<&'a str>) -> Result<AdvanceAction<'a>, TrolleyError> {
        match action.unwrap_or("next_phase") {
            "next_phase" => Ok(AdvanceAction::NextPhase),
            "resolve_round" => Ok(AdvanceAction::ResolveRound { decision }),
            other => Err(TrolleyError::InvalidAction(other.to_string())),
        }
    }
}

/// What an agent may do now (§12 OpenActions, without ids and clocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenActions {
    /// The current round, if any.
    pub round: Option<RoundId>,
    /// Its number (0 before start).
    pub round_number: u32,
    /// Its phase.
    pub phase: Option<Phase>,
    /// The agent's role in it.
    pub role: Option<Role>,
    /// `[argue, skip]`, `[decide]` or none.
    pub allowed: &'static [ActionKind],
}

/// What a game waits for: tells the arena which of its clocks applies (§12's auto-advance).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// Registration (`waiting_for_agents`, `ready_to_start`): no deadline.
    Start,
    /// Side agents in a debate phase: `phase_deadline_seconds`, then [`TrolleyState::expire_phase`].
    Debate,
    /// The operator: `decision_deadline_seconds`, then [`TrolleyState::expire_decision`].
    Decision,
    /// The pause after a resolution: `round_pause_seconds`, then
    /// [`TrolleyState::start_next_round`].
    NextRound,
    /// Nothing: the game is over.
    Over,
}

impl TrolleyState {
    /// What the game waits for now. The arena starts the matching clock whenever this (or the
    /// round number) changes, and calls the named rule when it expires.
    pub fn waiting_on(&self) -> Waiting {
        if self.status.is_lobby() {
            return Waiting::Start;
        }
        match self.current_round().map(|r| r.phase) {
            _ if self.status.is_over() => Waiting::Over,
            Some(Phase::AwaitingDecision) => Waiting::Decision,
            Some(Phase::Resolved) => Waiting::NextRound,
            Some(_) => Waiting::Debate,
            None => Waiting::Start,
        }
    }

    /// Checks (6) status and returns the current round's index.
    pub(crate) fn check_in_progress(&self) -> Result<usize, TrolleyError> {
        if let Some(e) = TrolleyError::for_status(self.status) {
            return Err(e);
        }
        // In progress always has a round; a hand-made snapshot without one is "not started".
        self.rounds.len().checked_sub(1).ok_or(TrolleyError::NotStarted)
    }

    /// Admin advance (§12): `next_phase` closes a debate phase (missing agents skipped, cause
    /// `admin`) or starts the next round after resolution, and is `wrong_phase` while awaiting
    /// the decision; `resolve_round` resolves a round awaiting its decision, forced.
    pub fn advance(&mut self, action: AdvanceAction<'_>, out: &mut impl EventSink) -> Result<Phase, TrolleyError> {
        let idx = self.check_in_progress()?;
        let phase = self.rounds[idx].phase;
        match action {
            AdvanceAction::NextPhase => match phase {
                Phase::AwaitingDecision => {
                    return Err(TrolleyError::WrongPhase { action: ActionKind::NextPhase, phase });
                }
                Phase::Resolved => {
                    self.begin_round(out);
                }
                _ => self.close_phase(idx, SkipCause::Admin, AdvanceCause::Admin, out),
            },
            AdvanceAction::ResolveRound { decision } => {
                if phase != Phase::AwaitingDecision {
                    return Err(TrolleyError::WrongPhase { action: ActionKind::ResolveRound, phase });
                }
                let decision = match decision {
                    None => self.config.default_decision,
                    Some(d) => Decision::parse(d).ok_or_else(|| TrolleyError::InvalidDecision(d.to_string()))?,
                };
                self.resolve(idx, decision, true, out);
            }
        }
        self.version += 1;
        Ok(self.rounds[self.rounds.len() - 1].phase)
    }

    /// The phase deadline passed: missing side agents skip (cause `deadline`) and the phase
    /// advances (cause `deadline`). Only in a debate phase.
    pub fn expire_phase(&mut self, out: &mut impl EventSink) -> Result<Phase, TrolleyError> {
        let idx = self.check_in_progress()?;
        let phase = self.rounds[idx].phase;
        if phase.debate_index().is_none() {
            return Err(TrolleyError::WrongPhase { action: ActionKind::NextPhase, phase });
        }
        self.close_phase(idx, SkipCause::Deadline, AdvanceCause::Deadline, out);
        self.version += 1;
        Ok(self.rounds[idx].phase)
    }

    /// The decision deadline passed: resolve with `default_decision`, forced.
    pub fn expire_decision(&mut self, out: &mut impl EventSink) -> Result<Resolution, TrolleyError> {
        let idx = self.check_in_progress()?;
        let phase = self.rounds[idx].phase;
        if phase != Phase::AwaitingDecision {
            return Err(TrolleyError::WrongPhase { action: ActionKind::ResolveRound, phase });
        }
        let res = self.resolve(idx, self.config.default_decision, true, out);
        self.version += 1;
        Ok(res)
    }

    /// Starts the next round after a resolution (headless: at once; arena: after the pause).
    pub fn start_next_round(&mut self, out: &mut impl EventSink) -> Result<RoundId, TrolleyError> {
        let idx = self.check_in_progress()?;
        let phase = self.rounds[idx].phase;
        if phase != Phase::Resolved {
            return Err(TrolleyError::WrongPhase { action: ActionKind::NextPhase, phase });
        }
        let id = self.begin_round(out);
        self.version += 1;
        Ok(id)
    }

    /// What `seat` may do now.
    pub fn open_actions(&self, seat: usize) -> Result<OpenActions, TrolleyError> {
        if seat >= self.agents.len() {
            return Err(TrolleyError::AgentNotFound);
        }
        let Some(r) = self.current_round() else {
            return Ok(OpenActions { round: None, round_number: 0, phase: None, role: None, allowed: &[] });
        };
        let role = r.role_of(seat);
        let allowed: &'static [ActionKind] = if self.status != GameStatus::InProgress {
            &[]
        } else if r.missing().contains(seat) {
            &[ActionKind::Argue, ActionKind::Skip]
        } else if r.phase == Phase::AwaitingDecision && role == Role::Operator {
            &[ActionKind::Decide]
        } else {
            &[]
        };
        Ok(OpenActions { round: Some(r.id), round_number: r.number, phase: Some(r.phase), role: Some(role), allowed })
    }

    // ---- mutations below assume their checks passed ----

    /// Records a skip of `seat` in the current phase; returns the phase.
    pub(crate) fn record_skip(&mut self, idx: usize, seat: usize, cause: SkipCause, out: &mut impl EventSink) -> Phase {
        let r = &mut self.rounds[idx];
        let phase = r.phase;
        r.acted[phase.debate_index().unwrap_or(0)].insert(seat);
        let round = r.number;
        self.skips.push(Skip { round, phase, agent: seat as u8, cause });
        out.emit(|| Event::ArgumentSkipped { round, phase, agent: seat as u8, cause });
        phase
    }

    /// Advances the phase if every side agent acted; returns the phase afterwards.
    pub(crate) fn close_if_all_acted(&mut self, idx: usize, out: &mut impl EventSink) -> Phase {
        if self.rounds[idx].missing().is_empty() {
            self.next_phase(idx, AdvanceCause::AllActed, out);
        }
        self.rounds[idx].phase
    }

    /// Skips every missing side agent in seat order, then advances the phase.
    fn close_phase(&mut self, idx: usize, skip: SkipCause, cause: AdvanceCause, out: &mut impl EventSink) {
        let missing = self.rounds[idx].missing();
        for seat in missing.iter() {
            self.record_skip(idx, seat, skip, out);
        }
        self.next_phase(idx, cause, out);
    }

    fn next_phase(&mut self, idx: usize, cause: AdvanceCause, out: &mut impl EventSink) {
        let r = &mut self.rounds[idx];
        let (round, from, to) = (r.number, r.phase, r.phase.next());
        r.phase = to;
        out.emit(|| Event::PhaseAdvanced { round, from, to, cause });
    }

    /// Resolves the current round (§4.4) and ends the game if it is over (§4.5).
    pub(crate) fn resolve(
        &mut self,
        idx: usize,
        decision: Decision,
        forced: bool,
        out: &mut impl EventSink,
    ) -> Resolution {
        let r = &mut self.rounds[idx];
        let survivors = r.side(decision.saved());
        let lost = r.sides().minus(survivors);
        r.decision = Some(decision);
        r.forced = forced;
        r.survivors = survivors;
        r.lost = lost;
        r.phase = Phase::Resolved;
        let (number, id, operator, majority, minority) =
            (r.number, r.id, usize::from(r.operator), r.majority, r.minority);
        for s in survivors.iter() {
            self.agents[s].score += 1;
        }
        let op = &mut self.agents[operator];
        op.has_been_operator = true;
        op.rounds_as_operator += 1;
        for s in majority.iter() {
            self.agents[s].has_been_majority = true;
            self.agents[s].rounds_as_majority += 1;
        }
        for s in minority.iter() {
            self.agents[s].has_been_minority = true;
            self.agents[s].rounds_as_minority += 1;
        }
        out.emit(|| Event::RoundResolved { round: number, decision, survivors, lost, forced });
        if self.coverage_complete() {
            self.status = GameStatus::GameCompleted;
            out.emit(|| Event::GameCompleted { rounds: number });
        } else if number >= self.max_rounds {
            self.status = GameStatus::GameTruncated;
            out.emit(|| Event::GameTruncated { rounds: number });
        }
        Resolution { round: id, decision, survivors, lost, status: self.status }
    }

    /// Assigns roles and opens a round in `phase_1` (§4.1).
    pub(crate) fn begin_round(&mut self, out: &mut impl EventSink) -> RoundId {
        let n = self.agents.len();
        let mut coverage = [Coverage::default(); MAX_AGENTS];
        for (c, a) in coverage.iter_mut().zip(&self.agents) {
            *c = a.coverage();
        }
        let roles = assign_roles(&coverage[..n], self.minority_size(), &mut self.env_rng);
        let number = self.rounds.len() as u32 + 1;
        let id = self.round_id(number);
        self.rounds.push(Round {
            id,
            number,
            operator: roles.operator as u8,
            majority: roles.majority,
            minority: roles.minority,
            phase: Phase::Phase1,
            acted: [SeatSet::EMPTY; 3],
            argued: [SeatSet::EMPTY; 3],
            first_argument: self.arguments.len() as u32,
            first_skip: self.skips.len() as u32,
            decision: None,
            forced: false,
            survivors: SeatSet::EMPTY,
            lost: SeatSet::EMPTY,
        });
        let (operator, majority, minority) = (roles.operator as u8, roles.majority, roles.minority);
        out.emit(|| Event::RoundStarted { round: number, operator, majority, minority });
        id
    }
}
