//! Reading a sweep file: TOML into raw structs that keep every value's place in the file, then
//! each piece checked in turn (seeds, sizes, collect modes, class, every cell against the
//! engines), each error naming the file, the line and the field.

use indexmap::IndexMap;
use serde::Deserialize;
use simfleet::protocol::{Collect, Job, PolicySet, SeedRange, PROTOCOL_VERSION};
use simfleet::{GameKind, RunEnv, Spec};
use toml::Spanned;

use super::{class, default_episodes_per_job, line_of, Cell, Sweep, SweepError, DEFAULT_MAX_FALLBACK_SHARE};
use crate::llm_spend::LlmPrice;
use crate::rank::section::RawRanking;
use crate::stop::config::RawStop;

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
    /// The share of `llm` decisions that may fall back before the sweep counts as failed.
    llm_max_fallback_share: Option<Spanned<f64>>,
    /// The most model calls the sweep's jobs may make (`run`: no model job starts past it).
    llm_max_calls: Option<Spanned<i64>>,
    /// The most dollars the sweep's model calls may cost, by `llm_prices`.
    llm_max_dollars: Option<Spanned<f64>>,
    /// Dollars per 1000 tokens of each model.
    #[serde(default)]
    llm_prices: Vec<Spanned<RawPrice>>,
    #[serde(default)]
    cells: Vec<Spanned<RawCell>>,
    /// Ranking experiments, expanded after the cells (`crate::rank::section`).
    #[serde(default)]
    rankings: Vec<RawRanking>,
    /// The questions of a stopping sweep (`crate::stop::config`).
    stop: Option<Spanned<RawStop>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrice {
    model: Spanned<String>,
    prompt_per_1k: Spanned<f64>,
    completion_per_1k: Spanned<f64>,
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

/// The file being read: its text and name, for errors that point into it.
#[derive(Clone, Copy)]
struct Source<'a> {
    text: &'a str,
    file: &'a str,
}

impl Source<'_> {
    fn err(&self, span: Option<std::ops::Range<usize>>, field: Option<String>, message: String) -> SweepError {
        SweepError { file: self.file.to_string(), line: span.map(|s| line_of(self.text, s)), field, message }
    }

    /// `episodes_per_job` at `field`, when given: at least 1.
    fn episodes_per_job(&self, v: &Option<Spanned<i64>>, field: String) -> Result<Option<u64>, SweepError> {
        match v {
            None => Ok(None),
            Some(s) if *s.get_ref() >= 1 => Ok(Some(*s.get_ref() as u64)),
            Some(s) => Err(self.err(Some(s.span()), Some(field), format!("{} must be at least 1", s.get_ref()))),
        }
    }

    /// A collect mode at `field`, when given.
    fn collect(&self, v: &Option<Spanned<String>>, field: String) -> Result<Option<Collect>, SweepError> {
        match v {
            None => Ok(None),
            Some(s) => s.get_ref().parse().map(Some).map_err(|e: String| self.err(Some(s.span()), Some(field), e)),
        }
    }

    /// The seeds every cell plays.
    fn seeds(&self, seeds: Spanned<RawSeeds>) -> Result<SeedRange, SweepError> {
        let span = seeds.span();
        let seeds = seeds.into_inner();
        let start = *seeds.start.get_ref();
        if start < 0 {
            let msg = format!("{start} is negative: seeds start in 0..2^63");
            return Err(self.err(Some(seeds.start.span()), Some("seeds.start".into()), msg));
        }
        let count = *seeds.count.get_ref();
        if count < 1 {
            return Err(self.err(
                Some(seeds.count.span()),
                Some("seeds.count".into()),
                format!("{count} must be at least 1"),
            ));
        }
        if start.checked_add(count).is_none() {
            return Err(self.err(Some(span), Some("seeds".into()), "start + count overflows 2^63".into()));
        }
        Ok(SeedRange { start: start as u64, count: count as u64 })
    }
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

impl Sweep {
    /// Parses and validates sweep text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Sweep, SweepError> {
        let src = Source { text, file };
        let raw: RawSweep =
            toml::from_str(text).map_err(|e| src.err(e.span(), None, e.message().trim().to_string()))?;
        let seeds = src.seeds(raw.seeds)?;
        let sweep_epj = src.episodes_per_job(&raw.episodes_per_job, "episodes_per_job".into())?;
        let sweep_collect = src.collect(&raw.collect, "collect".into())?.unwrap_or_default();
        let (priority, share) = class::parse(&raw.priority, &raw.share)
            .map_err(|(span, key, e)| src.err(Some(span), Some(key.into()), e))?;
        let llm_max_fallback_share = match &raw.llm_max_fallback_share {
            None => DEFAULT_MAX_FALLBACK_SHARE,
            Some(v) if (0.0..=1.0).contains(v.get_ref()) => *v.get_ref(),
            Some(v) => {
                let message = format!("{} is not a share: 0 to 1 (0.05 = 5% of decisions)", v.get_ref());
                return Err(src.err(Some(v.span()), Some("llm_max_fallback_share".into()), message));
            }
        };
        let llm_max_calls = match &raw.llm_max_calls {
            None => None,
            Some(v) if *v.get_ref() >= 1 => Some(*v.get_ref() as u64),
            Some(v) => {
                let message = format!("{}: must be at least 1", v.get_ref());
                return Err(src.err(Some(v.span()), Some("llm_max_calls".into()), message));
            }
        };
        let llm_prices = src.prices(&raw.llm_prices)?;
        let llm_max_dollars = match &raw.llm_max_dollars {
            None => None,
            Some(v) if v.get_ref().is_finite() && *v.get_ref() > 0.0 => Some(*v.get_ref()),
            Some(v) => {
                let message = format!("{}: must be a number of dollars above 0", v.get_ref());
                return Err(src.err(Some(v.span()), Some("llm_max_dollars".into()), message));
            }
        };
        if raw.cells.is_empty() && raw.rankings.is_empty() {
            return Err(src.err(None, Some("cells".into()), "the sweep has no [[cells]] (or [[rankings]])".into()));
        }
        let env = RunEnv { chat: crate::llm::llm_transport(), ..RunEnv::default() };
        let mut cells = Cells { src, sweep_epj, sweep_collect, env, seen: IndexMap::new(), cells: Vec::new() };
        for (ci, cell) in raw.cells.iter().enumerate() {
            cells.entry(ci, cell.get_ref())?;
        }
        for (ri, ranking) in raw.rankings.iter().enumerate() {
            cells.ranking(ri, raw.cells.len() + ri, ranking)?;
        }
        let stop = match raw.stop {
            None => None,
            Some(stop) => {
                let span = stop.span();
                let config = stop.into_inner().check(span).map_err(|e| src.err(e.span, Some(e.field), e.message))?;
                super::stopping::check(&config, &cells.cells)
                    .map_err(|(span, field, message)| src.err(span, Some(field), message))?;
                Some(config)
            }
        };
        if let Some(v) = &raw.llm_max_dollars {
            unpriced(&cells.cells, &llm_prices)
                .map_err(|message| src.err(Some(v.span()), Some("llm_max_dollars".into()), message))?;
        }
        let mut sweep = Sweep {
            id: String::new(),
            name: raw.name.get_ref().clone(),
            seeds,
            cells: cells.cells,
            stop,
            groups: Vec::new(),
            collect_override: None,
            priority,
            share,
            class_given: false,
            llm_max_fallback_share,
            llm_max_calls,
            llm_max_dollars,
            llm_prices,
        };
        sweep.expand();
        Ok(sweep)
    }
}

impl Source<'_> {
    /// `[[llm_prices]]`: each entry a model (once) and two prices of at least 0.
    fn prices(&self, raw: &[Spanned<RawPrice>]) -> Result<Vec<LlmPrice>, SweepError> {
        let mut prices: Vec<LlmPrice> = Vec::new();
        for (i, p) in raw.iter().enumerate() {
            let p = p.get_ref();
            let model = p.model.get_ref().trim();
            if model.is_empty() {
                return Err(self.err(Some(p.model.span()), Some(format!("llm_prices[{i}].model")), "is empty".into()));
            }
            if prices.iter().any(|q| q.model == model) {
                let message = format!("model {model:?} is priced twice");
                return Err(self.err(Some(p.model.span()), Some(format!("llm_prices[{i}].model")), message));
            }
            for (key, v) in [("prompt_per_1k", &p.prompt_per_1k), ("completion_per_1k", &p.completion_per_1k)] {
                if !(v.get_ref().is_finite() && *v.get_ref() >= 0.0) {
                    let message = format!("{}: must be dollars per 1000 tokens, 0 or more", v.get_ref());
                    return Err(self.err(Some(v.span()), Some(format!("llm_prices[{i}].{key}")), message));
                }
            }
            prices.push(LlmPrice {
                model: model.to_string(),
                prompt_per_1k: *p.prompt_per_1k.get_ref(),
                completion_per_1k: *p.completion_per_1k.get_ref(),
            });
        }
        Ok(prices)
    }
}

/// With `llm_max_dollars`, every model of an `llm` seat needs a price: an unpriced model's calls
/// would cost nothing and never reach the limit.
fn unpriced(cells: &[Cell], prices: &[LlmPrice]) -> Result<(), String> {
    for c in cells {
        for seat in c.policy_set.seats.iter().filter(|s| simfleet::policy::is_llm_spec(s)) {
            let model = crate::llm_spend::spec_param(seat, "model").unwrap_or("");
            if !prices.iter().any(|p| p.model == model) {
                return Err(format!(
                    "needs a price for every model, and [[llm_prices]] has none for {model:?} (policy set {} of {} {}): \
                     add [[llm_prices]] model = {model:?}, prompt_per_1k = …, completion_per_1k = …",
                    c.policy_set.name, c.game, c.scenario
                ));
            }
        }
    }
    Ok(())
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
