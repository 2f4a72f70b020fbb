//! The ranking as a terminal table and as CSV (`coordinator rank FILE --out rank.csv`).

use std::fmt::Write as _;
use std::path::Path;

use indexmap::IndexMap;

use super::model::Fit;
use crate::table::{self, Align};

fn signed(x: f64) -> String {
    if x.is_nan() {
        "—".into()
    } else {
        format!("{x:+.2}")
    }
}

fn plain(x: f64) -> String {
    if x.is_nan() {
        "—".into()
    } else {
        format!("{x:.2}")
    }
}

/// The heading line of one game's ranking: what was fitted on what.
pub fn heading(fit: &Fit) -> String {
    let blocks = if fit.seed_blocks { "scenario × seed" } else { "scenario" };
    let seeds = if fit.seeds_known {
        ""
    } else {
        "; seed blocks not available (fitted on cell aggregates of a summary file: the records would pair teams on \
         seeds, `coordinator records` regenerates them)"
    };
    format!(
        "{}: {} episodes, {} teams, {} policies, {} scenario(s); fixed effects per {blocks} ({} blocks); ridge λ = {}; \
         residual SD {:.2}{seeds}",
        fit.game,
        fit.episodes,
        fit.teams,
        fit.policies.len(),
        fit.scenarios,
        fit.blocks,
        fit.ridge,
        fit.residual_sd
    )
}

/// The rows of one game's table, as text cells (shared by the terminal table and the report).
pub fn cells(fit: &Fit) -> Vec<[String; 8]> {
    fit.policies
        .iter()
        .map(|p| {
            [
                p.rank.to_string(),
                p.policy.clone(),
                signed(p.contribution),
                format!("[{}, {}]", signed(p.low), signed(p.high)),
                signed(p.marginal()),
                format!("{} / {}", plain(p.mean_with), plain(p.mean_without)),
                p.teams.to_string(),
                p.appearances.to_string(),
            ]
        })
        .collect()
}

/// Column headings of [`cells`].
pub const HEADINGS: [&str; 8] =
    ["rank", "policy", "contribution", "95% interval", "marginal", "with / without", "teams", "appearances"];

/// Every game's ranking, aligned for a terminal, with notes on skipped policy sets.
pub fn table(fits: &[Fit], skipped: &IndexMap<String, u64>) -> String {
    use Align::{Left as L, Right as R};
    let mut out = String::new();
    for (i, fit) in fits.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}", heading(fit));
        out.push_str(&table::render(&HEADINGS, &[R, L, R, R, R, R, R, R], &cells(fit)));
    }
    out.push_str(
        "\ncontribution: change in team reward from one seat of this policy instead of the roster average \
         (contributions sum to 0);\nmarginal: mean team reward of episodes with the policy minus without it; \
         appearances: seats filled over all episodes.\n",
    );
    if !skipped.is_empty() {
        let names: Vec<String> = skipped.iter().map(|(n, e)| format!("{n} ({e} episodes)")).collect();
        let _ = writeln!(
            out,
            "skipped policy sets whose members are unknown (pass --sweep SWEEP.toml to include them): {}",
            names.join(", ")
        );
    }
    out
}

/// Writes every game's ranking to `path` as CSV, one line per (game, policy).
pub fn write_csv(fits: &[Fit], path: &Path) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record([
        "game",
        "rank",
        "policy",
        "contribution",
        "ci95_low",
        "ci95_high",
        "marginal",
        "mean_with",
        "mean_without",
        "teams",
        "appearances",
    ])?;
    let num = |x: f64| if x.is_nan() { String::new() } else { x.to_string() };
    for fit in fits {
        for p in &fit.policies {
            w.write_record([
                fit.game.clone(),
                p.rank.to_string(),
                p.policy.clone(),
                num(p.contribution),
                num(p.low),
                num(p.high),
                num(p.marginal()),
                num(p.mean_with),
                num(p.mean_without),
                p.teams.to_string(),
                p.appearances.to_string(),
            ])?;
        }
    }
    w.flush()?;
    Ok(())
}
