//! A stopping sweep's decisions beside `compare`'s comparisons: for each comparison the sweep's
//! `[stop]` table asked (each policy set against its `baseline`), the decision and the
//! anytime-valid interval of the difference it rests on, from the `<stem>.stop.json` beside the
//! results ([`crate::stop::decisions`]). The paired t interval of `compare` is the one of the
//! episodes read, at 95% for that comparison alone; the stopping interval holds for every
//! comparison and look of the sweep at once, so it is wider.

use super::Comparisons;
use crate::stop::decisions::Decisions;
use crate::stop::Decision;

/// One comparison's decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mark {
    /// The decision (`better`, `worse`, `equivalent`, `capped`).
    pub decision: Decision,
    /// The anytime-valid interval of the difference (policy set − baseline).
    pub low: Option<f64>,
    /// Its upper bound.
    pub high: Option<f64>,
}

/// The decisions of a [`Comparisons`]' rows, row by row.
#[derive(Clone, Debug, Default)]
pub struct Decided {
    /// Per row of the comparisons: its mark, when the stopping sweep decided that comparison.
    pub marks: Vec<Option<Mark>>,
    /// The confidence the intervals hold at, together.
    pub confidence: Option<f64>,
    /// Why no comparison has a mark, when none has.
    pub note: Option<String>,
}

impl Decided {
    /// The marks of `c`'s rows from `d`: only when `c` compares with the stopping sweep's
    /// baseline (its comparisons are not those of another baseline).
    pub fn of(c: &Comparisons, d: &Decisions) -> Decided {
        let confidence = d.asked.as_ref().map(|a| a.confidence);
        let none = |note: String| Decided { marks: vec![None; c.rows.len()], confidence, note: Some(note) };
        let files = d.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ");
        match d.baseline() {
            None => none(format!("{files} compared with no baseline: no decisions to show")),
            Some(b) if b != c.baseline => none(format!(
                "{files} decided the comparisons with {b}, not {}: `--baseline {b}` shows its decisions",
                c.baseline
            )),
            Some(_) => Decided {
                marks: c
                    .rows
                    .iter()
                    .map(|r| {
                        d.comparison(&r.game, &r.scenario, &r.policy_set).map(|row| Mark {
                            decision: row.decision,
                            low: row.interval_low,
                            high: row.interval_high,
                        })
                    })
                    .collect(),
                confidence,
                note: None,
            },
        }
    }

    /// Whether some comparison has a decision.
    pub fn any(&self) -> bool {
        self.marks.iter().any(Option::is_some)
    }

    /// Row `i`'s mark.
    pub fn get(&self, i: usize) -> Option<Mark> {
        self.marks.get(i).copied().flatten()
    }
}

/// One decided comparison, as `compare --out` writes it when the results hold no pairs.
#[derive(serde::Serialize)]
struct Record<'a> {
    game: &'a str,
    scenario: &'a str,
    policy_set: &'a str,
    baseline: &'a str,
    decision: &'static str,
    decided_at: u64,
    played: u64,
    interval_low: Option<f64>,
    interval_high: Option<f64>,
}

/// What `compare` shows of a stopping sweep whose summary file holds no paired differences (a
/// stopping sweep's summary rows carry none): the comparisons the sweep decided, from its stop
/// file alone; `None` when it decided none.
pub fn decisions_only(d: &Decisions, out: Option<&std::path::Path>) -> Result<Option<String>, String> {
    use crate::table::{render, Align::Left as L, Align::Right as R};
    let Some(baseline) = d.baseline() else { return Ok(None) };
    let rows: Vec<_> = d.rows.iter().filter(|r| r.question == crate::stop::Question::Baseline).collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let bound = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x:+.2}"));
    let table: Vec<[String; 8]> = rows
        .iter()
        .map(|r| {
            [
                r.game.clone(),
                r.scenario.clone(),
                r.policy_set.clone(),
                r.decision.as_str().into(),
                r.decided_at.to_string(),
                r.played.to_string(),
                bound(r.interval_low),
                bound(r.interval_high),
            ]
        })
        .collect();
    let head = ["game", "scenario", "policy set", "decision", "at seeds", "played", "Δ low", "Δ high"];
    let mut text = format!(
        "baseline: {baseline}; the results hold no paired differences, so only the stopping sweep's decisions are \
         shown (Δ = policy set − baseline: the anytime-valid interval each rests on); compare its records for the \
         paired table\n"
    );
    text.push_str(&render(&head, &[L, L, L, L, R, R, R, R], &table));
    if let Some(path) = out {
        let records: Vec<Record<'_>> = rows
            .iter()
            .map(|r| Record {
                game: &r.game,
                scenario: &r.scenario,
                policy_set: &r.policy_set,
                baseline,
                decision: r.decision.as_str(),
                decided_at: r.decided_at,
                played: r.played,
                interval_low: r.interval_low,
                interval_high: r.interval_high,
            })
            .collect();
        super::table::write_records(&records, path)?;
    }
    Ok(Some(text))
}
