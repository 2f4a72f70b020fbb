//! The decisions of a stopping sweep read back from the `<stem>.stop.json` it wrote beside its
//! output ([`super::report::StopFile`]): what `summary --out`, `compare` and `report` show.
//!
//! A cell may answer up to three questions; the one a cell's row of a summary file carries (its
//! [`Answer`]) is the first it has of: the comparison with the baseline, the race for best, the
//! precision of its mean. A comparison is the question a baseline sweep was run for, and its
//! interval (of the difference) says more than the precision of one mean; every answer stays in
//! the row's `decisions` text and in the stop file.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::report::{DecisionRow, StopFile};
use super::{Decision, Question};
use crate::records::summary_file::CellRow;

/// The `[stop]` table as the stop file records it (absent from files of older versions).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Asked {
    /// Simultaneous confidence.
    pub confidence: f64,
    /// `team_reward` or `win`.
    pub metric: String,
    /// Question 1's half-width.
    #[serde(default)]
    pub half_width: Option<f64>,
    /// Question 2's baseline.
    #[serde(default)]
    pub baseline: Option<String>,
    /// The margin of `equivalent` and of a shared `best`.
    #[serde(default)]
    pub margin: f64,
    /// Question 3.
    #[serde(default)]
    pub best: bool,
}

/// What is read of a stop file.
#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    stop: Option<Asked>,
    decisions: Vec<DecisionRow>,
}

/// A stop file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DecisionsError {
    /// Not readable.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Not a stop file.
    #[error("{path} is not the `<stem>.stop.json` of a stopping sweep: {message}")]
    Parse {
        /// The file.
        path: String,
        /// What serde said.
        message: String,
    },
    /// Two stop files decide the same cell.
    #[error("{first} and {second} both decide {cell}: pass the one to use with --stop")]
    Twice {
        /// The first file.
        first: String,
        /// The second.
        second: String,
        /// `game / scenario / policy set`.
        cell: String,
    },
}

/// The answer a cell's row of a summary file carries.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The question it answers.
    pub question: Question,
    /// Its decision.
    pub decision: Decision,
    /// The interval it rests on: of the mean (`precision`), of the difference with the baseline
    /// (`baseline`) or with the closest rival (`best`); `None` below two seeds.
    pub low: Option<f64>,
    /// Its upper bound.
    pub high: Option<f64>,
    /// Every answer of the cell, `question=decision` joined by `;`, in the order of the stop
    /// file (`precision`, `baseline`, `best`).
    pub all: String,
}

/// The decisions of one or more stop files (of the sweeps of the results read together).
#[derive(Clone, Debug, Default)]
pub struct Decisions {
    /// The files read.
    pub files: Vec<PathBuf>,
    /// The questions of the first file that records them.
    pub asked: Option<Asked>,
    /// Every (cell, question), file after file.
    pub rows: Vec<DecisionRow>,
    /// The index in `files` of each row's file.
    origin: Vec<usize>,
}

/// A confidence as a percentage (`95`, `97.5`), without the float's last bits.
pub fn percent(confidence: f64) -> String {
    format!("{}", (confidence * 1e4).round() / 100.0)
}

/// Which question a cell's row carries first.
fn rank(q: Question) -> u8 {
    match q {
        Question::Baseline => 0,
        Question::Best => 1,
        Question::Precision => 2,
    }
}

impl Decisions {
    /// Reads the stop file at `path`.
    pub fn read(path: &Path) -> Result<Decisions, DecisionsError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| DecisionsError::Io { path: name.clone(), source })?;
        let raw: Raw =
            serde_json::from_str(&text).map_err(|e| DecisionsError::Parse { path: name, message: e.to_string() })?;
        Ok(Decisions {
            files: vec![path.to_path_buf()],
            asked: raw.stop,
            origin: vec![0; raw.decisions.len()],
            rows: raw.decisions,
        })
    }

    /// The decisions of a run that just ended (no file read): what its summary file's decision
    /// columns carry.
    pub fn of_rows(rows: Vec<DecisionRow>) -> Decisions {
        Decisions { origin: vec![0; rows.len()], rows, ..Decisions::default() }
    }

    /// The decisions of `stop` when given (`--stop`), else of the stop files beside the results
    /// `inputs` (files or directories of shards: `<stem>.stop.json`, also without a summary
    /// file's `.cells`); `None` when there are none (a sweep without `[stop]`).
    pub fn find(inputs: &[PathBuf], stop: &[PathBuf]) -> Result<Option<Decisions>, DecisionsError> {
        let mut paths: Vec<PathBuf> = stop.to_vec();
        if stop.is_empty() {
            for input in inputs {
                let beside = StopFile::path(input);
                let of_records = beside
                    .to_str()
                    .and_then(|p| p.strip_suffix(".cells.stop.json"))
                    .map(|p| PathBuf::from(format!("{p}.stop.json")));
                for p in std::iter::once(beside).chain(of_records) {
                    if p.is_file() && !paths.contains(&p) {
                        paths.push(p);
                    }
                }
            }
        }
        let mut all: Option<Decisions> = None;
        for p in &paths {
            let d = Decisions::read(p)?;
            match all.as_mut() {
                None => all = Some(d),
                Some(a) => a.merge(d)?,
            }
        }
        Ok(all)
    }

    fn merge(&mut self, other: Decisions) -> Result<(), DecisionsError> {
        let file = other.files[0].display().to_string();
        for r in &other.rows {
            if let Some(i) = self.rows.iter().position(|x| same_cell(x, r)) {
                let first = self.file_of(i);
                let cell = format!("{} / {} / {}", r.game, r.scenario, r.policy_set);
                return Err(DecisionsError::Twice { first, second: file, cell });
            }
        }
        self.asked = self.asked.take().or(other.asked);
        let at = self.files.len();
        self.files.extend(other.files);
        self.origin.extend(other.origin.iter().map(|o| o + at));
        self.rows.extend(other.rows);
        Ok(())
    }

    /// The file row `i` came from.
    fn file_of(&self, i: usize) -> String {
        self.files[self.origin[i]].display().to_string()
    }

    /// The baseline of the comparisons, when the file records it.
    pub fn baseline(&self) -> Option<&str> {
        self.asked.as_ref().and_then(|a| a.baseline.as_deref())
    }

    /// Every question of cell (game, scenario, policy set).
    pub fn of_cell(&self, game: &str, scenario: &str, policy_set: &str) -> Vec<&DecisionRow> {
        self.rows.iter().filter(|r| r.game == game && r.scenario == scenario && r.policy_set == policy_set).collect()
    }

    /// The cell's comparison with the baseline, when it was compared.
    pub fn comparison(&self, game: &str, scenario: &str, policy_set: &str) -> Option<&DecisionRow> {
        self.of_cell(game, scenario, policy_set).into_iter().find(|r| r.question == Question::Baseline)
    }

    /// The answer a cell's summary row carries; `None` for a cell that was asked nothing (the
    /// baseline, when comparing is the only question).
    pub fn answer(&self, game: &str, scenario: &str, policy_set: &str) -> Option<Answer> {
        let rows = self.of_cell(game, scenario, policy_set);
        let first = rows.iter().min_by_key(|r| rank(r.question))?;
        let all = rows
            .iter()
            .map(|r| format!("{}={}", r.question.as_str(), r.decision.as_str()))
            .collect::<Vec<_>>()
            .join(";");
        Some(Answer {
            question: first.question,
            decision: first.decision,
            low: first.interval_low,
            high: first.interval_high,
            all,
        })
    }
}

fn same_cell(a: &DecisionRow, b: &DecisionRow) -> bool {
    (a.game.as_str(), a.scenario.as_str(), a.policy_set.as_str(), a.question)
        == (b.game.as_str(), b.scenario.as_str(), b.policy_set.as_str(), b.question)
}

/// Puts each row's answer from `decisions` in its decision columns (cleared for a cell the stop
/// files do not decide).
pub fn apply(rows: &mut [CellRow], decisions: &Decisions) {
    for row in rows {
        let answer = decisions.answer(&row.game, &row.scenario, &row.policy_set);
        row.question = answer.as_ref().map(|a| a.question.as_str().to_string());
        row.decision = answer.as_ref().map(|a| a.decision.as_str().to_string());
        row.interval_low = answer.as_ref().and_then(|a| a.low);
        row.interval_high = answer.as_ref().and_then(|a| a.high);
        row.decisions = answer.map(|a| a.all);
    }
}
