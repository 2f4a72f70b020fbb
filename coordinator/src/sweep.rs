//! Sweep files: parsing with errors that name the line and the field, validation of every cell
//! against the engines, the sweep id, and the expansion into jobs.
//!
//! A sweep file (TOML) is a list of cell groups; each group is a cartesian product of scenarios,
//! policy sets and seed chunks (the contract is docs/sweeps.md). Expansion order
//! (cells, scenarios, policy sets, seed chunks) and job indexes are a pure function of the file.
//! Optional `[[rankings]]` sections (mixed teams from a roster, [`crate::rank::section`]) expand
//! into further cells after every `[[cells]]` group.

use std::fmt;
use std::path::Path;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use simfleet::protocol::{Collect, Job, PolicySet, SeedRange, PROTOCOL_VERSION};
use simfleet::{GameKind, RunEnv, Spec};
use toml::Spanned;

use crate::rank::section::RawRanking;
pub use sizing::{default_episodes_per_job, summary_scale};

/// A sweep file that does not parse or validate. Displays as `FILE:LINE: field: message`.
#[derive(Debug, thiserror::Error)]
pub struct SweepError {
    /// The file (or `<input>`).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// The field at fault, e.g. `cells[1].policy_sets.mixed[2]`.
    pub field: Option<String>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSweep {
    name: Spanned<String>,
    seeds: Spanned<RawSeeds>,
    episodes_per_job: Option<Spanned<i64>>,
    collect: Option<Spanned<String>>,
    /// The class on a shared fleet (`class`).
    priority: Option<Spanned<String>>,
    share: Option<Spanned<i64>>,
    #[serde(default)]
    cells: Vec<Spanned<RawCell>>,
    /// Ranking experiments, expanded after the cells (`crate::rank::section`).
    #[serde(default)]
    rankings: Vec<RawRanking>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSeeds {
    start: Spanned<i64>,
    count: Spanned<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCell {
    game: Spanned<String>,
    scenarios: Vec<Spanned<String>>,
    policy_sets: IndexMap<Spanned<String>, Spanned<Vec<Spanned<String>>>>,
    episodes_per_job: Option<Spanned<i64>>,
    collect: Option<Spanned<String>>,
}

/// A parsed, validated sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sweep {
    /// `<slug(name)>-<12 hex of sha256(canonical sweep)>`.
    #[serde(skip)]
    pub id: String,
    /// The `name` field.
    pub name: String,
    /// Seeds every cell plays.
    pub seeds: SeedRange,
    /// The cells, one per (game, scenario, policy set), in expansion order.
    pub cells: Vec<Cell>,
    /// The `--collect` given to [`Sweep::with_collect`], if any (the KV entry keeps it).
    #[serde(skip)]
    pub collect_override: Option<Collect>,
    /// Its class on a shared fleet (`priority`, [`Sweep::with_class`]); not part of the id.
    #[serde(skip)]
    pub priority: simfleet::topology::Priority,
    /// Its weight within the class (`share`); not part of the id.
    #[serde(skip)]
    pub share: u32,
    /// Whether `submit --priority/--share` set the class: a resubmission then changes it.
    #[serde(skip)]
    pub class_given: bool,
}

/// One (game, scenario, policy set) of a sweep and how its seeds are chunked into jobs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// The game.
    pub game: GameKind,
    /// The scenario spec string as written.
    pub scenario: String,
    /// The team.
    pub policy_set: PolicySet,
    /// Episodes per job.
    pub episodes_per_job: u64,
    /// Whether `episodes_per_job` was written in the file (else it is the default for the game
    /// and the collect mode, [`default_episodes_per_job`]).
    #[serde(skip)]
    pub explicit_episodes_per_job: bool,
    /// What its jobs' results carry. Left out of the canonical form when `records`, so the ids
    /// of sweeps written before the setting existed do not change.
    #[serde(skip_serializing_if = "Collect::is_records")]
    pub collect: Collect,
    /// Index of this cell's first job.
    #[serde(skip)]
    pub first_job: u64,
}

impl Cell {
    /// Number of jobs of this cell.
    pub fn jobs(&self, seeds: SeedRange) -> u64 {
        seeds.count.div_ceil(self.episodes_per_job)
    }
}

fn line_of(text: &str, span: std::ops::Range<usize>) -> usize {
    text[..span.start.min(text.len())].bytes().filter(|b| *b == b'\n').count() + 1
}

/// `[a-z0-9_-]{1,40}` from any name.
pub fn slug(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    s.truncate(40);
    if s.is_empty() {
        s.push_str("sweep");
    }
    s
}

impl Sweep {
    /// Reads and validates a sweep file.
    pub fn load(path: &Path) -> Result<Sweep, SweepError> {
        let text = std::fs::read_to_string(path).map_err(|e| SweepError {
            file: path.display().to_string(),
            line: None,
            field: None,
            message: format!("cannot read the sweep file: {e}"),
        })?;
        Sweep::parse(&text, &path.display().to_string())
    }

    /// Parses and validates sweep text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Sweep, SweepError> {
        let err = |span: Option<std::ops::Range<usize>>, field: Option<String>, message: String| SweepError {
            file: file.to_string(),
            line: span.map(|s| line_of(text, s)),
            field,
            message,
        };
        let raw: RawSweep = toml::from_str(text).map_err(|e| {
            let msg = e.message().trim().to_string();
            err(e.span(), None, msg)
        })?;
        let seeds_span = raw.seeds.span();
        let seeds = raw.seeds.into_inner();
        let start = *seeds.start.get_ref();
        if start < 0 {
            return Err(err(
                Some(seeds.start.span()),
                Some("seeds.start".into()),
                format!("{start} is negative: seeds start in 0..2^63"),
            ));
        }
        let count = *seeds.count.get_ref();
        if count < 1 {
            return Err(err(
                Some(seeds.count.span()),
                Some("seeds.count".into()),
                format!("{count} must be at least 1"),
            ));
        }
        if start.checked_add(count).is_none() {
            return Err(err(Some(seeds_span), Some("seeds".into()), "start + count overflows 2^63".into()));
        }
        let seeds = SeedRange { start: start as u64, count: count as u64 };
        let epj = |v: &Option<Spanned<i64>>, field: String| -> Result<Option<u64>, SweepError> {
            match v {
                None => Ok(None),
                Some(s) if *s.get_ref() >= 1 => Ok(Some(*s.get_ref() as u64)),
                Some(s) => Err(err(Some(s.span()), Some(field), format!("{} must be at least 1", s.get_ref()))),
            }
        };
        let sweep_epj = epj(&raw.episodes_per_job, "episodes_per_job".into())?;
        let collect = |v: &Option<Spanned<String>>, field: String| -> Result<Option<Collect>, SweepError> {
            match v {
                None => Ok(None),
                Some(s) => s.get_ref().parse().map(Some).map_err(|e: String| err(Some(s.span()), Some(field), e)),
            }
        };
        let sweep_collect = collect(&raw.collect, "collect".into())?.unwrap_or_default();
        let (priority, share) =
            class::parse(&raw.priority, &raw.share).map_err(|(span, key, e)| err(Some(span), Some(key.into()), e))?;
        if raw.cells.is_empty() && raw.rankings.is_empty() {
            return Err(err(None, Some("cells".into()), "the sweep has no [[cells]] (or [[rankings]])".into()));
        }
        let env = RunEnv { chat: crate::llm::llm_transport(), ..RunEnv::default() };
        let mut cells = Vec::new();
        // (game, scenario, policy set) -> line, for the uniqueness check.
        let mut seen: IndexMap<(GameKind, String, String), usize> = IndexMap::new();
        let mut next_job = 0u64;
        for (ci, cell) in raw.cells.iter().enumerate() {
            let cell = cell.get_ref();
            let game: GameKind = cell.game.get_ref().parse().map_err(|e: simfleet::games::UnknownGame| {
                err(Some(cell.game.span()), Some(format!("cells[{ci}].game")), e.to_string())
            })?;
            let cell_epj = epj(&cell.episodes_per_job, format!("cells[{ci}].episodes_per_job"))?.or(sweep_epj);
            let cell_collect = collect(&cell.collect, format!("cells[{ci}].collect"))?.unwrap_or(sweep_collect);
            if cell.scenarios.is_empty() {
                return Err(err(Some(cell.game.span()), Some(format!("cells[{ci}].scenarios")), "no scenarios".into()));
            }
            if cell.policy_sets.is_empty() {
                return Err(err(
                    Some(cell.game.span()),
                    Some(format!("cells[{ci}].policy_sets")),
                    "no policy sets".into(),
                ));
            }
            for (si, scenario) in cell.scenarios.iter().enumerate() {
                let sfield = format!("cells[{ci}].scenarios[{si}]");
                let spec = Spec::parse(scenario.get_ref())
                    .map_err(|e| err(Some(scenario.span()), Some(sfield.clone()), e.message))?;
                for (ps_name, seats) in &cell.policy_sets {
                    let pfield = format!("cells[{ci}].policy_sets.{}", ps_name.get_ref());
                    let policy_set = PolicySet {
                        name: ps_name.get_ref().clone(),
                        seats: seats.get_ref().iter().map(|s| s.get_ref().clone()).collect(),
                    };
                    let key = (game, scenario.get_ref().clone(), policy_set.name.clone());
                    let line = line_of(text, ps_name.span());
                    if let Some(first) = seen.get(&key) {
                        return Err(err(
                            Some(ps_name.span()),
                            Some(pfield),
                            format!(
                                "({}, {:?}, {}) is already in the sweep at line {first}: each (game, scenario, policy set) may appear once",
                                game, key.1, key.2
                            ),
                        ));
                    }
                    seen.insert(key, line);
                    let probe = Job {
                        protocol_version: PROTOCOL_VERSION,
                        sweep: String::new(),
                        index: 0,
                        game: game.as_str().into(),
                        scenario: scenario.get_ref().clone(),
                        policy_set: policy_set.clone(),
                        seeds: SeedRange { start: 0, count: 1 },
                        replay: false,
                        collect: Default::default(),
                    };
                    if let Err(e) = simfleet::prepare_job(&probe, &env) {
                        let (span, field) = locate(&e, &sfield, scenario.span(), &pfield, seats);
                        return Err(err(Some(span), Some(field), e.to_string()));
                    }
                    let episodes_per_job =
                        cell_epj.unwrap_or_else(|| default_episodes_per_job(game, &spec, cell_collect));
                    let cell = Cell {
                        game,
                        scenario: scenario.get_ref().clone(),
                        policy_set,
                        episodes_per_job,
                        explicit_episodes_per_job: cell_epj.is_some(),
                        collect: cell_collect,
                        first_job: next_job,
                    };
                    next_job += cell.jobs(seeds);
                    cells.push(cell);
                }
            }
        }
        for (ri, ranking) in raw.rankings.iter().enumerate() {
            for rc in ranking.expand(ri, &err)? {
                let key = (rc.game, rc.scenario.clone(), rc.policy_set.name.clone());
                if let Some(first) = seen.get(&key) {
                    let msg =
                        format!("team {:?} of scenario {:?} is already in the sweep at line {first}", key.2, key.1);
                    return Err(err(Some(rc.span), Some(format!("rankings[{ri}]")), msg));
                }
                seen.insert(key, line_of(text, rc.span));
                let spec = Spec::parse(&rc.scenario).map_err(|e| err(None, None, e.message))?;
                let explicit = rc.episodes_per_job.or(sweep_epj);
                let episodes_per_job =
                    explicit.unwrap_or_else(|| default_episodes_per_job(rc.game, &spec, sweep_collect));
                let cell = Cell {
                    game: rc.game,
                    scenario: rc.scenario,
                    policy_set: rc.policy_set,
                    episodes_per_job,
                    explicit_episodes_per_job: explicit.is_some(),
                    collect: sweep_collect,
                    first_job: next_job,
                };
                next_job += cell.jobs(seeds);
                cells.push(cell);
            }
        }
        let name = raw.name.get_ref().clone();
        let mut sweep = Sweep {
            id: String::new(),
            name,
            seeds,
            cells,
            collect_override: None,
            priority,
            share,
            class_given: false,
        };
        sweep.set_id();
        Ok(sweep)
    }

    fn set_id(&mut self) {
        let canonical = serde_json::to_string(&self).expect("a sweep always serialises");
        let digest = Sha256::digest(canonical.as_bytes());
        let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
        self.id = format!("{}-{hex}", slug(&self.name));
    }

    /// Whether any cell collects summaries.
    pub fn collects_summaries(&self) -> bool {
        self.cells.iter().any(|c| c.collect == Collect::Summary)
    }

    /// Total number of jobs.
    pub fn job_count(&self) -> u64 {
        self.cells.last().map_or(0, |c| c.first_job + c.jobs(self.seeds))
    }

    /// Total number of episodes.
    pub fn episode_count(&self) -> u64 {
        self.cells.len() as u64 * self.seeds.count
    }

    /// The games the sweep plays, in first-appearance order.
    pub fn games(&self) -> Vec<GameKind> {
        let mut games = Vec::new();
        for c in &self.cells {
            if !games.contains(&c.game) {
                games.push(c.game);
            }
        }
        games
    }

    /// The cell that job `index` belongs to.
    pub fn cell_of(&self, index: u64) -> Option<&Cell> {
        self.cells.get(self.cell_index_of(index)?)
    }

    /// The position in [`Sweep::cells`] of the cell that job `index` belongs to.
    pub fn cell_index_of(&self, index: u64) -> Option<usize> {
        let i = self.cells.partition_point(|c| c.first_job <= index).checked_sub(1)?;
        let cell = self.cells.get(i)?;
        (index < cell.first_job + cell.jobs(self.seeds)).then_some(i)
    }

    /// Job `index` of the expansion.
    pub fn job(&self, index: u64) -> Option<Job> {
        let cell = self.cell_of(index)?;
        let chunk = index - cell.first_job;
        let offset = chunk * cell.episodes_per_job;
        let count = cell.episodes_per_job.min(self.seeds.count - offset);
        Some(Job {
            protocol_version: PROTOCOL_VERSION,
            sweep: self.id.clone(),
            index,
            game: cell.game.as_str().into(),
            scenario: cell.scenario.clone(),
            policy_set: cell.policy_set.clone(),
            seeds: SeedRange { start: self.seeds.start + offset, count },
            replay: false,
            collect: cell.collect,
        })
    }

    /// Every job in order (generated lazily: a sweep may have millions).
    pub fn jobs(&self) -> impl Iterator<Item = Job> + '_ {
        (0..self.job_count()).filter_map(|i| self.job(i))
    }

    /// The cell with this scenario string and policy set name (and game, when several match).
    pub fn find_cell(&self, game: Option<GameKind>, scenario: &str, policy_set: &str) -> Vec<&Cell> {
        self.cells
            .iter()
            .filter(|c| c.scenario == scenario && c.policy_set.name == policy_set && game.is_none_or(|g| g == c.game))
            .collect()
    }
}

/// Where in the file a job error points: the scenario string or the policy set (and seat).
fn locate(
    e: &simfleet::JobError,
    sfield: &str,
    sspan: std::ops::Range<usize>,
    pfield: &str,
    seats: &Spanned<Vec<Spanned<String>>>,
) -> (std::ops::Range<usize>, String) {
    let field = e.field.as_deref().unwrap_or("");
    if let Some(rest) = field.strip_prefix("policy_set[") {
        if let Some(seat) = rest.split(']').next().and_then(|s| s.parse::<usize>().ok()) {
            if let Some(s) = seats.get_ref().get(seat) {
                return (s.span(), format!("{pfield}[{seat}]"));
            }
        }
        return (seats.span(), pfield.to_string());
    }
    if field == "policy_set" || e.message.contains("seat") && !field.starts_with("scenario") {
        return (seats.span(), pfield.to_string());
    }
    (sspan, sfield.to_string())
}

mod class;
mod sizing;
pub use class::{share_value, MAX_SHARE};
#[cfg(test)]
mod tests;
