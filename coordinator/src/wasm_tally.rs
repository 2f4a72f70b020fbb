//! Faults of `wasm:` entries per cell, from the records' `outside` stat: what `run` and `watch`
//! print after the summary table, as they print the model cells' fallbacks, so that a
//! tournament shows which entries lost decisions to their fallback and why.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use serde_json::Value;
use simfleet::protocol::Collect;

use crate::records::reader::for_each_row_of;
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

/// The table of `wasm:` entries of `sweep`'s records cells in records file `out`; empty when the
/// sweep has none.
pub fn table(sweep: &Sweep, out: &Path) -> anyhow::Result<String> {
    let mut entries: BTreeMap<(String, usize), Entry> = BTreeMap::new();
    for c in sweep.cells.iter().filter(|c| c.collect == Collect::Records) {
        for (seat, spec) in c.policy_set.seats.iter().enumerate() {
            if let Some(label) = simfleet::outside::wasm::label(spec) {
                entries.entry((c.policy_set.name.clone(), seat)).or_insert(Entry { label, ..Entry::default() });
            }
        }
    }
    if entries.is_empty() || !out.exists() {
        return Ok(String::new());
    }
    for_each_row_of(out, Some(&["policy_set", "stats.outside"]), |_, row| {
        let faults = row.stats.get("outside");
        for ((set, seat), e) in entries.iter_mut().filter(|((set, _), _)| *set == row.policy_set) {
            e.episodes += 1;
            let Some(f) = faults.and_then(|o| o.get(seat.to_string())) else { continue };
            e.illegal += f.get("illegal").and_then(Value::as_u64).unwrap_or(0);
            if let Some(kind) = f.get("fault").and_then(Value::as_str) {
                *e.faults.entry(kind.to_string()).or_default() += 1;
            }
            let _ = set;
        }
    })?;
    let mut s = String::from("\nwasm entries (episodes with a fault lose the rest of it to the fallback):\n");
    for ((set, seat), e) in &entries {
        let faulted: u64 = e.faults.values().sum();
        let kinds: Vec<String> = e.faults.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let kinds = if kinds.is_empty() { String::new() } else { format!(" ({})", kinds.join(", ")) };
        let _ = writeln!(
            s,
            "  {set}[{seat}] {}: {} episodes, {faulted} faulted{kinds}, {} illegal answers",
            e.label, e.episodes, e.illegal
        );
    }
    Ok(s)
}
