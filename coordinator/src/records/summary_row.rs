//! A row of a summary file: one sweep cell, what `--out` gets when a sweep collects summaries
//! (docs/records.md, "Summary files"). Each row holds the cell's identity, its headline figures
//! as flat columns (for a person or a dataframe) and the whole [`CellAggregate`] (for the
//! readers: `summary`, `report`, `rank`), nested in `.jsonl` and `.msgpack`, compact JSON text in
//! `.csv` and `.parquet`. The flat columns are derived from the aggregate, so reading a file
//! rebuilds every row from its identity and aggregate alone. Each format writes and reads the
//! rows itself ([`super::format::Format::write_cells`]).

use serde::{Deserialize, Serialize};
use simfleet::aggregate::{CellAggregate, Moments};
use simfleet::GameKind;

/// One cell of a summary file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellRow {
    /// The sweep id.
    pub sweep: String,
    /// The game id.
    pub game: String,
    /// `<simfleet crate semver>+<rules version>`.
    pub engine_version: String,
    /// The scenario string as written in the sweep.
    pub scenario: String,
    /// The policy set name.
    pub policy_set: String,
    /// Jobs merged into the row.
    pub jobs: u64,
    /// Episodes.
    pub episodes: u64,
    /// Episodes cut by a length limit.
    pub truncated: u64,
    /// Mean team reward.
    pub team_reward_mean: f64,
    /// Half-width of its 95% confidence interval; absent below two episodes.
    pub team_reward_ci95: Option<f64>,
    /// The worst team reward.
    pub team_reward_min: f64,
    /// The seed of the worst episode (the smallest on a tie).
    pub team_reward_min_seed: u64,
    /// The best team reward.
    pub team_reward_max: f64,
    /// The seed of the best episode (the smallest on a tie).
    pub team_reward_max_seed: u64,
    /// Mean episode length.
    pub length_mean: f64,
    /// Share of the game's win outcome; absent for a game without one.
    pub win_share: Option<f64>,
    /// Stopping sweeps: the question `decision` answers (`baseline`, else `best`, else
    /// `precision`: `stop::decisions`); absent from other sweeps' files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// Its decision (`precise`, `better`, …, `capped`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// The anytime-valid interval the decision rests on: of the stop metric's mean
    /// (`precision`), or of the difference with the baseline or the closest rival.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_low: Option<f64>,
    /// Its upper bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_high: Option<f64>,
    /// Every answer of the cell, `question=decision` joined by `;`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decisions: Option<String>,
    /// Everything else.
    pub aggregate: CellAggregate,
    /// The per-seed differences between this cell and the other policy sets its summary jobs
    /// played on the same seeds (paired summary jobs): one per later policy set of its group,
    /// what `compare` and the report's forest plots read. Empty for a records cell, or a cell
    /// whose jobs played no other set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paired: Vec<CellDifference>,
}

/// This cell's team reward (and win, 0/1) minus that of policy set `against`, seed by seed, over
/// the seeds both played: the moments a paired comparison needs, merged over the cell's jobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellDifference {
    /// The other policy set (same game and scenario).
    pub against: String,
    /// Team reward of this cell minus `against`'s, per seed.
    pub team_reward: Moments,
    /// Win (1) or not (0) of this cell minus `against`'s, per seed; absent for a game without a
    /// win outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub win: Option<Moments>,
}

impl CellDifference {
    /// Adds the differences of more seeds (another job's).
    pub fn merge(&mut self, other: &CellDifference) {
        self.team_reward.merge(&other.team_reward);
        match (&mut self.win, &other.win) {
            (Some(w), Some(o)) => w.merge(o),
            (None, Some(o)) => self.win = Some(o.clone()),
            _ => {}
        }
    }
}

/// Merges `from` into `into`, difference by difference, matched by `against` (a new one is added
/// at the end).
pub fn merge_differences(into: &mut Vec<CellDifference>, from: &[CellDifference]) {
    for d in from {
        match into.iter_mut().find(|x| x.against == d.against) {
            Some(x) => x.merge(d),
            None => into.push(d.clone()),
        }
    }
}

/// The flat columns, in file order, and whether each is text, an integer, a float or an
/// optional float (`aggregate` and `paired`, the last two, are text: compact JSON, `paired`
/// empty when the cell has no paired differences).
pub(crate) const COLUMNS: [(&str, Kind); 18] = [
    ("sweep", Kind::Text),
    ("game", Kind::Text),
    ("engine_version", Kind::Text),
    ("scenario", Kind::Text),
    ("policy_set", Kind::Text),
    ("jobs", Kind::Int),
    ("episodes", Kind::Int),
    ("truncated", Kind::Int),
    ("team_reward_mean", Kind::Float),
    ("team_reward_ci95", Kind::OptFloat),
    ("team_reward_min", Kind::Float),
    ("team_reward_min_seed", Kind::Int),
    ("team_reward_max", Kind::Float),
    ("team_reward_max_seed", Kind::Int),
    ("length_mean", Kind::Float),
    ("win_share", Kind::OptFloat),
    ("aggregate", Kind::Text),
    ("paired", Kind::Text),
];

/// The decision columns of a stopping sweep, in file order (`summary_decisions.rs`).
const STOP_COLUMNS: [(&str, Kind); 5] = [
    ("question", Kind::OptText),
    ("decision", Kind::OptText),
    ("interval_low", Kind::OptFloat),
    ("interval_high", Kind::OptFloat),
    ("decisions", Kind::OptText),
];

/// Where they go: after `win_share`.
const STOP_AT: usize = 16;

/// The columns of a file of `rows`: [`COLUMNS`], with the decision columns when a row has a
/// decision (so a file of a sweep without `[stop]` is as it always was).
pub(crate) fn columns(rows: &[CellRow]) -> Vec<(&'static str, Kind)> {
    let mut columns = COLUMNS.to_vec();
    if rows.iter().any(CellRow::has_decision) {
        columns.splice(STOP_AT..STOP_AT, STOP_COLUMNS);
    }
    columns
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Text,
    OptText,
    Int,
    Float,
    OptFloat,
}

/// One flat value.
pub(crate) enum Cell {
    Text(Option<String>),
    Int(u64),
    Float(Option<f64>),
}

impl CellRow {
    /// The row of a cell: its identity, the jobs merged, and their aggregate.
    pub fn new(
        sweep: &str,
        game: &str,
        engine_version: &str,
        scenario: &str,
        policy_set: &str,
        jobs: u64,
        aggregate: CellAggregate,
    ) -> CellRow {
        let t = &aggregate.team_reward;
        let ci = t.ci95();
        let win = game.parse::<GameKind>().ok().and_then(|g| g.info().win_outcome);
        let share = |o: &str| aggregate.outcome(o) as f64 / aggregate.episodes.max(1) as f64;
        CellRow {
            sweep: sweep.into(),
            game: game.into(),
            engine_version: engine_version.into(),
            scenario: scenario.into(),
            policy_set: policy_set.into(),
            jobs,
            episodes: aggregate.episodes,
            truncated: aggregate.truncated,
            team_reward_mean: t.mean,
            team_reward_ci95: (!ci.is_nan()).then_some(ci),
            team_reward_min: t.min,
            team_reward_min_seed: t.min_seed,
            team_reward_max: t.max,
            team_reward_max_seed: t.max_seed,
            length_mean: aggregate.length.mean,
            win_share: win.map(share),
            question: None,
            decision: None,
            interval_low: None,
            interval_high: None,
            decisions: None,
            aggregate,
            paired: Vec::new(),
        }
    }

    /// The row with its paired differences.
    pub fn with_paired(mut self, paired: Vec<CellDifference>) -> CellRow {
        self.paired = paired;
        self
    }

    pub(crate) fn values(&self, with_stop: bool) -> Vec<Cell> {
        let aggregate = serde_json::to_string(&self.aggregate).expect("an aggregate always serialises");
        let paired = match self.paired.is_empty() {
            true => String::new(),
            false => serde_json::to_string(&self.paired).expect("differences always serialise"),
        };
        let mut values = vec![
            Cell::Text(Some(self.sweep.clone())),
            Cell::Text(Some(self.game.clone())),
            Cell::Text(Some(self.engine_version.clone())),
            Cell::Text(Some(self.scenario.clone())),
            Cell::Text(Some(self.policy_set.clone())),
            Cell::Int(self.jobs),
            Cell::Int(self.episodes),
            Cell::Int(self.truncated),
            Cell::Float(Some(self.team_reward_mean)),
            Cell::Float(self.team_reward_ci95),
            Cell::Float(Some(self.team_reward_min)),
            Cell::Int(self.team_reward_min_seed),
            Cell::Float(Some(self.team_reward_max)),
            Cell::Int(self.team_reward_max_seed),
            Cell::Float(Some(self.length_mean)),
            Cell::Float(self.win_share),
            Cell::Text(Some(aggregate)),
            Cell::Text(Some(paired)),
        ];
        if with_stop {
            values.splice(STOP_AT..STOP_AT, self.stop_values());
        }
        values
    }

    /// The row again from its identity columns, `jobs` and `aggregate` (JSON text).
    pub(crate) fn rebuild(get: impl Fn(&str) -> Option<String>) -> Result<CellRow, String> {
        let need = |k: &str| get(k).ok_or_else(|| format!("no column {k}"));
        let jobs = need("jobs")?.parse::<u64>().map_err(|e| format!("jobs: {e}"))?;
        let aggregate: CellAggregate =
            serde_json::from_str(&need("aggregate")?).map_err(|e| format!("aggregate: {e}"))?;
        // Files written before paired summaries have no `paired` column.
        let paired = match get("paired").filter(|p| !p.is_empty()) {
            Some(p) => serde_json::from_str(&p).map_err(|e| format!("paired: {e}"))?,
            None => Vec::new(),
        };
        let row = CellRow::new(
            &need("sweep")?,
            &need("game")?,
            &need("engine_version")?,
            &need("scenario")?,
            &need("policy_set")?,
            jobs,
            aggregate,
        )
        .with_paired(paired);
        row.with_decision_columns(&get)
    }
}
