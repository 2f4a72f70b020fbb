//! The agents' round actions (§4–§6): arguing, skipping, deciding (advancing, deadlines and
//! the next round are in `flow.rs`).
//!
//! Every public function checks in the §6 order — round (2), agent (4), game status (6),
//! round already resolved (7), role (8), phase (9), duplicate (10), value (11) — before it
//! touches anything, so a refused call leaves the state (and `version`) exactly as it was. The
//! arena resolves ids, parses bodies and checks tokens (§6's 1, 3, 5) around these calls.

use super::error::{TextField, TrolleyError};
use super::events::{Event, EventSink};
use super::seats::SeatSet;
use super::state::{RoundId, TrolleyState};
use super::text::{ArgText, MAX_ARGUMENT_CHARS};
use super::vocab::{ActionKind, Decision, GameStatus, Phase, Role, Side, SkipCause};

/// What an argument or skip did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acted {
    /// The round.
    pub round: RoundId,
    /// The phase acted in.
    pub phase: Phase,
    /// The phase afterwards (the next one if this completed the phase).
    pub phase_after: Phase,
    /// The argument's id, for `argue`.
    pub argument_id: Option<u32>,
}

/// What a resolution did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolution {
    /// The round.
    pub round: RoundId,
    /// The applied decision.
    pub decision: Decision,
    /// Saved seats.
    pub survivors: SeatSet,
    /// Lost seats.
    pub lost: SeatSet,
    /// The game status afterwards.
    pub status: GameStatus,
}

impl TrolleyState {
    /// Checks (2) round, (4) agent, (6) status, (7) resolved; returns the round's index.
    #[inline]
    fn check_round_action(&self, round: RoundId, seat: usize, action: ActionKind) -> Result<usize, TrolleyError> {
        let idx = self.round_index(round)?;
        if seat >= self.agents.len() {
            return Err(TrolleyError::AgentNotFound);
        }
        if let Some(e) = TrolleyError::for_status(self.status) {
            return Err(e);
        }
        if self.rounds[idx].phase == Phase::Resolved {
            return Err(TrolleyError::WrongPhase { action, phase: Phase::Resolved });
        }
        Ok(idx)
    }

    /// Checks a debate action through (10) duplicate; returns the round's index and the seat's
    /// side.
    #[inline]
    fn check_debate(&self, round: RoundId, seat: usize, action: ActionKind) -> Result<(usize, Side), TrolleyError> {
        let idx = self.check_round_action(round, seat, action)?;
        let r = &self.rounds[idx];
        let role = r.role_of(seat);
        let Some(side) = role.side() else {
            return Err(TrolleyError::WrongRole { action, role });
        };
        let Some(p) = r.phase.debate_index() else {
            return Err(TrolleyError::WrongPhase { action, phase: r.phase });
        };
        if r.acted[p].contains(seat) {
            return Err(TrolleyError::DuplicateArgument { phase: r.phase });
        }
        Ok((idx, side))
    }

    /// Whether `submit_argument` would succeed, without changing anything.
    pub fn check_argument(&self, round: RoundId, seat: usize, text: &ArgText) -> Result<(), TrolleyError> {
        self.check_argument_at(round, seat, text).map(|_| ())
    }

    #[inline]
    fn check_argument_at(&self, round: RoundId, seat: usize, text: &ArgText) -> Result<(usize, Side), TrolleyError> {
        let checked = self.check_debate(round, seat, ActionKind::Argue)?;
        if !(1..=MAX_ARGUMENT_CHARS).contains(&text.chars()) {
            return Err(TrolleyError::TextLength { field: TextField::Argument, chars: text.chars() });
        }
        Ok(checked)
    }

    /// A side agent argues in the current debate phase; the phase advances if everyone acted.
    #[inline]
    pub fn submit_argument(
        &mut self,
        round: RoundId,
        seat: usize,
        text: &ArgText,
        out: &mut impl EventSink,
    ) -> Result<Acted, TrolleyError> {
        let (idx, side) = self.check_argument_at(round, seat, text)?;
        let (phase, phase_after, id) = self.add_argument(idx, seat, side, text, out);
        Ok(Acted { round, phase, phase_after, argument_id: Some(id) })
    }

    /// What [`Self::submit_argument`] changes once its checks passed, for round `idx` and the
    /// seat's `side`: returns the phase acted in, the phase afterwards and the argument's id.
    /// The headless engine calls it directly for scripted seats, whose template arguments pass
    /// every check by construction (it asserts so in debug builds).
    #[inline(always)]
    pub(crate) fn add_argument(
        &mut self,
        idx: usize,
        seat: usize,
        side: Side,
        text: &ArgText,
        out: &mut impl EventSink,
    ) -> (Phase, Phase, u32) {
        let r = &mut self.rounds[idx];
        let (phase, p) = (r.phase, r.phase.debate_index().unwrap_or(0));
        r.acted[p].insert(seat);
        r.argued[p].insert(seat);
        let index = self.arguments.len() as u32;
        let seq = index - r.first_argument + 1;
        let number = r.number;
        self.arguments.push(index + 1, seq, number, phase, seat as u8, side, text);
        out.emit(|| Event::ArgumentSubmitted { argument: index });
        let phase_after = self.close_if_all_acted(idx, out);
        self.version += 1;
        (phase, phase_after, index + 1)
    }

    /// Whether `skip` would succeed, without changing anything.
    pub fn check_skip(&self, round: RoundId, seat: usize) -> Result<(), TrolleyError> {
        self.check_debate(round, seat, ActionKind::Skip).map(|_| ())
    }

    /// A side agent skips the current debate phase; the phase advances if everyone acted.
    #[inline]
    pub fn skip(
        &mut self,
        round: RoundId,
        seat: usize,
        cause: SkipCause,
        out: &mut impl EventSink,
    ) -> Result<Acted, TrolleyError> {
        let (idx, _) = self.check_debate(round, seat, ActionKind::Skip)?;
        let (phase, phase_after) = self.add_skip(idx, seat, cause, out);
        Ok(Acted { round, phase, phase_after, argument_id: None })
    }

    /// What [`Self::skip`] changes once its checks passed: returns the phase skipped and the
    /// phase afterwards (like [`Self::add_argument`], for callers that know the checks pass).
    #[inline]
    pub(crate) fn add_skip(
        &mut self,
        idx: usize,
        seat: usize,
        cause: SkipCause,
        out: &mut impl EventSink,
    ) -> (Phase, Phase) {
        let phase = self.record_skip(idx, seat, cause, out);
        let phase_after = self.close_if_all_acted(idx, out);
        self.version += 1;
        (phase, phase_after)
    }

    /// Whether `submit_decision` would succeed; returns the parsed decision.
    pub fn check_decision(&self, round: RoundId, seat: usize, decision: &str) -> Result<Decision, TrolleyError> {
        self.check_operator(round, seat)?;
        Decision::parse(decision).ok_or_else(|| TrolleyError::InvalidDecision(decision.to_string()))
    }

    /// Every check of a decision but its value's (11): returns the round's index.
    #[inline]
    fn check_operator(&self, round: RoundId, seat: usize) -> Result<usize, TrolleyError> {
        let idx = self.check_round_action(round, seat, ActionKind::Decide)?;
        let r = &self.rounds[idx];
        let role = r.role_of(seat);
        if role != Role::Operator {
            return Err(TrolleyError::WrongRole { action: ActionKind::Decide, role });
        }
        if r.phase != Phase::AwaitingDecision {
            return Err(TrolleyError::WrongPhase { action: ActionKind::Decide, phase: r.phase });
        }
        Ok(idx)
    }

    /// The operator decides; the round resolves and, if coverage is complete or this was round
    /// `max_rounds`, the game ends. The next round is started by [`Self::start_next_round`].
    pub fn submit_decision(
        &mut self,
        round: RoundId,
        seat: usize,
        decision: &str,
        out: &mut impl EventSink,
    ) -> Result<Resolution, TrolleyError> {
        let idx = self.check_operator(round, seat)?;
        let decision = Decision::parse(decision).ok_or_else(|| TrolleyError::InvalidDecision(decision.to_string()))?;
        Ok(self.apply_decision(idx, seat, decision, out))
    }

    /// [`Self::submit_decision`] of a decision that is already a [`Decision`] (the headless
    /// engine's actions carry one): the same checks, but there is no value to parse.
    pub fn decide(
        &mut self,
        round: RoundId,
        seat: usize,
        decision: Decision,
        out: &mut impl EventSink,
    ) -> Result<Resolution, TrolleyError> {
        let idx = self.check_operator(round, seat)?;
        Ok(self.apply_decision(idx, seat, decision, out))
    }

    fn apply_decision(&mut self, idx: usize, seat: usize, decision: Decision, out: &mut impl EventSink) -> Resolution {
        let number = self.rounds[idx].number;
        out.emit(|| Event::DecisionSubmitted { round: number, agent: seat as u8, decision });
        let res = self.resolve(idx, decision, false, out);
        self.version += 1;
        res
    }
}
