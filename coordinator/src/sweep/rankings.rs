//! The `[[rankings]]` section of a sweep file: a roster of policies played in mixed teams.
//!
//! ```toml
//! [[rankings]]
//! game = "bucket_brigade"
//! scenarios = ["default", "rest_trap"]
//! roster = ["firefighter", "free_rider", "hero", "coordinator", "liar",
//!           { name = "eager", spec = "heuristic?work_tendency=0.95" }]  # a name for a long spec
//! team_size = 4
//! teams = 30            # teams × team_size must be a multiple of the roster size
//! seed = 7              # optional (default 0): the seed of the team draw, not of the episodes
//! name = "team"         # optional (default "team"): the policy set name prefix
//! episodes_per_job = 250  # optional, as in [[cells]]
//! ```
//!
//! It expands into ordinary cells after every `[[cells]]` group: for each scenario, each team
//! (see [`super::teams`]) in order, all on the sweep's seeds (common random numbers).

use std::ops::Range;

use serde::Deserialize;
use simfleet::protocol::{Job, PolicySet, SeedRange, PROTOCOL_VERSION};
use simfleet::{GameKind, Spec};
use toml::Spanned;

use super::teams::{generate, team_name};

/// A `[[rankings]]` section as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRanking {
    game: Spanned<String>,
    scenarios: Vec<Spanned<String>>,
    roster: Spanned<Vec<Spanned<RosterEntry>>>,
    team_size: Spanned<i64>,
    teams: Spanned<i64>,
    seed: Option<Spanned<i64>>,
    name: Option<Spanned<String>>,
    episodes_per_job: Option<Spanned<i64>>,
}

/// A roster entry: a policy spec, or a spec with a short name for tables and team names.
#[derive(Deserialize)]
#[serde(untagged, expecting = "a policy spec string, or an inline table { name = \"short\", spec = \"policy spec\" }")]
enum RosterEntry {
    Spec(String),
    Named { name: String, spec: String },
}

impl RawRanking {
    /// Rewrites the `wasm:` entries of the roster to their modules' hashes
    /// ([`super::modules`]); an entry without a name is named by its label.
    pub(super) fn resolve_modules(
        &mut self,
        ri: usize,
        modules: &mut super::modules::Modules,
        err: &dyn Fn(Option<std::ops::Range<usize>>, Option<String>, String) -> super::SweepError,
    ) -> Result<(), super::SweepError> {
        for (i, entry) in self.roster.get_mut().iter_mut().enumerate() {
            let span = entry.span();
            let field = format!("rankings[{ri}].roster[{i}]");
            let resolved =
                modules.resolve(entry.get_ref().spec()).map_err(|e| err(Some(span.clone()), Some(field), e))?;
            if let Some(spec) = resolved {
                let name = match entry.get_ref() {
                    RosterEntry::Named { name, .. } => name.clone(),
                    RosterEntry::Spec(_) => simfleet::outside::wasm::label(&spec)
                        .map(|l| l.trim_start_matches("wasm:").to_string())
                        .unwrap_or_default(),
                };
                *entry = Spanned::new(span, RosterEntry::Named { name, spec });
            }
        }
        Ok(())
    }
}

impl RosterEntry {
    fn spec(&self) -> &str {
        match self {
            RosterEntry::Spec(s) | RosterEntry::Named { spec: s, .. } => s,
        }
    }

    /// What tables and team names call it.
    fn label(&self) -> &str {
        match self {
            RosterEntry::Spec(s) | RosterEntry::Named { name: s, .. } => s,
        }
    }
}

/// One cell of an expanded ranking.
pub struct RankingCell {
    /// The game.
    pub game: GameKind,
    /// The scenario string.
    pub scenario: String,
    /// The team.
    pub policy_set: PolicySet,
    /// `episodes_per_job` of the section, if given.
    pub episodes_per_job: Option<u64>,
    /// Where errors about this cell point (the section's `teams` field).
    pub span: Range<usize>,
}

/// How a caller turns (span, field, message) into its error.
pub type ErrorAt<'a, E> = &'a dyn Fn(Option<Range<usize>>, Option<String>, String) -> E;

fn probe(game: GameKind, scenario: &str, seats: Vec<String>) -> Result<(), simfleet::JobError> {
    let job = Job {
        protocol_version: PROTOCOL_VERSION,
        sweep: String::new(),
        index: 0,
        game: game.as_str().into(),
        scenario: scenario.into(),
        policy_set: PolicySet { name: "probe".into(), seats },
        seeds: SeedRange { start: 0, count: 1 },
        replay: false,
        collect: Default::default(),
        paired: Vec::new(),
    };
    let env = crate::sweep::validation_env();
    simfleet::prepare_job(&job, &env).map(|_| ())
}

impl RawRanking {
    /// Validates section `ri` and expands it into cells, in expansion order.
    pub fn expand<E>(&self, ri: usize, err: ErrorAt<'_, E>) -> Result<Vec<RankingCell>, E> {
        let field = |f: &str| Some(format!("rankings[{ri}].{f}"));
        let game: GameKind = self
            .game
            .get_ref()
            .parse()
            .map_err(|e: simfleet::games::UnknownGame| err(Some(self.game.span()), field("game"), e.to_string()))?;
        let positive = |v: &Spanned<i64>, name: &str, min: i64| -> Result<usize, E> {
            let n = *v.get_ref();
            if n < min {
                return Err(err(Some(v.span()), field(name), format!("{n} must be at least {min}")));
            }
            Ok(n as usize)
        };
        let team_size = positive(&self.team_size, "team_size", 2)?;
        let teams = positive(&self.teams, "teams", 1)?;
        let seed = match &self.seed {
            None => 0,
            Some(s) => positive(s, "seed", 0)? as u64,
        };
        let episodes_per_job = match &self.episodes_per_job {
            None => None,
            Some(s) => Some(positive(s, "episodes_per_job", 1)? as u64),
        };
        let prefix = self.name.as_ref().map_or("team", |n| n.get_ref().as_str());
        if prefix.is_empty()
            || !prefix.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        {
            let span = self.name.as_ref().map(Spanned::span);
            return Err(err(span, field("name"), format!("{prefix:?} must match [a-z0-9_-]+")));
        }
        if self.scenarios.is_empty() {
            return Err(err(Some(self.game.span()), field("scenarios"), "no scenarios".into()));
        }
        let entries = self.roster.get_ref();
        let roster: Vec<&str> = entries.iter().map(|s| s.get_ref().spec()).collect();
        let labels: Vec<&str> = entries.iter().map(|s| s.get_ref().label()).collect();
        self.check_roster(&roster, &labels, &field, err)?;
        self.probe_scenarios(game, &roster, team_size, &field, err)?;
        let drawn = generate(roster.len(), team_size, teams, seed)
            .map_err(|m| err(Some(self.teams.span()), field("teams"), m))?;
        let mut cells = Vec::new();
        for scenario in &self.scenarios {
            for (ti, team) in drawn.iter().enumerate() {
                let seats: Vec<String> = team.iter().map(|&m| roster[m].to_string()).collect();
                let members: Vec<&str> = team.iter().map(|&m| labels[m]).collect();
                let name = team_name(prefix, ti + 1, teams, &members);
                if let Err(e) = probe(game, scenario.get_ref(), seats.clone()) {
                    let msg = format!("team {name}: {e}");
                    return Err(err(Some(self.roster.span()), field("roster"), msg));
                }
                cells.push(RankingCell {
                    game,
                    scenario: scenario.get_ref().clone(),
                    policy_set: PolicySet { name, seats },
                    episodes_per_job,
                    span: self.teams.span(),
                });
            }
        }
        Ok(cells)
    }

    /// Each roster entry once, by spec and by name, and names that can be part of a policy
    /// set's name.
    fn check_roster<E>(
        &self,
        roster: &[&str],
        labels: &[&str],
        field: &dyn Fn(&str) -> Option<String>,
        err: ErrorAt<'_, E>,
    ) -> Result<(), E> {
        let entries = self.roster.get_ref();
        for (i, entry) in entries.iter().enumerate() {
            let at = Some(entry.span());
            let f = field(&format!("roster[{i}]"));
            if let Some(j) = roster[..i].iter().position(|r| *r == roster[i]) {
                let msg = format!("{:?} is already roster entry {j}: each policy may appear once", roster[i]);
                return Err(err(at, f, msg));
            }
            if let Some(j) = labels[..i].iter().position(|r| *r == labels[i]) {
                return Err(err(at, f, format!("the name {:?} is already roster entry {j}'s", labels[i])));
            }
            let ok = |b: u8| b.is_ascii_alphanumeric() || b"_.:-".contains(&b);
            if matches!(entry.get_ref(), RosterEntry::Named { .. })
                && (labels[i].is_empty() || !labels[i].bytes().all(ok))
            {
                return Err(err(at, f, format!("the name {:?} must match [A-Za-z0-9_.:-]+", labels[i])));
            }
        }
        Ok(())
    }

    /// Every scenario parses, and every roster entry plays it in a team of `team_size` of its
    /// own: an error names the scenario, the roster entry or `team_size`, whichever is at fault.
    fn probe_scenarios<E>(
        &self,
        game: GameKind,
        roster: &[&str],
        team_size: usize,
        field: &dyn Fn(&str) -> Option<String>,
        err: ErrorAt<'_, E>,
    ) -> Result<(), E> {
        let entries = self.roster.get_ref();
        for (si, scenario) in self.scenarios.iter().enumerate() {
            let sfield = field(&format!("scenarios[{si}]"));
            Spec::parse(scenario.get_ref()).map_err(|e| err(Some(scenario.span()), sfield.clone(), e.message))?;
            for (i, spec) in entries.iter().enumerate() {
                if let Err(e) = probe(game, scenario.get_ref(), vec![roster[i].to_string(); team_size]) {
                    let at = e.field.as_deref().unwrap_or("");
                    let (span, f) = if at.starts_with("policy_set[") {
                        // Every seat holds this entry: name the parameter, not seat 0.
                        let param = at.split_once("].").map_or("policy", |(_, p)| p);
                        let msg = format!("invalid {param} = {}: {}", e.value.as_deref().unwrap_or(""), e.message);
                        return Err(err(Some(spec.span()), field(&format!("roster[{i}]")), msg));
                    } else if at.starts_with("policy_set") || e.message.contains("seat") {
                        (self.team_size.span(), field("team_size"))
                    } else {
                        (scenario.span(), sfield.clone())
                    };
                    return Err(err(Some(span), f, e.to_string()));
                }
            }
        }
        Ok(())
    }
}
