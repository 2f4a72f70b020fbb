//! The cells of a sweep file: each `[[cells]]` group and `[[rankings]]` section read into cells
//! in file order, each (game, scenario, policy set) once, each checked with its engine as a
//! worker would before playing it, errors pointing at the scenario or the seat at fault.

use indexmap::IndexMap;
use serde::Deserialize;
use simfleet::protocol::{Collect, Job, PolicySet, SeedRange, PROTOCOL_VERSION};
use simfleet::{GameKind, RunEnv, Spec};
use toml::Spanned;

use super::parse::Source;
use super::rankings::RawRanking;
use super::{default_episodes_per_job, line_of, Cell, SweepError};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCell {
    game: Spanned<String>,
    scenarios: Vec<Spanned<String>>,
    policy_sets: IndexMap<Spanned<String>, Spanned<Vec<Spanned<String>>>>,
    episodes_per_job: Option<Spanned<i64>>,
    collect: Option<Spanned<String>>,
}

/// Rewrites the `wasm:` seats of `raw`'s policy sets to their modules' hashes
/// ([`super::modules`]); an error points at the seat.
pub(super) fn resolve_modules(
    src: Source<'_>,
    raw: &mut [Spanned<RawCell>],
    modules: &mut super::modules::Modules,
) -> Result<(), SweepError> {
    for (ci, cell) in raw.iter_mut().enumerate() {
        for (name, seats) in cell.get_mut().policy_sets.iter_mut() {
            for (i, seat) in seats.get_mut().iter_mut().enumerate() {
                let field = format!("cells[{ci}].policy_sets.{}[{i}]", name.get_ref());
                if let Some(spec) =
                    modules.resolve(seat.get_ref()).map_err(|e| src.err(Some(seat.span()), Some(field), e))?
                {
                    *seat = Spanned::new(seat.span(), spec);
                }
            }
        }
    }
    Ok(())
}

/// The cells of `[[cells]]` groups `raw` then of `[[rankings]]` sections `rankings`, with the
/// sweep's defaults; a file with neither is refused.
pub(super) fn read(
    src: Source<'_>,
    raw: &[Spanned<RawCell>],
    rankings: &[RawRanking],
    sweep_epj: Option<u64>,
    sweep_collect: Collect,
) -> Result<Vec<Cell>, SweepError> {
    if raw.is_empty() && rankings.is_empty() {
        return Err(src.err(None, Some("cells".into()), "the sweep has no [[cells]] (or [[rankings]])".into()));
    }
    let env = super::probe::validation_env();
    let mut cells = Cells { src, sweep_epj, sweep_collect, env, seen: IndexMap::new(), cells: Vec::new() };
    for (ci, cell) in raw.iter().enumerate() {
        cells.entry(ci, cell.get_ref())?;
    }
    for (ri, ranking) in rankings.iter().enumerate() {
        cells.ranking(ri, raw.len() + ri, ranking)?;
    }
    Ok(cells.cells)
}

/// What every cell of the file shares: defaults, the transport that validates `llm` seats, and
/// the (game, scenario, policy set) -> line of the cells so far, each of which may appear once.
struct Cells<'a> {
    src: Source<'a>,
    sweep_epj: Option<u64>,
    sweep_collect: Collect,
    env: RunEnv,
    seen: IndexMap<(GameKind, String, String), usize>,
    cells: Vec<Cell>,
}

impl Cells<'_> {
    /// Notes a cell at `span`; a second cell of the same (game, scenario, policy set) is refused
    /// with `refuse(first's line)`.
    fn unique(
        &mut self,
        key: (GameKind, String, String),
        span: std::ops::Range<usize>,
        field: String,
        refuse: impl FnOnce(usize) -> String,
    ) -> Result<(), SweepError> {
        if let Some(first) = self.seen.get(&key) {
            return Err(self.src.err(Some(span), Some(field), refuse(*first)));
        }
        self.seen.insert(key, line_of(self.src.text, span));
        Ok(())
    }

    /// The cells of `[[cells]]` group `ci`.
    fn entry(&mut self, ci: usize, cell: &RawCell) -> Result<(), SweepError> {
        let src = self.src;
        let game: GameKind = cell.game.get_ref().parse().map_err(|e: simfleet::games::UnknownGame| {
            src.err(Some(cell.game.span()), Some(format!("cells[{ci}].game")), e.to_string())
        })?;
        let cell_epj =
            src.episodes_per_job(&cell.episodes_per_job, format!("cells[{ci}].episodes_per_job"))?.or(self.sweep_epj);
        let collect = src.collect(&cell.collect, format!("cells[{ci}].collect"))?.unwrap_or(self.sweep_collect);
        if cell.scenarios.is_empty() {
            return Err(src.err(Some(cell.game.span()), Some(format!("cells[{ci}].scenarios")), "no scenarios".into()));
        }
        if cell.policy_sets.is_empty() {
            return Err(src.err(
                Some(cell.game.span()),
                Some(format!("cells[{ci}].policy_sets")),
                "no policy sets".into(),
            ));
        }
        for (si, scenario) in cell.scenarios.iter().enumerate() {
            let sfield = format!("cells[{ci}].scenarios[{si}]");
            let spec = Spec::parse(scenario.get_ref())
                .map_err(|e| src.err(Some(scenario.span()), Some(sfield.clone()), e.message))?;
            for (ps_name, seats) in &cell.policy_sets {
                let pfield = format!("cells[{ci}].policy_sets.{}", ps_name.get_ref());
                let policy_set = PolicySet {
                    name: ps_name.get_ref().clone(),
                    seats: seats.get_ref().iter().map(|s| s.get_ref().clone()).collect(),
                };
                let key = (game, scenario.get_ref().clone(), policy_set.name.clone());
                let what = format!("({}, {:?}, {})", game, key.1, key.2);
                self.unique(key, ps_name.span(), pfield.clone(), |first| {
                    format!("{what} is already in the sweep at line {first}: each (game, scenario, policy set) may appear once")
                })?;
                self.validate(game, scenario.get_ref(), &policy_set, (&sfield, scenario.span()), (&pfield, seats))?;
                let episodes_per_job =
                    cell_epj.unwrap_or_else(|| default_episodes_per_job(game, &spec, collect, &policy_set.seats));
                self.cells.push(Cell {
                    game,
                    scenario: scenario.get_ref().clone(),
                    policy_set,
                    episodes_per_job,
                    explicit_episodes_per_job: cell_epj.is_some(),
                    collect,
                    paired: false,
                    entry: ci,
                    group: 0,
                });
            }
        }
        Ok(())
    }

    /// Checks one cell with its game, as a worker would before playing it.
    fn validate(
        &self,
        game: GameKind,
        scenario: &str,
        policy_set: &PolicySet,
        (sfield, sspan): (&str, std::ops::Range<usize>),
        (pfield, seats): (&str, &Spanned<Vec<Spanned<String>>>),
    ) -> Result<(), SweepError> {
        let probe = Job {
            protocol_version: PROTOCOL_VERSION,
            sweep: String::new(),
            index: 0,
            game: game.as_str().into(),
            scenario: scenario.to_string(),
            policy_set: policy_set.clone(),
            seeds: SeedRange { start: 0, count: 1 },
            replay: false,
            collect: Default::default(),
            paired: Vec::new(),
        };
        match simfleet::prepare_job(&probe, &self.env) {
            Ok(_) => Ok(()),
            Err(e) => {
                let (span, field) = locate(&e, sfield, sspan, pfield, seats);
                Err(self.src.err(Some(span), Some(field), e.to_string()))
            }
        }
    }

    /// The cells of `[[rankings]]` section `ri` (entry `entry`).
    fn ranking(&mut self, ri: usize, entry: usize, ranking: &RawRanking) -> Result<(), SweepError> {
        let cells = ranking.expand(ri, &|span, field, message| self.src.err(span, field, message))?;
        for rc in cells {
            let key = (rc.game, rc.scenario.clone(), rc.policy_set.name.clone());
            let what = format!("team {:?} of scenario {:?}", key.2, key.1);
            self.unique(key, rc.span.clone(), format!("rankings[{ri}]"), |first| {
                format!("{what} is already in the sweep at line {first}")
            })?;
            let spec = Spec::parse(&rc.scenario).map_err(|e| self.src.err(None, None, e.message))?;
            let explicit = rc.episodes_per_job.or(self.sweep_epj);
            self.cells.push(Cell {
                game: rc.game,
                episodes_per_job: explicit.unwrap_or_else(|| {
                    default_episodes_per_job(rc.game, &spec, self.sweep_collect, &rc.policy_set.seats)
                }),
                scenario: rc.scenario,
                policy_set: rc.policy_set,
                explicit_episodes_per_job: explicit.is_some(),
                collect: self.sweep_collect,
                paired: false,
                entry,
                group: 0,
            });
        }
        Ok(())
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
