//! The report page: one HTML document with inline CSS and SVG, in five sections (at a glance,
//! summary, outcome shares, ranking, distributions).

use std::fmt::Write as _;

use simfleet::GameKind;

use super::svg::{cell_chart, interval_chart, Interval};
use super::Collected;
use crate::rank::table::{cells as rank_cells, heading as rank_heading, HEADINGS as RANK_HEADINGS};

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The 95% Wilson score interval of a share of `k` in `n`.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (n, p, z) = (n as f64, k as f64 / n as f64, 1.96f64);
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}\
h1{font-size:1.5em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1.05em;margin:1.4em 0 .4em}\
table{border-collapse:collapse;margin:.5em 0}td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}\
td.w{overflow-wrap:anywhere;min-width:8em}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}figure{margin:.6em 0}figcaption{font-size:.9em;color:#444}\
.note{color:#555;font-size:.9em}svg text{font:11px system-ui,sans-serif;fill:#333}svg .t{font-weight:600}svg .m{font-weight:400;fill:#666}\
svg .s{fill:#666;font-size:10px}.ax{stroke:#999}.grid{stroke:#eee}.zero{stroke:#999;stroke-dasharray:3 3}";

/// Column alignment: numbers right, names that may be long wrap anywhere.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Col {
    Text,
    Name,
    Number,
}
use Col::{Name, Number, Text};

pub(super) fn table(out: &mut String, head: &[&str], rows: &[Vec<String>], cols: &[Col]) {
    out.push_str("<table><tr>");
    let class = |c: &Col| match c {
        Text => "",
        Name => " class=\"w\"",
        Number => " class=\"n\"",
    };
    for (h, c) in head.iter().zip(cols) {
        let _ = write!(out, "<th{}>{}</th>", if *c == Number { class(c) } else { "" }, escape(h));
    }
    out.push_str("</tr>");
    for r in rows {
        out.push_str("<tr>");
        for (text, c) in r.iter().zip(cols) {
            let _ = write!(out, "<td{}>{}</td>", class(c), escape(text));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

fn win_of(game: &str) -> Option<&'static str> {
    game.parse::<GameKind>().ok().and_then(|g| g.info().win_outcome)
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn summary_section(out: &mut String, c: &Collected) {
    out.push_str("<h2>Summary</h2>");
    let head =
        ["game", "scenario", "policy set", "episodes", "team reward", "±95% CI", "win", "outcomes", "mean length"];
    let cols = [Text, Name, Name, Number, Number, Number, Number, Text, Number];
    let rows: Vec<Vec<String>> = c
        .summary
        .cells
        .iter()
        .map(|((game, scenario, ps), s)| {
            let outcomes = s.outcomes.keys().map(|o| format!("{o} {}", pct(s.share(o)))).collect::<Vec<_>>();
            vec![
                game.clone(),
                scenario.clone(),
                ps.clone(),
                s.episodes.to_string(),
                format!("{:.2}", s.mean()),
                if s.ci95().is_nan() { "—".into() } else { format!("{:.2}", s.ci95()) },
                win_of(game).map_or_else(|| "—".into(), |w| pct(s.share(w))),
                outcomes.join(", "),
                format!("{:.2}", s.mean_length()),
            ]
        })
        .collect();
    table(out, &head, &rows, &cols);
}

/// Cells grouped by (game, scenario), in first-seen order.
fn groups(c: &Collected) -> Vec<((&str, &str), Vec<usize>)> {
    let mut groups: Vec<((&str, &str), Vec<usize>)> = Vec::new();
    for (i, (game, scenario, _)) in c.summary.cells.keys().enumerate() {
        match groups.iter_mut().find(|(k, _)| *k == (game.as_str(), scenario.as_str())) {
            Some((_, v)) => v.push(i),
            None => groups.push(((game, scenario), vec![i])),
        }
    }
    groups
}

fn outcomes_section(out: &mut String, c: &Collected) {
    out.push_str(
        "<h2>Outcome shares</h2><p class=\"note\">Share of episodes per outcome with 95% Wilson intervals.</p>",
    );
    for ((game, scenario), cells) in groups(c) {
        let _ = write!(out, "<h3>{} — {}</h3>", escape(game), escape(scenario));
        let mut rows = Vec::new();
        let mut text_rows = Vec::new();
        for &i in &cells {
            let ((_, _, ps), s) = c.summary.cells.get_index(i).expect("index of a cell");
            let shown: Vec<&str> = match win_of(game) {
                Some(w) => vec![w],
                None => s.outcomes.keys().map(String::as_str).collect(),
            };
            for (k, o) in shown.iter().enumerate() {
                let hits = s.outcomes.get(*o).copied().unwrap_or(0);
                let (low, high) = wilson(hits, s.episodes);
                let label = if shown.len() == 1 { ps.clone() } else { format!("{ps}: {o}") };
                rows.push(Interval { label, value: s.share(o), low, high, colour: k });
            }
            let all = s.outcomes.iter().map(|(o, &k)| {
                let (low, high) = wilson(k, s.episodes);
                format!("{o} {} [{}, {}]", pct(s.share(o)), pct(low), pct(high))
            });
            text_rows.push(vec![ps.clone(), s.episodes.to_string(), all.collect::<Vec<_>>().join(", ")]);
        }
        let axis = match win_of(game) {
            Some(w) => format!("share of episodes with outcome {w}"),
            None => "share of episodes per outcome".to_string(),
        };
        out.push_str(&interval_chart("outcome-chart", &rows, 0.0, 1.0, &axis));
        table(out, &["policy set", "episodes", "outcome shares [95% interval]"], &text_rows, &[Name, Number, Text]);
    }
}

fn ranking_section(out: &mut String, c: &Collected) {
    if c.ranking.is_empty() {
        return;
    }
    out.push_str(
        "<h2>Ranking</h2><p class=\"note\">Additive model of team reward on the policies seated, with fixed effects \
         per block and a ridge prior. Contribution: change in team reward from one seat of the policy instead of the \
         roster average (contributions sum to 0), with its 95% interval. Marginal: mean team reward of episodes with \
         the policy minus without it. Appearances: seats filled over all episodes.</p>",
    );
    for fit in &c.ranking {
        let _ = write!(out, "<h3>{}</h3>", escape(&rank_heading(fit)));
        let rows: Vec<Interval> = fit
            .policies
            .iter()
            .map(|p| Interval { label: p.policy.clone(), value: p.contribution, low: p.low, high: p.high, colour: 0 })
            .collect();
        let lo = rows.iter().map(|r| r.low).fold(0.0f64, f64::min);
        let hi = rows.iter().map(|r| r.high).fold(0.0f64, f64::max);
        let pad = (hi - lo) * 0.05;
        out.push_str(&interval_chart("rank-chart", &rows, lo - pad, hi + pad, "contribution to team reward per seat"));
        let cells: Vec<Vec<String>> = rank_cells(fit).into_iter().map(Vec::from).collect();
        let cols = [Number, Name, Number, Number, Number, Number, Number, Number];
        table(out, &RANK_HEADINGS, &cells, &cols);
    }
    if !c.skipped.is_empty() {
        let names: Vec<&str> = c.skipped.keys().map(String::as_str).collect();
        let _ = write!(
            out,
            "<p class=\"note\">Not in the ranking (not a team name; <code>--sweep</code> gives their seats): {}.</p>",
            escape(&names.join(", "))
        );
    }
}

fn distributions_section(out: &mut String, c: &Collected) {
    let buckets = c.histograms.values().any(|h| h.reward.edges.is_some());
    out.push_str(if buckets {
        "<h2>Distributions</h2><p class=\"note\">Per cell, team reward (left) and episode length (right), from a \
         summary file: each bar is one of the game's Prometheus buckets (unequal widths, drawn side by side), the \
         outer ones closed at the cell's smallest and largest value. Hover a bar for its range and count.</p>"
    } else {
        "<h2>Distributions</h2><p class=\"note\">Per cell, team reward (left) and episode length (right); every policy \
         set of a scenario shares the same bins. Hover a bar for its range and count.</p>"
    });
    for ((game, scenario), cells) in groups(c) {
        let _ = write!(out, "<h3>{} — {}</h3>", escape(game), escape(scenario));
        for &i in &cells {
            let (key, s) = c.summary.cells.get_index(i).expect("index of a cell");
            let Some(h) = c.histograms.get(key) else { continue };
            let _ = write!(
                out,
                "<figure><figcaption>{} — {} episodes</figcaption>{}</figure>",
                escape(&key.2),
                s.episodes,
                cell_chart(
                    &format!("{game} / {scenario} / {}", key.2),
                    &h.reward,
                    s.mean(),
                    &h.length,
                    s.mean_length()
                )
            );
        }
    }
}

/// The whole page: `lead` (the "At a glance" section) first, then the rest.
pub fn page(c: &Collected, lead: &str) -> String {
    let mut out = String::with_capacity(64 << 10);
    let title = format!("simfleet report: {}", c.file);
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body><h1>{}</h1>",
        escape(&title),
        escape(&title)
    );
    let sweeps: Vec<&str> = c.sweeps.iter().map(String::as_str).collect();
    let versions: Vec<String> = c.versions.iter().map(|(g, v)| format!("{g} {v}")).collect();
    let _ = write!(
        out,
        "<p>{} episodes in {} cells; sweep {}; engines {}. Made by <code>coordinator report</code>.</p>",
        c.summary.episodes(),
        c.summary.cells.len(),
        escape(&sweeps.join(", ")),
        escape(&versions.join(", "))
    );
    out.push_str(lead);
    summary_section(&mut out, c);
    outcomes_section(&mut out, c);
    ranking_section(&mut out, c);
    distributions_section(&mut out, c);
    out.push_str("<p class=\"note\">±95% CI of mean team reward: normal approximation.</p>");
    out.push_str("</body></html>\n");
    out
}
