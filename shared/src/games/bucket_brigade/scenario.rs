//! The scenario: every parameter of a game, its overrides and its validation (spec §2).
//!
//! A job names a base scenario ([`Scenario::named`], the table of §11 lives in `named.rs`)
//! and may override any field by name (`rest_trap?reward_model=reference&num_agents=6`).
//! Every error is an `invalid_job` naming `scenario.<field>` and the value as written.

use std::fmt;

use crate::field;
use crate::protocol::JobError;
use crate::spec::Spec;

use super::house::NUM_HOUSES;
use super::named;

/// Fewest agents a scenario may have.
pub const MIN_AGENTS: usize = 4;
/// Most agents a scenario may have (one home house each).
pub const MAX_AGENTS: usize = 10;
/// The safety limit on episode length, in nights.
pub const MAX_NIGHTS: u32 = 100;

/// OWNERS[n][h] = h mod n, for n in 1..=10 (row 0 unused).
const OWNERS: [[u8; NUM_HOUSES]; MAX_AGENTS + 1] = {
    let mut t = [[0u8; NUM_HOUSES]; MAX_AGENTS + 1];
    let mut n = 1;
    while n <= MAX_AGENTS {
        let mut h = 0;
        while h < NUM_HOUSES {
            t[n][h] = (h % n) as u8;
            h += 1;
        }
        n += 1;
    }
    t
};

/// Which reward formulas are paid (§6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RewardModel {
    /// The seed's formulas: nightly work/rest and owned-house changes, one terminal payout.
    Seed,
    /// The reference implementation's per-night formula (for parity with published numbers).
    Reference,
}

impl RewardModel {
    /// Both models, in the order their names are listed.
    pub const ALL: [RewardModel; 2] = [RewardModel::Seed, RewardModel::Reference];

    /// The name used in scenario strings and replays.
    pub const fn as_str(self) -> &'static str {
        match self {
            RewardModel::Seed => "seed",
            RewardModel::Reference => "reference",
        }
    }
}

/// The field names of §2, in the spec's order (replays write them in this order).
pub const FIELDS: [&str; 17] = [
    "num_agents",
    "prob_fire_spreads_to_neighbor",
    "prob_solo_agent_extinguishes_fire",
    "prob_house_catches_fire",
    "team_reward_house_survives",
    "team_penalty_house_burns",
    "cost_to_work_one_night",
    "min_nights",
    "reward_own_house_survives",
    "reward_other_house_survives",
    "penalty_own_house_burns",
    "penalty_other_house_burns",
    "reward_rest",
    "team_share_gamma",
    "alpha_own",
    "reward_model",
    "spread_before_burnout",
];

/// Every field of the named scenario `name` with its value there (`coordinator list`).
pub fn field_defaults(name: &str) -> Option<Vec<crate::games::FieldDefault>> {
    let sc = Scenario::named(name)?;
    Some(
        FIELDS
            .iter()
            .map(|&f| crate::games::FieldDefault::new(f, sc.get(f).expect("every field has a value")))
            .collect(),
    )
}

/// A complete, resolved scenario. Field names are the spec's (§2); symbols in the docs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scenario {
    /// The base scenario's name (§11).
    pub name: &'static str,
    /// N, 4..=10.
    pub num_agents: usize,
    /// β: chance a fire ignites a Safe neighbour (live only with `spread_before_burnout`).
    pub prob_fire_spreads_to_neighbor: f64,
    /// p: chance one worker puts a fire out.
    pub prob_solo_agent_extinguishes_fire: f64,
    /// ρ: per-night spark chance of each Safe house, and the initial fire chance.
    pub prob_house_catches_fire: f64,
    /// A: team weight of the saved fraction.
    pub team_reward_house_survives: f64,
    /// L: team weight of the ruined fraction.
    pub team_penalty_house_burns: f64,
    /// c: cost of one agent working one night.
    pub cost_to_work_one_night: f64,
    /// n_min, 0..=100: nights always played before the game may end.
    pub min_nights: u32,
    /// a_own: ownership reward per own house.
    pub reward_own_house_survives: f64,
    /// a_oth: ownership reward per other house.
    pub reward_other_house_survives: f64,
    /// l_own: ownership penalty per own house.
    pub penalty_own_house_burns: f64,
    /// l_oth: ownership penalty per other house.
    pub penalty_other_house_burns: f64,
    /// r_rest: reward for resting one night.
    pub reward_rest: f64,
    /// γ: weight of the team share in individual rewards (`seed` model only).
    pub team_share_gamma: f64,
    /// α_own: weight of the nightly change in owned Safe houses (`seed` model only).
    pub alpha_own: f64,
    /// Which formulas pay.
    pub reward_model: RewardModel,
    /// The contagion variant: spread before burn-out (§4, steps 5′ and 6′).
    pub spread_before_burnout: bool,
}

/// The resolved value of one field, as written in replays and error messages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldValue {
    /// `num_agents`, `min_nights`.
    Int(u32),
    /// Probabilities and reward weights.
    Real(f64),
    /// `spread_before_burnout`.
    Flag(bool),
    /// `reward_model`.
    Model(RewardModel),
}

impl fmt::Display for FieldValue {
    /// The form a scenario string would use; `f64` prints the shortest string that parses back
    /// to the same value, which `validate` relies on.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldValue::Int(v) => write!(f, "{v}"),
            FieldValue::Real(v) => write!(f, "{v}"),
            FieldValue::Flag(v) => write!(f, "{v}"),
            FieldValue::Model(m) => f.write_str(m.as_str()),
        }
    }
}

impl serde::Serialize for FieldValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FieldValue::Int(v) => s.serialize_u32(*v),
            FieldValue::Real(v) => s.serialize_f64(*v),
            FieldValue::Flag(v) => s.serialize_bool(*v),
            FieldValue::Model(m) => s.serialize_str(m.as_str()),
        }
    }
}

impl Scenario {
    /// The named scenario `name` of §11, if there is one.
    pub fn named(name: &str) -> Option<Scenario> {
        named::lookup(name)
    }

    /// The `default` scenario.
    pub fn default_scenario() -> Scenario {
        named::lookup(named::DEFAULT).expect("the default scenario is in the table")
    }

    /// Resolves a scenario spec `NAME[?field=value&…]`: the named base, then each override in
    /// the order written, then validation.
    pub fn from_spec(spec: &Spec) -> Result<Scenario, JobError> {
        let mut sc = Scenario::named(&spec.name).ok_or_else(|| {
            JobError::invalid("scenario", &spec.name, format!("unknown scenario (known: {})", named::NAMES.join(", ")))
        })?;
        if let Some(arg) = &spec.arg {
            return Err(JobError::invalid(
                "scenario",
                format!("{}:{arg}", spec.name),
                "a scenario takes no `:` argument",
            ));
        }
        for (i, (key, value)) in spec.params.iter().enumerate() {
            // `Spec::parse` already refuses repeats; a hand-built `Spec` might not.
            if spec.params[..i].iter().any(|(k, _)| k == key) {
                return Err(JobError::invalid(field::scenario_path(key), value, "field given twice"));
            }
            sc.set(key, value)?;
        }
        sc.validate()?;
        Ok(sc)
    }

    /// Overrides one field from its string form, checking type and range.
    pub fn set(&mut self, name: &str, raw: &str) -> Result<(), JobError> {
        let path = field::scenario_path(name);
        let p = path.as_str();
        match name {
            "num_agents" => self.num_agents = field::int(p, raw, MIN_AGENTS as i64, MAX_AGENTS as i64)? as usize,
            "prob_fire_spreads_to_neighbor" => self.prob_fire_spreads_to_neighbor = field::unit(p, raw)?,
            "prob_solo_agent_extinguishes_fire" => self.prob_solo_agent_extinguishes_fire = field::unit(p, raw)?,
            "prob_house_catches_fire" => self.prob_house_catches_fire = field::unit(p, raw)?,
            "team_reward_house_survives" => self.team_reward_house_survives = field::finite(p, raw)?,
            "team_penalty_house_burns" => self.team_penalty_house_burns = field::finite(p, raw)?,
            "cost_to_work_one_night" => self.cost_to_work_one_night = field::finite(p, raw)?,
            "min_nights" => self.min_nights = field::int(p, raw, 0, i64::from(MAX_NIGHTS))? as u32,
            "reward_own_house_survives" => self.reward_own_house_survives = field::finite(p, raw)?,
            "reward_other_house_survives" => self.reward_other_house_survives = field::finite(p, raw)?,
            "penalty_own_house_burns" => self.penalty_own_house_burns = field::finite(p, raw)?,
            "penalty_other_house_burns" => self.penalty_other_house_burns = field::finite(p, raw)?,
            "reward_rest" => self.reward_rest = field::finite(p, raw)?,
            "team_share_gamma" => self.team_share_gamma = field::finite(p, raw)?,
            "alpha_own" => self.alpha_own = field::finite(p, raw)?,
            "reward_model" => {
                let names = RewardModel::ALL.map(RewardModel::as_str);
                self.reward_model = RewardModel::ALL[field::choice(p, raw, &names)?];
            }
            "spread_before_burnout" => self.spread_before_burnout = field::boolean(p, raw)?,
            _ => {
                return Err(JobError::invalid(p, raw, format!("unknown field (fields: {})", FIELDS.join(", "))));
            }
        }
        Ok(())
    }

    /// The resolved value of field `name`, if it is one of [`FIELDS`].
    pub fn get(&self, name: &str) -> Option<FieldValue> {
        use FieldValue::{Flag, Int, Model, Real};
        Some(match name {
            // num_agents ≤ 10 once validated; saturate rather than wrap if a caller built a wild one.
            "num_agents" => Int(u32::try_from(self.num_agents).unwrap_or(u32::MAX)),
            "prob_fire_spreads_to_neighbor" => Real(self.prob_fire_spreads_to_neighbor),
            "prob_solo_agent_extinguishes_fire" => Real(self.prob_solo_agent_extinguishes_fire),
            "prob_house_catches_fire" => Real(self.prob_house_catches_fire),
            "team_reward_house_survives" => Real(self.team_reward_house_survives),
            "team_penalty_house_burns" => Real(self.team_penalty_house_burns),
            "cost_to_work_one_night" => Real(self.cost_to_work_one_night),
            "min_nights" => Int(self.min_nights),
            "reward_own_house_survives" => Real(self.reward_own_house_survives),
            "reward_other_house_survives" => Real(self.reward_other_house_survives),
            "penalty_own_house_burns" => Real(self.penalty_own_house_burns),
            "penalty_other_house_burns" => Real(self.penalty_other_house_burns),
            "reward_rest" => Real(self.reward_rest),
            "team_share_gamma" => Real(self.team_share_gamma),
            "alpha_own" => Real(self.alpha_own),
            "reward_model" => Model(self.reward_model),
            "spread_before_burnout" => Flag(self.spread_before_burnout),
            _ => return None,
        })
    }

    /// Checks every field's range (§2). Each value goes back through [`Scenario::set`] in its
    /// written form, so a hand-built scenario meets exactly the rules and messages of overrides.
    pub fn validate(&self) -> Result<(), JobError> {
        // Every job prepares its scenario (and validates it twice): the ranges are checked
        // directly first, and only a scenario that breaks one goes through the round trip, for
        // its message. `the_direct_check_agrees_with_the_round_trip` holds the two together.
        if self.in_range() {
            return Ok(());
        }
        self.round_trip()
    }

    /// Each value back through [`Scenario::set`] in its written form: the messages of `validate`.
    pub(super) fn round_trip(&self) -> Result<(), JobError> {
        let mut probe = *self;
        for name in FIELDS {
            let value = self.get(name).expect("every listed field has a value");
            probe.set(name, &value.to_string())?;
        }
        Ok(())
    }

    /// What the round trip of [`Scenario::validate`] accepts, checked on the values: the integer
    /// ranges, probabilities finite within [0, 1], the other numbers finite (a finite f64 writes
    /// and parses back to itself; the model and the flag always do).
    pub(super) fn in_range(&self) -> bool {
        let unit = |p: f64| (0.0..=1.0).contains(&p);
        (MIN_AGENTS..=MAX_AGENTS).contains(&self.num_agents)
            && self.min_nights <= MAX_NIGHTS
            && [
                self.prob_fire_spreads_to_neighbor,
                self.prob_solo_agent_extinguishes_fire,
                self.prob_house_catches_fire,
            ]
            .into_iter()
            .all(unit)
            && [
                self.team_reward_house_survives,
                self.team_penalty_house_burns,
                self.cost_to_work_one_night,
                self.reward_own_house_survives,
                self.reward_other_house_survives,
                self.penalty_own_house_burns,
                self.penalty_other_house_burns,
                self.reward_rest,
                self.team_share_gamma,
                self.alpha_own,
            ]
            .into_iter()
            .all(f64::is_finite)
    }

    /// owner(h) = h mod N (from a table: the reward loops would otherwise divide per house).
    ///
    /// # Panics
    ///
    /// If `num_agents` is above 10 or `house` above 9 (a validated scenario never is).
    #[inline]
    pub fn owner(&self, house: usize) -> usize {
        usize::from(OWNERS[self.num_agents][house])
    }
}
