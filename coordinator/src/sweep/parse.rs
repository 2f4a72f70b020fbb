//! Reading a sweep file: TOML into raw structs that keep every value's place in the file, then
//! each piece checked in turn (seeds, sizes, collect modes, class, every cell against the
//! engines), each error naming the file, the line and the field.

use serde::Deserialize;
use simfleet::protocol::{Collect, SeedRange};
use toml::Spanned;

use super::cells::RawCell;
use super::prices::LlmPrice;
use super::rankings::RawRanking;
use super::stop_table::{RawStop, StopConfig};
use super::{class, line_of, Cell, Sweep, SweepError, DEFAULT_MAX_FALLBACK_SHARE};

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
    /// Ranking experiments, expanded after the cells (`super::rankings`).
    #[serde(default)]
    rankings: Vec<RawRanking>,
    /// The questions of a stopping sweep (`super::stop_table`).
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

/// The file being read: its text and name, for errors that point into it.
#[derive(Clone, Copy)]
pub(super) struct Source<'a> {
    pub(super) text: &'a str,
    file: &'a str,
}

impl Source<'_> {
    pub(super) fn err(
        &self,
        span: Option<std::ops::Range<usize>>,
        field: Option<String>,
        message: String,
    ) -> SweepError {
        SweepError { file: self.file.to_string(), line: span.map(|s| line_of(self.text, s)), field, message }
    }

    /// `episodes_per_job` at `field`, when given: at least 1.
    pub(super) fn episodes_per_job(&self, v: &Option<Spanned<i64>>, field: String) -> Result<Option<u64>, SweepError> {
        match v {
            None => Ok(None),
            Some(s) if *s.get_ref() >= 1 => Ok(Some(*s.get_ref() as u64)),
            Some(s) => Err(self.err(Some(s.span()), Some(field), format!("{} must be at least 1", s.get_ref()))),
        }
    }

    /// A collect mode at `field`, when given.
    pub(super) fn collect(&self, v: &Option<Spanned<String>>, field: String) -> Result<Option<Collect>, SweepError> {
        match v {
            None => Ok(None),
            Some(s) => s.get_ref().parse().map(Some).map_err(|e: String| self.err(Some(s.span()), Some(field), e)),
        }
    }

    /// The seeds every cell plays.
    fn seeds(&self, seeds: &Spanned<RawSeeds>) -> Result<SeedRange, SweepError> {
        let span = seeds.span();
        let seeds = seeds.get_ref();
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

impl Sweep {
    /// Parses and validates sweep text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Sweep, SweepError> {
        let src = Source { text, file };
        let mut raw: RawSweep =
            toml::from_str(text).map_err(|e| src.err(e.span(), None, e.message().trim().to_string()))?;
        let mut modules = super::modules::Modules::new(file);
        super::cells::resolve_modules(src, &mut raw.cells, &mut modules)?;
        for (ri, r) in raw.rankings.iter_mut().enumerate() {
            r.resolve_modules(ri, &mut modules, &|span, field, message| src.err(span, field, message))?;
        }
        let seeds = src.seeds(&raw.seeds)?;
        let sweep_epj = src.episodes_per_job(&raw.episodes_per_job, "episodes_per_job".into())?;
        let sweep_collect = src.collect(&raw.collect, "collect".into())?.unwrap_or_default();
        let (priority, share) = class::parse(&raw.priority, &raw.share)
            .map_err(|(span, key, e)| src.err(Some(span), Some(key.into()), e))?;
        let llm = src.llm_limits(&raw)?;
        let cells = super::cells::read(src, &raw.cells, &raw.rankings, sweep_epj, sweep_collect)?;
        let stop = src.stop(raw.stop, &cells)?;
        let (modules, module_rewrites) = modules.into_parts();
        let has_wasm = cells.iter().any(|c| c.policy_set.seats.iter().any(|s| s.starts_with("wasm:")));
        if let Some(v) = &raw.llm_max_dollars {
            unpriced(&cells, &llm.prices)
                .map_err(|message| src.err(Some(v.span()), Some("llm_max_dollars".into()), message))?;
        }
        let mut sweep = Sweep {
            id: String::new(),
            name: raw.name.get_ref().clone(),
            seeds,
            cells,
            stop,
            groups: Vec::new(),
            collect_override: None,
            priority,
            share,
            class_given: false,
            llm_max_fallback_share: llm.max_fallback_share,
            llm_max_calls: llm.max_calls,
            llm_max_dollars: llm.max_dollars,
            llm_prices: llm.prices,
            modules,
            module_rewrites,
            has_wasm,
        };
        sweep.expand();
        Ok(sweep)
    }
}

/// A sweep file's `llm_*` keys, checked.
struct LlmLimits {
    max_fallback_share: f64,
    max_calls: Option<u64>,
    max_dollars: Option<f64>,
    prices: Vec<LlmPrice>,
}

impl Source<'_> {
    /// `llm_max_fallback_share` (a share, default [`DEFAULT_MAX_FALLBACK_SHARE`]),
    /// `llm_max_calls` (at least 1), `[[llm_prices]]` and `llm_max_dollars` (above 0), in that
    /// order.
    fn llm_limits(&self, raw: &RawSweep) -> Result<LlmLimits, SweepError> {
        let max_fallback_share = match &raw.llm_max_fallback_share {
            None => DEFAULT_MAX_FALLBACK_SHARE,
            Some(v) if (0.0..=1.0).contains(v.get_ref()) => *v.get_ref(),
            Some(v) => {
                let message = format!("{} is not a share: 0 to 1 (0.05 = 5% of decisions)", v.get_ref());
                return Err(self.err(Some(v.span()), Some("llm_max_fallback_share".into()), message));
            }
        };
        let max_calls = match &raw.llm_max_calls {
            None => None,
            Some(v) if *v.get_ref() >= 1 => Some(*v.get_ref() as u64),
            Some(v) => {
                let message = format!("{}: must be at least 1", v.get_ref());
                return Err(self.err(Some(v.span()), Some("llm_max_calls".into()), message));
            }
        };
        let prices = self.prices(&raw.llm_prices)?;
        let max_dollars = match &raw.llm_max_dollars {
            None => None,
            Some(v) if v.get_ref().is_finite() && *v.get_ref() > 0.0 => Some(*v.get_ref()),
            Some(v) => {
                let message = format!("{}: must be a number of dollars above 0", v.get_ref());
                return Err(self.err(Some(v.span()), Some("llm_max_dollars".into()), message));
            }
        };
        Ok(LlmLimits { max_fallback_share, max_calls, max_dollars, prices })
    }

    /// The `[stop]` section, checked against the sweep's cells.
    fn stop(&self, raw: Option<Spanned<RawStop>>, cells: &[Cell]) -> Result<Option<StopConfig>, SweepError> {
        let Some(stop) = raw else {
            return Ok(None);
        };
        let span = stop.span();
        let config = stop.into_inner().check(span).map_err(|e| self.err(e.span, Some(e.field), e.message))?;
        super::stop_table::check(&config, cells)
            .map_err(|(span, field, message)| self.err(span, Some(field), message))?;
        Ok(Some(config))
    }

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
            let model = super::prices::spec_param(seat, "model").unwrap_or("");
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
