//! Faults of `wasm:` entries per cell, from the records' `outside` stat: what `run` and `watch`
//! print after the summary table, as they print the model cells' fallbacks, so that a
//! tournament shows which entries lost decisions to their fallback and why. The counts are the
//! summary's ([`crate::summary::OutsideCounts`], gathered as the results were collected); only a
//! resumed watch, whose summary is the file's, reads them back from the records file.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write;
use std::path::Path;

use simfleet::protocol::Collect;

use crate::records::reader::for_each_row_of;
use crate::summary::Summary;
use crate::sweep::Sweep;

/// One (policy set, seat) of a `wasm:` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Entry {
    /// The entry's label.
    label: String,
    episodes: u64,
    /// Episodes in which it faulted, by kind.
    faults: BTreeMap<String, u64>,
    /// Answers outside the action space.
    illegal: u64,
}

/// The `wasm:` entries of `sweep`'s records cells, keyed by (policy set, seat).
fn entries(sweep: &Sweep) -> BTreeMap<(String, usize), Entry> {
    let mut entries = BTreeMap::new();
    for c in sweep.cells.iter().filter(|c| c.collect == Collect::Records) {
        for (seat, spec) in c.policy_set.seats.iter().enumerate() {
            if let Some(label) = simfleet::outside::wasm::label(spec) {
                entries.entry((c.policy_set.name.clone(), seat)).or_insert(Entry { label, ..Entry::default() });
            }
        }
    }
    entries
}

/// The table of `wasm:` entries of `sweep`'s records cells, counted in `summary` (the
/// collector's, of every record delivered); empty when the sweep has none.
pub fn table(sweep: &Sweep, summary: &Summary) -> String {
    let mut entries = entries(sweep);
    if entries.is_empty() {
        return String::new();
    }
    // The summary's keys of the sweep's records cells: a summary cell of the same policy set is
    // not an entry's.
    let records_cells: HashSet<(&str, &str, &str)> = sweep
        .cells
        .iter()
        .filter(|c| c.collect == Collect::Records)
        .map(|c| (c.game.as_str(), c.scenario.as_str(), c.policy_set.name.as_str()))
        .collect();
    for ((game, scenario, set), cell) in &summary.cells {
        if !records_cells.contains(&(game.as_str(), scenario.as_str(), set.as_str())) {
            continue;
        }
        for ((_, seat), e) in entries.iter_mut().filter(|((s, _), _)| s == set) {
            e.episodes += cell.episodes;
            if let Some(counts) = cell.outside.seat(*seat) {
                e.illegal += counts.illegal;
                for (kind, n) in &counts.faults {
                    *e.faults.entry(kind.clone()).or_default() += n;
                }
            }
        }
    }
    render(&entries)
}

/// [`table`] of the records in file `out` (a resumed watch's: its summary is the file's).
pub fn table_of_file(sweep: &Sweep, out: &Path) -> anyhow::Result<String> {
    if entries(sweep).is_empty() || !out.exists() {
        return Ok(String::new());
    }
    let mut summary = Summary::default();
    let mut mixed = None;
    for_each_row_of(out, Some(Summary::COLUMNS), |_, row| {
        if let Err(e) = summary.add_row(&row) {
            mixed.get_or_insert(e);
        }
    })?;
    if let Some(e) = mixed {
        return Err(e.into());
    }
    Ok(table(sweep, &summary))
}

fn render(entries: &BTreeMap<(String, usize), Entry>) -> String {
    let mut s = String::from("\nwasm entries (episodes with a fault lose the rest of it to the fallback):\n");
    for ((set, seat), e) in entries {
        let faulted: u64 = e.faults.values().sum();
        let kinds: Vec<String> = e.faults.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let kinds = if kinds.is_empty() { String::new() } else { format!(" ({})", kinds.join(", ")) };
        let _ = writeln!(
            s,
            "  {set}[{seat}] {}: {} episodes, {faulted} faulted{kinds}, {} illegal answers",
            e.label, e.episodes, e.illegal
        );
    }
    s
}
