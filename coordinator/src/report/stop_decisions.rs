//! The report's "Stopping decisions" section, for the results of a stopping sweep (`[stop]`,
//! its `<stem>.stop.json` beside them): what it asked, and per cell and question the decision,
//! the seeds it was decided at, the seeds the cell played and the anytime-valid interval.

use std::fmt::Write as _;

use super::html::{escape, table, Col};
use crate::stop::decisions::{percent, Decisions};
use crate::stop::report::DecisionRow;

/// What the `[stop]` table asked, in a sentence.
fn asked(d: &Decisions) -> String {
    let Some(a) = &d.asked else { return String::new() };
    let mut questions = Vec::new();
    if let Some(h) = a.half_width {
        questions.push(format!("each cell's mean {} to within ±{h} (precision)", a.metric));
    }
    if let Some(b) = &a.baseline {
        questions.push(format!("each policy set against {b} with a margin of {} (baseline)", a.margin));
    }
    if a.best {
        questions.push("each scenario's best policy set (best)".into());
    }
    format!(
        " The sweep asked {}, at a confidence of {}% over every question and look together.",
        questions.join("; "),
        percent(a.confidence)
    )
}

/// The section's HTML.
pub fn section(d: &Decisions) -> String {
    let mut out = String::from("<section class=\"stopping\"><h2>Stopping decisions</h2>");
    let files = d.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ");
    let _ = write!(
        out,
        "<p class=\"note\">From {}.{} Each row is one question of one cell: its decision (<code>capped</code>: still \
         open at the cap), the seeds it was decided at, the seeds the cell played, and the anytime-valid interval it \
         rests on: of the cell's mean (precision), of its difference with the baseline (baseline), or with its \
         closest rival (best).</p>",
        escape(&files),
        escape(&asked(d))
    );
    let cols =
        [Col::Text, Col::Name, Col::Name, Col::Text, Col::Text, Col::Number, Col::Number, Col::Number, Col::Number];
    let rows: Vec<Vec<String>> = d.rows.iter().map(|r| r.cells().to_vec()).collect();
    table(&mut out, &DecisionRow::HEAD, &rows, &cols);
    out.push_str("</section>");
    out
}
