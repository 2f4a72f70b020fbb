//! What a stopping sweep says of each cell: per question, the decision, the seeds it took and
//! the interval it rests on.

use serde::{Deserialize, Serialize};

use super::Interval;

/// One of the three questions of a `[stop]` table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Question {
    /// The cell's mean to within `half_width`.
    Precision,
    /// The cell's policy set against the baseline.
    Baseline,
    /// Whether the cell's policy set is its (game, scenario)'s best.
    Best,
}

impl Question {
    /// Its name in printed tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Question::Precision => "precision",
            Question::Baseline => "baseline",
            Question::Best => "best",
        }
    }
}

/// A question's answer, or that it has none yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Not decided; the cell plays on.
    Open,
    /// The mean is known to within `half_width`.
    Precise,
    /// Better than the baseline by more than `margin`.
    Better,
    /// Worse than the baseline by more than `margin`.
    Worse,
    /// Within `margin` of the baseline, either way.
    Equivalent,
    /// The best set (or within `margin` of the others left at the top).
    Best,
    /// Another set is better.
    NotBest,
    /// Still undecided at the cap.
    Capped,
}

impl Decision {
    /// The name printed and written (`precise`, `not_best`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Open => "open",
            Decision::Precise => "precise",
            Decision::Better => "better",
            Decision::Worse => "worse",
            Decision::Equivalent => "equivalent",
            Decision::Best => "best",
            Decision::NotBest => "not_best",
            Decision::Capped => "capped",
        }
    }

    /// Whether the question is settled (decided or capped).
    pub fn is_final(self) -> bool {
        self != Decision::Open
    }
}

/// One question of one cell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The question.
    pub question: Question,
    /// Its answer.
    pub decision: Decision,
    /// The interval the answer rests on: of the cell's mean (precision), of its difference
    /// with the baseline, or with its closest rival (best); the running intersection over the
    /// looks. `None` before two seeds.
    pub interval: Option<Interval>,
    /// Seeds counted when it was decided (the cap when capped).
    pub seeds: u64,
}
