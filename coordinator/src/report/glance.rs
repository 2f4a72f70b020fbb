//! The report's first section, "At a glance": per game, the heatmap of scenario × policy set
//! ([`super::heatmap`]) and the forest plot of paired differences against the baseline
//! ([`super::forest`]), so the page opens with which team wins where, and by how much.

use std::fmt::Write as _;

use indexmap::IndexMap;
use simfleet::GameKind;

use super::heatmap::{heatmap, Grid, HeatCell};
use super::html::escape;
use crate::compare::decided::{Decided, Mark};
use crate::compare::{Comparison, Comparisons};
use crate::summary::Summary;

/// The grid of every game in `summary`, in first-seen order.
pub fn grids(summary: &Summary, baseline: Option<&str>) -> IndexMap<String, Grid> {
    let mut grids: IndexMap<String, Grid> = IndexMap::new();
    for ((game, scenario, ps), _) in &summary.cells {
        let g = grids.entry(game.clone()).or_insert_with(|| Grid {
            scenarios: Vec::new(),
            policy_sets: Vec::new(),
            cells: Vec::new(),
            baseline: baseline.map(str::to_string),
        });
        if !g.scenarios.contains(scenario) {
            g.scenarios.push(scenario.clone());
        }
        if !g.policy_sets.contains(ps) {
            g.policy_sets.push(ps.clone());
        }
    }
    for (game, g) in &mut grids {
        let win = game.parse::<GameKind>().ok().and_then(|k| k.info().win_outcome);
        g.cells = g
            .scenarios
            .iter()
            .map(|scenario| {
                g.policy_sets
                    .iter()
                    .map(|ps| {
                        summary.cells.get(&(game.clone(), scenario.clone(), ps.clone())).map(|c| HeatCell {
                            mean: c.mean(),
                            win: win.map(|w| c.share(w)),
                            episodes: c.episodes,
                        })
                    })
                    .collect()
            })
            .collect();
    }
    grids
}

/// The section's HTML for a summary file without paired differences (written before paired
/// summary jobs, or of cells never paired): the heatmaps only, and why there are no forest plots.
pub fn section_without_pairs(summary: &Summary) -> String {
    let mut out = String::from("<section class=\"glance\"><h2>At a glance</h2>");
    out.push_str(
        "<p class=\"note\">Per game: mean team reward of every scenario (row) and policy set (column), one colour \
         scale per game, with the win rate printed in each cell. This summary file holds no paired \
         differences (its cells were not played as paired summary jobs: written by an older version, or \
         cells with <code>llm</code> seats), so there are no paired comparisons. Play the sweep again, or \
         with records, to see them.</p>",
    );
    for (game, grid) in grids(summary, None) {
        let _ = write!(out, "<h3>{}</h3>", escape(&game));
        let _ = write!(
            out,
            "<figure>{}<figcaption>{}: mean team reward by scenario and policy set.</figcaption></figure>",
            heatmap(&format!("{game}: mean team reward by scenario and policy set"), &grid),
            escape(&game)
        );
    }
    out.push_str("</section>");
    out
}

/// A comparison and the stopping sweep's decision of it.
type Marked<'a> = (&'a Comparison, Option<Mark>);

/// The section's HTML.
pub fn section(summary: &Summary, comparisons: &Comparisons) -> String {
    section_decided(summary, comparisons, None)
}

/// The section's HTML, with a stopping sweep's decisions on the forest plots.
pub fn section_decided(summary: &Summary, comparisons: &Comparisons, decided: Option<&Decided>) -> String {
    let baseline = &comparisons.baseline;
    let mut out = String::from("<section class=\"glance\"><h2>At a glance</h2>");
    let _ = write!(
        out,
        "<p class=\"note\">Per game: mean team reward of every scenario (row) and policy set (column), one colour \
         scale per game, with the win rate printed in each cell; then each policy set's paired difference in team \
         reward from <b>{}</b> on the seeds both played (common random numbers), with its 95% interval. A filled dot: \
         the difference holds after Holm's correction across all {} comparisons (p &lt; 0.05); hollow: it does not. \
         <code>coordinator compare</code> prints the same comparisons as a table.</p>",
        escape(baseline),
        comparisons.rows.len()
    );
    let decided = decided.filter(|d| d.any());
    if decided.is_some() {
        out.push_str(
            "<p class=\"note\">After a policy set's name: the stopping sweep's decision of its comparison (hover for \
             the anytime-valid interval it rests on; \"Stopping decisions\" below lists them all).</p>",
        );
    }
    let mut by_game: IndexMap<&str, IndexMap<&str, Vec<Marked<'_>>>> = IndexMap::new();
    for (i, r) in comparisons.rows.iter().enumerate() {
        let mark = decided.and_then(|d| d.get(i));
        by_game.entry(&r.game).or_default().entry(&r.scenario).or_default().push((r, mark));
    }
    for (game, grid) in grids(summary, Some(baseline)) {
        let missing: Vec<&str> =
            comparisons.without_baseline.iter().filter(|(g, _)| *g == game).map(|(_, s)| s.as_str()).collect();
        let _ = write!(out, "<h3>{}</h3>", escape(&game));
        let _ = write!(
            out,
            "<figure>{}<figcaption>{}: mean team reward by scenario and policy set.</figcaption></figure>",
            heatmap(&format!("{game}: mean team reward by scenario and policy set"), &grid),
            escape(&game)
        );
        let not_paired: Vec<String> = comparisons
            .not_paired
            .iter()
            .filter(|(g, _, _)| *g == game)
            .map(|(_, scenario, set)| format!("{set} ({scenario})"))
            .collect();
        if !not_paired.is_empty() {
            let _ = write!(
                out,
                "<p class=\"note\">Not paired with {}: its summary jobs did not play their seeds (another \
                 <code>[[cells]]</code> or ranking section, or <code>llm</code> seats): {}.</p>",
                escape(baseline),
                escape(&not_paired.join(", "))
            );
        }
        forests(&mut out, &game, baseline, by_game.get(game.as_str()), &missing);
    }
    out.push_str("</section>");
    out
}

/// A game's forest plots, one panel per scenario (`scenarios`, each comparison with its
/// stopping mark), and the scenarios left out (`missing`: no baseline episodes there).
fn forests(
    out: &mut String,
    game: &str,
    baseline: &str,
    scenarios: Option<&IndexMap<&str, Vec<Marked<'_>>>>,
    missing: &[&str],
) {
    match scenarios {
        Some(scenarios) => {
            out.push_str("<figure><div style=\"display:flex;flex-wrap:wrap;gap:6px 18px\">");
            for (scenario, rows) in scenarios {
                let (rows, marks): (Vec<&Comparison>, Vec<Option<Mark>>) = rows.iter().copied().unzip();
                out.push_str(&super::forest::panel(scenario, baseline, &rows, &marks));
            }
            let _ = write!(
                out,
                "</div><figcaption>{}: paired difference in team reward (policy set − {}), 95% interval; \
                 each scenario on its own axis.</figcaption></figure>",
                escape(game),
                escape(baseline)
            );
            if !missing.is_empty() {
                let _ = write!(
                    out,
                    "<p class=\"note\">Not compared, no {} episodes there: {}.</p>",
                    escape(baseline),
                    escape(&missing.join(", "))
                );
            }
        }
        None => {
            let _ = write!(
                out,
                "<p class=\"note\">No paired comparison for {}: it has no other policy set beside {} on shared \
                 scenarios.</p>",
                escape(game),
                escape(baseline)
            );
        }
    }
}
