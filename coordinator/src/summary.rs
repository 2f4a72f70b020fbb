//! The summary table: per (game, scenario, policy set), the number of episodes, the mean team
//! reward with its 95% confidence interval, the outcome shares, the mean length and the seeds of
//! the best and worst episodes; for cells with `llm` seats, the mean tokens per episode (prompt +
//! completion, every seat).
//!
//! It accumulates row by row (Welford's algorithm, the library's [`Moments`]), or a cell
//! aggregate at a time for summary results, so summarising a file of any size takes flat memory,
//! and it refuses to mix engine versions of one game: results of different rules are not
//! comparable.

use indexmap::IndexMap;
use simfleet::aggregate::{llm_tokens, CellAggregate, Moments};
use simfleet::stats::Stats;
use simfleet::GameKind;

use crate::cell_order::{self, Place};
use crate::table::{self, Align};

mod accumulator;
mod outside;
pub use accumulator::SummaryScan;
pub use outside::{OutsideCounts, SeatCounts};

/// Running figures of one cell.
#[derive(Clone, Debug, Default)]
pub struct CellStats {
    /// Episodes.
    pub episodes: u64,
    /// Team reward: mean, squared deviations, the best and worst episodes' seeds.
    pub team_reward: Moments,
    length_sum: f64,
    /// Episodes per outcome label, in first-seen order.
    pub outcomes: IndexMap<String, u64>,
    /// Episodes with `llm` seats, and their tokens.
    llm_episodes: u64,
    tokens: u64,
    /// The outside seats' illegal answers and faults (records with an `outside` stat).
    pub outside: OutsideCounts,
    /// Where the cell goes in the table: the sweep's order.
    pub place: Place,
}

impl CellStats {
    fn add(&mut self, seed: u64, team_reward: f64, length: u32, outcome: &str) {
        self.episodes += 1;
        self.team_reward.add(team_reward, seed);
        self.length_sum += f64::from(length);
        if let Some(c) = self.outcomes.get_mut(outcome) {
            *c += 1;
        } else {
            self.outcomes.insert(outcome.to_string(), 1);
        }
    }

    /// [`CellStats::add`] of an outcome counted before, by its index in `outcomes`.
    fn add_known(&mut self, seed: u64, team_reward: f64, length: u32, outcome: usize) {
        self.episodes += 1;
        self.team_reward.add(team_reward, seed);
        self.length_sum += f64::from(length);
        self.outcomes[outcome] += 1;
    }

    /// Adds the figures of `other` (Chan et al.'s pairwise update of the mean and M2).
    fn merge(&mut self, other: &CellStats) {
        if other.episodes == 0 {
            return;
        }
        self.team_reward.merge(&other.team_reward);
        self.episodes += other.episodes;
        self.length_sum += other.length_sum;
        self.llm_episodes += other.llm_episodes;
        self.tokens += other.tokens;
        self.outside.merge(&other.outside);
        self.place.earliest(other.place);
        for (o, c) in &other.outcomes {
            *self.outcomes.entry(o.clone()).or_default() += c;
        }
    }

    /// Adds a cell aggregate (a summary result's, or a summary file's row).
    fn add_aggregate(&mut self, a: &CellAggregate) {
        self.team_reward.merge(&a.team_reward);
        self.episodes += a.episodes;
        self.length_sum += a.length.sum();
        self.llm_episodes += a.llm_episodes;
        self.tokens += a.llm_tokens;
        for o in &a.outcomes {
            *self.outcomes.entry(o.outcome.clone()).or_default() += o.episodes;
        }
    }

    /// Mean team reward.
    pub fn mean(&self) -> f64 {
        self.team_reward.mean
    }

    /// Half-width of the 95% confidence interval of the mean (normal approximation).
    pub fn ci95(&self) -> f64 {
        self.team_reward.ci95()
    }

    /// Mean episode length.
    pub fn mean_length(&self) -> f64 {
        self.length_sum / self.episodes.max(1) as f64
    }

    /// Mean prompt + completion tokens per episode with `llm` seats (`None` without any).
    pub fn tokens_per_episode(&self) -> Option<f64> {
        (self.llm_episodes > 0).then(|| self.tokens as f64 / self.llm_episodes as f64)
    }

    /// Share of episodes with `outcome`.
    pub fn share(&self, outcome: &str) -> f64 {
        self.outcomes.get(outcome).copied().unwrap_or(0) as f64 / self.episodes.max(1) as f64
    }
}

/// Results of mixed engine versions of one game.
#[derive(Debug, thiserror::Error)]
#[error("the results mix engine versions of {game}: {first} and {other}; summarise each version separately")]
pub struct MixedVersions {
    /// Game id.
    pub game: String,
    /// The first version seen.
    pub first: String,
    /// Another version.
    pub other: String,
}

/// The same from a record's stats. Typed stats build their map for this (once, cached), which
/// only the records of jobs with `llm` seats and the first record of other jobs pay.
fn record_tokens(stats: &Stats) -> Option<u64> {
    llm_tokens(stats.as_map().get("llm"))
}

/// A borrowed (game, scenario, policy set): hashes like the owned tuple.
#[derive(Hash)]
struct KeyRef<'a>(&'a str, &'a str, &'a str);

impl indexmap::Equivalent<(String, String, String)> for KeyRef<'_> {
    fn equivalent(&self, key: &(String, String, String)) -> bool {
        self.0 == key.0 && self.1 == key.1 && self.2 == key.2
    }
}

/// `x` with two decimals, after rounding it to 12 significant digits: a mean merged from job
/// aggregates differs from the row-by-row mean in the last bits, and without this a value on a
/// rounding edge (45.175) would print differently (45.17, 45.18) from records and summaries.
fn two_decimals(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x:.2}");
    }
    let scale = 10f64.powi(11 - x.abs().log10().floor() as i32);
    let rounded = (x * scale).round() / scale;
    format!("{:.2}", if rounded.is_finite() { rounded } else { x })
}

/// The summary being accumulated.
#[derive(Debug, Default)]
pub struct Summary {
    /// (game, scenario, policy set) -> figures, in first-seen order.
    pub cells: IndexMap<(String, String, String), CellStats>,
    versions: IndexMap<String, String>,
}

impl Summary {
    /// Whether some cell has episodes with `llm` seats.
    pub fn has_llm_cells(&self) -> bool {
        self.cells.values().any(|c| c.llm_episodes > 0)
    }

    /// The columns [`Summary::add_row`] reads (`stats.llm` for the token counts, `stats.outside`
    /// for the outside seats' faults); a reader may leave the others out.
    pub const COLUMNS: &'static [&'static str] = &[
        "game",
        "engine_version",
        "scenario",
        "policy_set",
        "seed",
        "team_reward",
        "length",
        "outcome",
        "stats.llm",
        "stats.outside",
    ];

    fn check_version(&mut self, game: &str, engine_version: &str) -> Result<(), MixedVersions> {
        match self.versions.get(game) {
            Some(v) if v != engine_version => {
                Err(MixedVersions { game: game.into(), first: v.clone(), other: engine_version.into() })
            }
            Some(_) => Ok(()),
            None => {
                self.versions.insert(game.into(), engine_version.into());
                Ok(())
            }
        }
    }

    /// The figures of a cell, created on first use. Looked up by borrowed key, so the
    /// per-episode path does not allocate.
    fn cell(&mut self, game: &str, scenario: &str, policy_set: &str) -> &mut CellStats {
        let key = KeyRef(game, scenario, policy_set);
        if !self.cells.contains_key(&key) {
            self.cells.insert((game.into(), scenario.into(), policy_set.into()), CellStats::default());
        }
        self.cells.get_mut(&key).expect("just inserted")
    }

    /// Adds one episode.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        game: &str,
        engine_version: &str,
        scenario: &str,
        policy_set: &str,
        seed: u64,
        team_reward: f64,
        length: u32,
        outcome: &str,
    ) -> Result<(), MixedVersions> {
        self.check_version(game, engine_version)?;
        self.cell(game, scenario, policy_set).add(seed, team_reward, length, outcome);
        Ok(())
    }

    /// Adds the aggregate of some episodes of a cell (a summary result's, a summary file's row).
    pub fn add_aggregate(
        &mut self,
        game: &str,
        engine_version: &str,
        scenario: &str,
        policy_set: &str,
        aggregate: &CellAggregate,
    ) -> Result<(), MixedVersions> {
        self.check_version(game, engine_version)?;
        self.cell(game, scenario, policy_set).add_aggregate(aggregate);
        Ok(())
    }

    /// Counts an episode's `llm` tokens in its cell (added already).
    fn add_tokens(&mut self, game: &str, scenario: &str, policy_set: &str, tokens: Option<u64>) {
        if let (Some(t), Some(c)) = (tokens, self.cells.get_mut(&KeyRef(game, scenario, policy_set))) {
            c.llm_episodes += 1;
            c.tokens += t;
        }
    }

    /// Places cell (game, scenario, policy set), added already, no later than job `job`.
    fn place(&mut self, game: &str, scenario: &str, policy_set: &str, job: u64) {
        if let Some(c) = self.cells.get_mut(&KeyRef(game, scenario, policy_set)) {
            c.place.earliest(Place::of_job(Some(job)));
        }
    }

    /// Sorts the cells into the sweep's order ([`crate::cell_order`]); [`Summary::table`]
    /// prints them so whether sorted or not.
    pub fn sort_cells(&mut self) {
        self.cells.sort_by(|_, a, _, b| a.place.cmp(&b.place));
    }

    /// Adds one exported row; reads only its [`Summary::COLUMNS`].
    pub fn add_row(&mut self, row: &crate::records::Row) -> Result<(), MixedVersions> {
        self.add(
            &row.game,
            &row.engine_version,
            &row.scenario,
            &row.policy_set,
            row.seed,
            row.team_reward,
            row.length,
            &row.outcome,
        )?;
        self.add_tokens(&row.game, &row.scenario, &row.policy_set, llm_tokens(row.stats.get("llm")));
        if let Some(outside) = row.stats.get("outside") {
            self.cell(&row.game, &row.scenario, &row.policy_set).outside.add(outside);
        }
        self.place(&row.game, &row.scenario, &row.policy_set, row.job);
        Ok(())
    }

    /// Adds every record of a job result, or its aggregate.
    pub fn add_result(&mut self, r: &simfleet::JobResult) -> Result<(), MixedVersions> {
        if let Some(a) = &r.summary {
            self.add_aggregate(&r.game, &r.engine_version, &r.scenario, &r.policy_set, a)?;
            self.place(&r.game, &r.scenario, &r.policy_set, r.index);
            return Ok(());
        }
        // Every record of a job has the same seats: look for `llm` stats past the first only if
        // it has some (a scripted job pays one lookup, not one per record).
        let llm = r.records.first().is_some_and(|rec| record_tokens(&rec.stats).is_some());
        for rec in &r.records {
            self.add(
                &r.game,
                &r.engine_version,
                &r.scenario,
                &r.policy_set,
                rec.seed,
                rec.team_reward,
                rec.length,
                &rec.outcome,
            )?;
            if llm {
                self.add_tokens(&r.game, &r.scenario, &r.policy_set, record_tokens(&rec.stats));
            }
            // Added by the game to the episodes it names ([`simfleet::outside::add_faults`]).
            if let Some(outside) = rec.stats.added("outside") {
                self.cell(&r.game, &r.scenario, &r.policy_set).outside.add(outside);
            }
        }
        self.place(&r.game, &r.scenario, &r.policy_set, r.index);
        Ok(())
    }

    /// Adds everything `other` counted (e.g. one job's summary, made where the job was played).
    pub fn merge(&mut self, other: &Summary) -> Result<(), MixedVersions> {
        for (game, version) in &other.versions {
            match self.versions.get(game) {
                Some(v) if v != version => {
                    return Err(MixedVersions { game: game.clone(), first: v.clone(), other: version.clone() })
                }
                Some(_) => {}
                None => {
                    self.versions.insert(game.clone(), version.clone());
                }
            }
        }
        for (key, stats) in &other.cells {
            match self.cells.get_mut(key) {
                Some(c) => c.merge(stats),
                None => {
                    self.cells.insert(key.clone(), stats.clone());
                }
            }
        }
        Ok(())
    }

    /// Total episodes.
    pub fn episodes(&self) -> u64 {
        self.cells.values().map(|c| c.episodes).sum()
    }

    /// The table, aligned for a terminal; with a `tokens/episode` column when a cell has `llm`
    /// seats.
    pub fn table(&self) -> String {
        use Align::{Left as L, Right as R};
        let mut head: Vec<String> = [
            "game",
            "scenario",
            "policy set",
            "episodes",
            "team reward",
            "±95% CI",
            "win",
            "outcomes",
            "mean length",
            "best (seed)",
            "worst (seed)",
        ]
        .map(String::from)
        .to_vec();
        let with_tokens = self.cells.values().any(|c| c.llm_episodes > 0);
        if with_tokens {
            head.push("tokens/episode".into());
        }
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut cells: Vec<_> = self.cells.iter().collect();
        cell_order::sort(&mut cells, |(_, c)| c.place);
        for ((game, scenario, policy_set), c) in cells {
            let win = game
                .parse::<GameKind>()
                .ok()
                .and_then(|g| g.info().win_outcome)
                .map_or_else(|| "—".to_string(), |w| format!("{:.1}%", 100.0 * c.share(w)));
            // In the game's own order (win first where it has one), so rows compare at a glance.
            let order = game.parse::<GameKind>().map_or(&[][..], |g| g.info().outcomes);
            let rank = |o: &str| order.iter().position(|k| *k == o).unwrap_or(order.len());
            let mut listed: Vec<(&String, &u64)> = c.outcomes.iter().collect();
            listed.sort_by_key(|(o, _)| rank(o));
            let outcomes = listed
                .into_iter()
                .map(|(o, n)| format!("{o} {:.1}%", 100.0 * *n as f64 / c.episodes as f64))
                .collect::<Vec<_>>()
                .join(", ");
            let mut row = vec![
                game.clone(),
                scenario.clone(),
                policy_set.clone(),
                c.episodes.to_string(),
                two_decimals(c.mean()),
                if c.ci95().is_nan() { "—".into() } else { two_decimals(c.ci95()) },
                win,
                outcomes,
                two_decimals(c.mean_length()),
                format!("{} ({})", two_decimals(c.team_reward.max), c.team_reward.max_seed),
                format!("{} ({})", two_decimals(c.team_reward.min), c.team_reward.min_seed),
            ];
            if with_tokens {
                row.push(c.tokens_per_episode().map_or_else(|| "—".into(), |t| format!("{t:.0}")));
            }
            rows.push(row);
        }
        let align = [L, L, L, R, R, R, R, L, R, R, R, R];
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        table::render(&head, &align[..head.len()], &rows)
    }
}

#[cfg(test)]
mod tests;
