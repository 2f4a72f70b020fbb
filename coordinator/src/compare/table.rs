//! How comparisons are shown: the terminal table (the [`crate::table`] layout) and the CSV or
//! JSON file of `compare --out`, one flat record per comparison.

use std::path::Path;

use serde::Serialize;

use super::decided::{Decided, Mark};
use super::{Comparison, Comparisons};
use crate::table::{render, Align};

/// A p-value for people: four decimals, or `<0.0001`.
pub fn p_value(p: f64) -> String {
    if p.is_nan() {
        "—".into()
    } else if p < 1e-4 {
        "<0.0001".into()
    } else {
        format!("{p:.4}")
    }
}

fn signed(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        "—".into()
    } else {
        format!("{x:+.decimals$}")
    }
}

fn plain(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        "—".into()
    } else {
        format!("{x:.decimals$}")
    }
}

/// "2.21×" narrower; `—` when undefined.
pub fn narrower(x: f64) -> String {
    if x.is_nan() {
        "—".into()
    } else if x.is_infinite() {
        "∞".into()
    } else {
        format!("{x:.2}×")
    }
}

/// `[low, high]` of an anytime-valid interval, or `—`.
fn bounds(m: &Mark) -> String {
    match (m.low, m.high) {
        (Some(l), Some(h)) => format!("[{}, {}]", signed(l, 2), signed(h, 2)),
        _ => "—".into(),
    }
}

/// The table, with a line above saying what it shows and notes below on what was left out;
/// with `decided`, a stopping sweep's decision and anytime-valid interval for the comparisons
/// it asked.
pub fn table(c: &Comparisons, decided: Option<&Decided>) -> String {
    use Align::{Left as L, Right as R};
    let head = [
        "game",
        "scenario",
        "policy set",
        "pairs",
        "left out",
        "Δ team reward",
        "±95%",
        "unpaired ±95%",
        "narrower",
        "Δ win",
        "±95%",
        "p",
        "p (Holm)",
    ];
    let mut align = vec![L, L, L, R, R, R, R, R, R, R, R, R, R];
    let mut head = head.to_vec();
    let marked = decided.filter(|d| d.any());
    if marked.is_some() {
        head.extend(["decision", "anytime-valid Δ"]);
        align.extend([L, R]);
    }
    let rows: Vec<Vec<String>> = c.rows.iter().enumerate().map(|(i, r)| cells(r, marked.map(|d| d.get(i)))).collect();
    let mut out = format!(
        "baseline: {} (Δ = policy set − baseline on the seeds both played; 95% t intervals; p: paired t-test of team \
         reward, Holm-corrected across the {} comparisons)\n",
        c.baseline,
        c.rows.len()
    );
    if let Some(d) = marked {
        let level = d.confidence.map_or(String::new(), |c| {
            format!(" at {}% over every comparison and look", crate::stop::decisions::percent(c))
        });
        out.push_str(&format!(
            "decision: the stopping sweep's, on the seeds it played, with the anytime-valid interval of Δ team reward it \
             rests on (simultaneous{level})\n"
        ));
    }
    out.push_str(&render(&head, &align, &rows));
    notes(&mut out, c);
    if let Some(note) = decided.and_then(|d| d.note.as_ref()) {
        out.push_str(&format!("{note}\n"));
    }
    out
}

/// One comparison's cells in the table, with its stopping decision's when the table has them
/// (`mark`: `Some` for every row then, `Some(None)` for an undecided comparison).
fn cells(r: &Comparison, mark: Option<Option<Mark>>) -> Vec<String> {
    let (win, win_half) = match &r.win {
        Some(w) => (format!("{} pp", signed(100.0 * w.mean, 1)), format!("{} pp", plain(100.0 * w.half, 1))),
        None => ("—".into(), "—".into()),
    };
    let mut row = vec![
        r.game.clone(),
        r.scenario.clone(),
        r.policy_set.clone(),
        r.reward.n.to_string(),
        r.left_out.to_string(),
        signed(r.reward.mean, 2),
        plain(r.reward.half, 2),
        plain(r.reward.unpaired_half, 2),
        narrower(r.reward.narrower()),
        win,
        win_half,
        p_value(r.reward.p),
        p_value(r.p_holm),
    ];
    if let Some(mark) = mark {
        row.push(mark.map_or(String::new(), |m| m.decision.as_str().into()));
        row.push(mark.as_ref().map_or(String::new(), bounds));
    }
    row
}

/// The lines under the table: episodes left out, scenarios without the baseline, and cells
/// not paired with it.
fn notes(out: &mut String, c: &Comparisons) {
    let left_out: u64 = c.rows.iter().map(|r| r.left_out).sum();
    if left_out > 0 {
        out.push_str(&format!("{left_out} episode(s) had no partner on the other side and were left out\n"));
    }
    for (game, scenario) in &c.without_baseline {
        out.push_str(&format!("{game} / {scenario}: no {} episodes, nothing compared\n", c.baseline));
    }
    for (game, scenario, policy_set) in &c.not_paired {
        out.push_str(&format!(
            "{game} / {scenario} / {policy_set}: not played on the seeds of {} in the same jobs (another [[cells]] \
             entry, or llm seats): no paired difference\n",
            c.baseline
        ));
    }
}

/// One comparison as a flat record (no value: empty in CSV, null in JSON).
#[derive(Serialize)]
struct Record<'a> {
    game: &'a str,
    scenario: &'a str,
    policy_set: &'a str,
    baseline: &'a str,
    pairs: u64,
    left_out: u64,
    reward_diff: Option<f64>,
    reward_low: Option<f64>,
    reward_high: Option<f64>,
    reward_unpaired_half: Option<f64>,
    narrower: Option<f64>,
    win_diff: Option<f64>,
    win_low: Option<f64>,
    win_high: Option<f64>,
    p: Option<f64>,
    p_holm: Option<f64>,
    /// A stopping sweep's decision and its anytime-valid interval: absent unless the results
    /// have decisions (so other files are as they always were), empty or null when this
    /// comparison has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<Option<&'static str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    interval_low: Option<Option<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    interval_high: Option<Option<f64>>,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn record<'a>(r: &'a Comparison, decided: Option<&Decided>, i: usize) -> Record<'a> {
    let mark = decided.map(|d| d.get(i));
    let (low, high) = r.reward.interval();
    let win = r.win.map(|w| (w.mean, w.interval()));
    Record {
        game: &r.game,
        scenario: &r.scenario,
        policy_set: &r.policy_set,
        baseline: &r.baseline,
        pairs: r.reward.n,
        left_out: r.left_out,
        reward_diff: finite(r.reward.mean),
        reward_low: finite(low),
        reward_high: finite(high),
        reward_unpaired_half: finite(r.reward.unpaired_half),
        narrower: finite(r.reward.narrower()),
        win_diff: win.and_then(|w| finite(w.0)),
        win_low: win.and_then(|w| finite(w.1 .0)),
        win_high: win.and_then(|w| finite(w.1 .1)),
        p: finite(r.reward.p),
        p_holm: finite(r.p_holm),
        decision: mark.map(|m| m.map(|m| m.decision.as_str())),
        interval_low: mark.map(|m| m.and_then(|m| m.low)),
        interval_high: mark.map(|m| m.and_then(|m| m.high)),
    }
}

/// Writes the comparisons to `path`: CSV for `.csv`, a JSON array for `.json`; with `decided`
/// (some comparison decided), the columns `decision`, `interval_low` and `interval_high`.
pub fn write(c: &Comparisons, decided: Option<&Decided>, path: &Path) -> Result<(), String> {
    let decided = decided.filter(|d| d.any());
    let records: Vec<Record<'_>> = c.rows.iter().enumerate().map(|(i, r)| record(r, decided, i)).collect();
    write_records(&records, path)
}

/// Writes `records` to `path`: CSV for `.csv`, a JSON array for `.json`.
pub(super) fn write_records<T: Serialize>(records: &[T], path: &Path) -> Result<(), String> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => {
            let mut w = csv::Writer::from_path(path).map_err(|e| e.to_string())?;
            for r in records {
                w.serialize(r).map_err(|e| e.to_string())?;
            }
            w.flush().map_err(|e| e.to_string())
        }
        Some("json") => {
            let text = serde_json::to_string_pretty(records).map_err(|e| e.to_string())?;
            std::fs::write(path, text + "\n").map_err(|e| e.to_string())
        }
        _ => Err("--out must end in .csv or .json".into()),
    }
}
