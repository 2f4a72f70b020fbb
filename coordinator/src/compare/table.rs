//! How comparisons are shown: the terminal table (the [`crate::table`] layout) and the CSV or
//! JSON file of `compare --out`, one flat record per comparison.

use std::path::Path;

use serde::Serialize;

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

/// The table, with a line above saying what it shows and notes below on what was left out.
pub fn table(c: &Comparisons) -> String {
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
    let align = [L, L, L, R, R, R, R, R, R, R, R, R, R];
    let rows: Vec<Vec<String>> = c
        .rows
        .iter()
        .map(|r| {
            let (win, win_half) = match &r.win {
                Some(w) => (format!("{} pp", signed(100.0 * w.mean, 1)), format!("{} pp", plain(100.0 * w.half, 1))),
                None => ("—".into(), "—".into()),
            };
            vec![
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
            ]
        })
        .collect();
    let mut out = format!(
        "baseline: {} (Δ = policy set − baseline on the seeds both played; 95% t intervals; p: paired t-test of team \
         reward, Holm-corrected across the {} comparisons)\n",
        c.baseline,
        c.rows.len()
    );
    out.push_str(&render(&head, &align, &rows));
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
    out
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
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn record(r: &Comparison) -> Record<'_> {
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
    }
}

/// Writes the comparisons to `path`: CSV for `.csv`, a JSON array for `.json`.
pub fn write(c: &Comparisons, path: &Path) -> Result<(), String> {
    let records: Vec<Record<'_>> = c.rows.iter().map(record).collect();
    match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => {
            let mut w = csv::Writer::from_path(path).map_err(|e| e.to_string())?;
            for r in &records {
                w.serialize(r).map_err(|e| e.to_string())?;
            }
            w.flush().map_err(|e| e.to_string())
        }
        Some("json") => {
            let text = serde_json::to_string_pretty(&records).map_err(|e| e.to_string())?;
            std::fs::write(path, text + "\n").map_err(|e| e.to_string())
        }
        _ => Err("--out must end in .csv or .json".into()),
    }
}
