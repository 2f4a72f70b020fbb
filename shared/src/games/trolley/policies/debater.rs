//! The `debater` policy (§10): template arguments as a side agent, one of four rules as
//! operator. Draw order per debate phase: chance(skip), then chance(persuasion), then
//! index(family length); as operator, one chance(p) for `random` and `persuadable`, none for the
//! deterministic rules.

use super::templates::Templates;
use super::Reason;
use crate::games::trolley::draws::{self, Chance};
use crate::games::trolley::engine::TrolleyAction;
use crate::games::trolley::state::TrolleyState;
use crate::games::trolley::text::ArgText;
use crate::games::trolley::vocab::{Decision, Phase, Role, Side};
use crate::seeding::Stream;

/// How a debater decides as operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperatorRule {
    /// Always `save_majority`.
    Utilitarian,
    /// `save_majority` with probability `p_majority`.
    Random,
    /// Weighs the arguments around a prior `bias` for the larger side.
    Persuadable,
    /// Saves the side argued down (smaller total weight; equal → `save_minority`).
    Contrarian,
}

impl OperatorRule {
    /// Every rule, in the spec's order.
    pub const ALL: [OperatorRule; 4] =
        [OperatorRule::Utilitarian, OperatorRule::Random, OperatorRule::Persuadable, OperatorRule::Contrarian];

    /// The spec's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            OperatorRule::Utilitarian => "utilitarian",
            OperatorRule::Random => "random",
            OperatorRule::Persuadable => "persuadable",
            OperatorRule::Contrarian => "contrarian",
        }
    }
}

/// `debater` parameters with the spec's defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebaterParams {
    /// Probability that an argument is strong, [0, 1].
    pub persuasion: f64,
    /// Probability of skipping a phase, [0, 1].
    pub skip: f64,
    /// The operator rule.
    pub operator: OperatorRule,
    /// `persuadable`'s prior for the larger side, [−0.5, 0.5].
    pub bias: f64,
    /// `random`'s probability of `save_majority`, [0, 1].
    pub p_majority: f64,
}

impl Default for DebaterParams {
    fn default() -> DebaterParams {
        DebaterParams { persuasion: 0.5, skip: 0.1, operator: OperatorRule::Persuadable, bias: 0.2, p_majority: 0.5 }
    }
}

/// A debater: its parameters and the game's pre-rendered templates.
#[derive(Clone, Debug)]
pub struct Debater {
    params: DebaterParams,
    templates: &'static Templates,
    /// `skip` and `persuasion` as integer thresholds (the same draws and outcomes).
    skip: Chance,
    strong: Chance,
}

impl Debater {
    /// A debater over `templates`.
    pub fn new(params: DebaterParams, templates: &'static Templates) -> Debater {
        Debater { params, templates, skip: Chance::new(params.skip), strong: Chance::new(params.persuasion) }
    }

    /// The parameters.
    pub fn params(&self) -> &DebaterParams {
        &self.params
    }

    /// The action of `seat` in the current round, drawn from the seat's stream: an argument or
    /// skip in a debate phase, the decision while awaiting it (from the round's argument
    /// weights), and a draw-free `skip` when it is not the seat's turn (never asked then).
    pub fn act(&self, state: &TrolleyState, seat: usize, rng: &mut Stream) -> (TrolleyAction, Reason) {
        let (action, drawn) = self.choose(state, seat, rng);
        (action, drawn.reason())
    }

    /// [`Debater::act`] with its reason left as the [`Drawn`] figures: the same draws, and
    /// nothing to drop. The engine builds the [`Reason`] only when a replay records it.
    #[inline]
    pub fn choose(&self, state: &TrolleyState, seat: usize, rng: &mut Stream) -> (TrolleyAction, Drawn) {
        let Some(round) = state.current_round() else {
            return (TrolleyAction::SKIP, Drawn::Idle);
        };
        match (round.role_of(seat), round.phase.debate_index()) {
            (Role::Majority, Some(p)) => self.draw_argument(Side::Majority, p, rng),
            (Role::Minority, Some(p)) => self.draw_argument(Side::Minority, p, rng),
            (Role::Operator, None) if round.phase == Phase::AwaitingDecision => {
                let idx = state.rounds().len() - 1;
                let (mut w_maj, mut w_min) = (0.0, 0.0);
                for a in state.round_arguments(idx) {
                    match a.side {
                        Side::Majority => w_maj += a.text.weight(),
                        Side::Minority => w_min += a.text.weight(),
                    }
                }
                let (decision, drawn) = self.decide_drawn(w_maj, w_min, rng);
                (TrolleyAction::Decide { decision }, drawn)
            }
            _ => (TrolleyAction::SKIP, Drawn::Idle),
        }
    }

    /// A side agent's action in debate phase `phase` (0..3).
    pub fn argue(&self, side: Side, phase: usize, rng: &mut Stream) -> (TrolleyAction, Reason) {
        let (action, drawn) = self.draw_argument(side, phase, rng);
        (action, drawn.reason())
    }

    /// The draws of [`Debater::argue`], as an action.
    #[inline]
    fn draw_argument(&self, side: Side, phase: usize, rng: &mut Stream) -> (TrolleyAction, Drawn) {
        match self.draw(side, phase, rng) {
            None => (TrolleyAction::SKIP, Drawn::Skipped),
            Some(t) => {
                (TrolleyAction::Argue { text: t.text.clone() }, Drawn::Argued { strong: t.strong, template: t.index })
            }
        }
    }

    /// The draws of [`Debater::argue`]: chance(skip), then chance(persuasion) and the template;
    /// `None` is a skip.
    #[inline(always)]
    pub fn draw(&self, side: Side, phase: usize, rng: &mut Stream) -> Option<Template> {
        if self.skip.draw(rng) {
            return None;
        }
        let strong = self.strong.draw(rng);
        let family = self.templates.family(side, phase, strong);
        let index = draws::index(rng, family.len());
        Some(Template { strong, index, text: &family[index] })
    }

    /// The operator's decision from the summed argument weights of each side.
    pub fn decide(&self, w_majority: f64, w_minority: f64, rng: &mut Stream) -> (Decision, Reason) {
        let (decision, drawn) = self.decide_drawn(w_majority, w_minority, rng);
        (decision, drawn.reason())
    }

    /// [`Debater::decide`] with its reason left as the [`Drawn`] figures: what the engine calls
    /// with the round's weights summed as its arguments came in (in the order and with the
    /// additions [`Debater::choose`] would make).
    #[inline]
    pub fn decide_drawn(&self, w_majority: f64, w_minority: f64, rng: &mut Stream) -> (Decision, Drawn) {
        let (decision, p) = self.draw_decision(w_majority, w_minority, rng);
        (decision, Drawn::Decided { rule: self.params.operator, w_majority, w_minority, p })
    }

    /// The decision and, for the random rules, the probability of `save_majority` drawn with.
    #[inline]
    fn draw_decision(&self, w_majority: f64, w_minority: f64, rng: &mut Stream) -> (Decision, Option<f64>) {
        let pick = |majority: bool| {
            if majority {
                Decision::SaveMajority
            } else {
                Decision::SaveMinority
            }
        };
        match self.params.operator {
            OperatorRule::Utilitarian => (Decision::SaveMajority, None),
            OperatorRule::Random => {
                let p = self.params.p_majority;
                (pick(rng.chance(p)), Some(p))
            }
            OperatorRule::Persuadable => {
                let p = persuadable_p(self.params.bias, w_majority, w_minority);
                (pick(rng.chance(p)), Some(p))
            }
            // Equal weights (including no arguments at all) save the minority.
            OperatorRule::Contrarian => (pick(w_majority < w_minority), None),
        }
    }
}

/// The template a debater argues with.
#[derive(Clone, Copy, Debug)]
pub struct Template {
    /// From the strong family.
    pub strong: bool,
    /// Index in the family.
    pub index: usize,
    /// The text, rendered once per process.
    pub text: &'static ArgText,
}

/// What a scripted choice was based on, as plain figures (no drop, no allocation): the engine
/// keeps these and makes a [`Reason`] of them only for a replay.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Drawn {
    /// chance(skip) came up.
    Skipped,
    /// Argued with template `template` of the weak or strong family.
    Argued {
        /// Strong family.
        strong: bool,
        /// Index in the family.
        template: usize,
    },
    /// The operator rule and the figures it used.
    Decided {
        /// The rule.
        rule: OperatorRule,
        /// Summed weight of the majority's arguments.
        w_majority: f64,
        /// Summed weight of the minority's arguments.
        w_minority: f64,
        /// The probability of `save_majority`, for the random rules.
        p: Option<f64>,
    },
    /// Asked outside its turn (never by the engine).
    Idle,
}

impl Drawn {
    /// The reason these figures stand for.
    pub fn reason(self) -> Reason {
        Reason::Scripted(self)
    }

    /// The replay's `reasoning` text.
    pub fn describe(&self) -> String {
        match self {
            Drawn::Skipped => "skip drawn".into(),
            Drawn::Argued { strong, template } => {
                format!("{} template {template}", if *strong { "strong" } else { "weak" })
            }
            Drawn::Decided { rule, w_majority, w_minority, p } => {
                let mut s = format!("{}: W_maj = {w_majority}, W_min = {w_minority}", rule.as_str());
                if let Some(p) = p {
                    s.push_str(&format!(", p(save_majority) = {p}"));
                }
                s
            }
            Drawn::Idle => "not this agent's turn".into(),
        }
    }
}

/// `persuadable`'s probability of `save_majority`: margin = (W_maj − W_min)/(W_maj + W_min + 1),
/// p = clamp(0.5 + bias + 0.5·margin, 0, 1).
pub fn persuadable_p(bias: f64, w_majority: f64, w_minority: f64) -> f64 {
    let margin = (w_majority - w_minority) / (w_majority + w_minority + 1.0);
    (0.5 + bias + 0.5 * margin).clamp(0.0, 1.0)
}
