//! The `[stop]` table of a sweep file: the questions a sweep asks, read with the place of every
//! value so that an error names the file, the line and the field (`stop.half_width`, …), and
//! checked against the cells: what they must allow (a win outcome for `metric = "win"`, the
//! baseline in every (game, scenario), one collect mode per (game, scenario), no `llm` seats).
//! The stopping groups are the cells of each (game, scenario); the plan is `crate::stop`'s.

use std::ops::Range;

use serde::{Deserialize, Serialize};
use simfleet::policy::is_llm_spec;
use toml::Spanned;

use super::{Cell, Sweep};

/// The quantity a stopping sweep asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// The team reward of an episode.
    TeamReward,
    /// Whether the episode ended with the game's win outcome (1) or not (0).
    Win,
}

impl Metric {
    /// The name in the sweep file.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::TeamReward => "team_reward",
            Metric::Win => "win",
        }
    }
}

/// A parsed `[stop]` table. Part of the sweep id: it changes which seeds are played.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StopConfig {
    /// Simultaneous confidence over every cell, comparison and checkpoint of the sweep.
    pub confidence: f64,
    /// What is measured.
    pub metric: Metric,
    /// Question 1: each cell's mean to within ± this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub half_width: Option<f64>,
    /// Question 2: each policy set against the set of this name, per (game, scenario).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// A difference smaller than this in size counts as no difference ("equivalent"; for
    /// `best`, sets this close share the place).
    pub margin: f64,
    /// Question 3: each (game, scenario)'s best policy set.
    pub best: bool,
    /// Where the values were, for errors found later (against the cells).
    #[serde(skip)]
    pub spans: StopSpans,
}

/// Places in the file of the `[stop]` values that the cells may contradict.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StopSpans {
    /// The `[stop]` table.
    pub table: Option<Range<usize>>,
    /// The `metric` value, or the table's first value when absent.
    pub metric: Option<Range<usize>>,
    /// The `baseline` value.
    pub baseline: Option<Range<usize>>,
}

/// A `[stop]` value at fault: where, which field, and what to change.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// Its place in the file.
    pub span: Option<Range<usize>>,
    /// `stop.<key>`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

/// A number as TOML writes it (`1` or `1.0`).
#[derive(Deserialize, Clone, Copy)]
#[serde(untagged)]
enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    fn get(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }
}

/// The table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStop {
    confidence: Option<Spanned<Number>>,
    metric: Option<Spanned<String>>,
    half_width: Option<Spanned<Number>>,
    baseline: Option<Spanned<String>>,
    margin: Option<Spanned<Number>>,
    best: Option<Spanned<bool>>,
}

fn err(span: Range<usize>, key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError { span: Some(span), field: format!("stop.{key}"), message: message.into() }
}

/// A number at `key` that must be finite and satisfy `ok` (else `need` says what it must be).
fn number(
    v: &Option<Spanned<Number>>,
    key: &str,
    ok: impl Fn(f64) -> bool,
    need: &str,
) -> Result<Option<f64>, ConfigError> {
    let Some(v) = v else { return Ok(None) };
    let x = v.get_ref().get();
    if !x.is_finite() || !ok(x) {
        return Err(err(v.span(), key, format!("{x} must be {need}")));
    }
    Ok(Some(x))
}

impl RawStop {
    /// Checks every value; `table` is the place of the `[stop]` table itself.
    pub fn check(self, table: Range<usize>) -> Result<StopConfig, ConfigError> {
        let confidence = number(&self.confidence, "confidence", |c| c > 0.0 && c < 1.0, "between 0 and 1 (e.g. 0.95)")?
            .unwrap_or(0.95);
        let metric = match &self.metric {
            None => Metric::TeamReward,
            Some(m) => match m.get_ref().as_str() {
                "team_reward" => Metric::TeamReward,
                "win" => Metric::Win,
                other => {
                    return Err(err(
                        m.span(),
                        "metric",
                        format!("unknown metric {other:?}: use \"team_reward\" or \"win\""),
                    ))
                }
            },
        };
        let half_width = number(&self.half_width, "half_width", |h| h > 0.0, "greater than 0")?;
        let margin = number(&self.margin, "margin", |m| m >= 0.0, "0 or more")?;
        let best = self.best.as_ref().is_some_and(|b| *b.get_ref());
        if let Some(b) = &self.baseline {
            if b.get_ref().is_empty() {
                return Err(err(b.span(), "baseline", "is empty: name one of the sweep's policy sets"));
            }
        }
        if let (Some(m), None, false) = (&self.margin, &self.baseline, best) {
            return Err(err(m.span(), "margin", "has no question to serve: it applies to `baseline` and `best`"));
        }
        if half_width.is_none() && self.baseline.is_none() && !best {
            return Err(ConfigError {
                span: Some(table),
                field: "stop".into(),
                message: "asks no question: give half_width, baseline or best = true".into(),
            });
        }
        Ok(StopConfig {
            confidence,
            metric,
            half_width,
            baseline: self.baseline.as_ref().map(|b| b.get_ref().clone()),
            margin: margin.unwrap_or(0.0),
            best,
            spans: StopSpans {
                table: Some(table),
                metric: self.metric.as_ref().map(Spanned::span),
                baseline: self.baseline.as_ref().map(Spanned::span),
            },
        })
    }
}

/// The cells of each (game, scenario), in first-appearance order: the stopping groups.
fn groups(cells: &[Cell]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        match out.iter_mut().find(|g| cells[g[0]].game == c.game && cells[g[0]].scenario == c.scenario) {
            Some(g) => g.push(i),
            None => out.push(vec![i]),
        }
    }
    out
}

/// Checks `config` against the parsed cells: `Err((span, field, message))` at the value the
/// cells contradict.
pub(super) fn check(config: &StopConfig, cells: &[Cell]) -> Result<(), (Option<Range<usize>>, String, String)> {
    let spans = &config.spans;
    if config.metric == Metric::Win {
        if let Some(c) = cells.iter().find(|c| c.game.info().win_outcome.is_none()) {
            let message =
                format!("{} has no win outcome: use metric = \"team_reward\" for a sweep that plays it", c.game);
            return Err((spans.metric.clone(), "stop.metric".into(), message));
        }
    }
    if let Some(c) = cells.iter().find(|c| c.policy_set.seats.iter().any(|s| is_llm_spec(s))) {
        let message = format!(
            "policy set {} has llm seats: a stopping sweep plays scripted policies only (remove [stop] to play it)",
            c.policy_set.name
        );
        return Err((spans.table.clone(), "stop".into(), message));
    }
    for g in groups(cells) {
        let first = &cells[g[0]];
        let what = format!("({}, {:?})", first.game, first.scenario);
        if g.iter().any(|&i| cells[i].collect != first.collect) {
            let message = format!(
                "{what} collects records in some cells and summaries in others: its sets play paired, give them one collect mode"
            );
            return Err((spans.table.clone(), "stop".into(), message));
        }
        if let Some(b) = &config.baseline {
            if !g.iter().any(|&i| &cells[i].policy_set.name == b) {
                let message =
                    format!("no policy set {b:?} plays {what}: the baseline must play every (game, scenario)");
                return Err((spans.baseline.clone(), "stop.baseline".into(), message));
            }
        }
    }
    Ok(())
}

impl Sweep {
    /// The cells of each (game, scenario), in first-appearance order: a stopping sweep's
    /// groups (`crate::stop`'s plan).
    pub fn stop_groups(&self) -> Vec<Vec<usize>> {
        groups(&self.cells)
    }
}
