//! The cell rows of records files: what a summary sweep would have written, rebuilt from the
//! records (`coordinator summary FILE... --out CELLS`), each cell's records aggregated per block
//! on every core by the parallel reader and the blocks merged in file order.

use std::collections::{BTreeSet, HashMap};

use simfleet::aggregate::{differences, CellAggregate, SeedValue};
use simfleet::GameKind;

use crate::cell_order::Place;
use crate::records::summary_file::{merge_differences, CellDifference, CellRow};
use crate::sweep::Sweep;

/// The rows a summary sweep would have given, from records files
/// (`coordinator summary FILE... --out CELLS`): the records are decoded whole and aggregated per
/// block on every core by the parallel reader, and the blocks' aggregates merged in file order,
/// as a summary sweep merges its jobs' (counts exactly, moments to rounding).
pub fn rows_of_records(input: &crate::records::Input) -> anyhow::Result<Vec<CellRow>> {
    rows_of_records_blocks(input, crate::records::scan::BLOCK)
}

/// [`rows_of_records`] with the line formats read in blocks of `block` bytes.
fn rows_of_records_blocks(input: &crate::records::Input, block: usize) -> anyhow::Result<Vec<CellRow>> {
    Ok(rebuild(input, block)?.into_iter().map(|(row, _)| row).collect())
}

/// Every cell of records files with the job indexes of its records, in the sweep's order.
fn rebuild(input: &crate::records::Input, block: usize) -> anyhow::Result<Vec<(CellRow, BTreeSet<u64>)>> {
    use crate::records::scan::{self, Need};
    let need = Need { whole: true, ..Need::default() };
    // A partial trailing record is skipped; `summary` has warned of it already.
    let (cells, _) = scan::scan_blocks::<CellsScan>(input, need, scan::threads(), block)?;
    cells.rows_with_jobs()
}

/// The summary file `sweep`'s summary sweep (`collect = "summary"` for every cell) would have
/// written, from records of `sweep` (`coordinator summary RECORDS --out CELLS --sweep SWEEP`):
/// the summary sweep's id, each cell's count of the summary sweep's jobs whose seeds the records
/// hold, the cells in the sweep's order, and the paired differences of its paired cells
/// (`paired_of_records`). The aggregates are those of [`rows_of_records`].
pub fn rows_of_records_as(input: &crate::records::Input, sweep: &Sweep) -> anyhow::Result<Vec<CellRow>> {
    use simfleet::protocol::Collect;
    let summary = sweep.clone().with_collect(Some(Collect::Summary));
    let records = [sweep.clone(), sweep.clone().with_collect(Some(Collect::Records))];
    let mut placed = Vec::new();
    for (mut row, jobs) in rebuild(input, crate::records::scan::BLOCK)? {
        let Some(played) = records.iter().find(|s| s.id == row.sweep) else {
            anyhow::bail!(
                "{input} holds records of sweep {}, not of the sweep file given (its records sweep is {})",
                row.sweep,
                records[1].id
            );
        };
        let cell = summary
            .cells
            .iter()
            .position(|c| {
                c.game.as_str() == row.game && c.scenario == row.scenario && c.policy_set.name == row.policy_set
            })
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "the sweep file has no cell ({}, {:?}, {}) of the records",
                    row.game,
                    row.scenario,
                    row.policy_set
                )
            })?;
        let seeds = |s: &Sweep, job: u64| s.job(job).map(|j| j.seeds.start..j.seeds.start + j.seeds.count);
        let held: Vec<std::ops::Range<u64>> = jobs.iter().filter_map(|&j| seeds(played, j)).collect();
        row.jobs = summary
            .jobs_of_cell(cell)
            .filter_map(|j| seeds(&summary, j))
            .filter(|s| held.iter().any(|h| h.start < s.end && s.start < h.end))
            .count() as u64;
        row.sweep.clone_from(&summary.id);
        placed.push((cell, row));
    }
    placed.sort_by_key(|(cell, _)| *cell);
    let mut paired = paired_of_records(input, &summary)?;
    Ok(placed.into_iter().map(|(cell, row)| row.with_paired(std::mem::take(&mut paired[cell]))).collect())
}

/// The paired differences `summary`'s sweep would have written, from the per-seed values of
/// the records: for every group of two or more cells (the sets of one `[[cells]]` entry and
/// scenario), job by job (its seed chunk), the differences of its sets on those seeds, merged
/// into each cell in job order, as a summary job computes them and the collector merges them.
/// One value per seed is kept (24 bytes) of the cells of such groups only. A job whose seeds
/// the records do not all hold for every set adds nothing (a summary job is whole or absent).
fn paired_of_records(input: &crate::records::Input, summary: &Sweep) -> anyhow::Result<Vec<Vec<CellDifference>>> {
    let mut paired = vec![Vec::new(); summary.cells.len()];
    let groups: Vec<_> = summary.groups.iter().filter(|g| g.cells.len() > 1).collect();
    let mut of_key: HashMap<(&str, &str, &str), usize> = HashMap::new();
    for c in groups.iter().flat_map(|g| g.cells.clone()) {
        let cell = &summary.cells[c];
        of_key.insert((cell.game.as_str(), &cell.scenario, &cell.policy_set.name), c);
    }
    if of_key.is_empty() {
        return Ok(paired);
    }
    let mut values: Vec<Vec<SeedValue>> = vec![Vec::new(); summary.cells.len()];
    let columns = ["sweep", "job", "game", "scenario", "policy_set", "seed", "outcome", "team_reward"];
    input.for_each_row_of(Some(&columns), |row| {
        if let Some(&c) = of_key.get(&(row.game.as_str(), row.scenario.as_str(), row.policy_set.as_str())) {
            let win = summary.cells[c].game.info().win_outcome == Some(row.outcome.as_str());
            values[c].push(SeedValue { seed: row.seed, team_reward: row.team_reward, win });
        }
    })?;
    values.iter_mut().for_each(|v| v.sort_by_key(|s| s.seed));
    for g in groups {
        let win = summary.cells[g.cells.start].game.info().win_outcome.is_some();
        for job in g.first_job..g.first_job + g.jobs(summary.seeds) {
            let Some(seeds) = summary.job(job).map(|j| j.seeds) else { continue };
            let of_job = |v: &[SeedValue]| {
                let (from, to) = (
                    v.partition_point(|s| s.seed < seeds.start),
                    v.partition_point(|s| s.seed < seeds.start + seeds.count),
                );
                v[from..to].to_vec()
            };
            let sets: Vec<Vec<SeedValue>> = g.cells.clone().map(|c| of_job(&values[c])).collect();
            if sets.iter().any(|s| s.len() as u64 != seeds.count) {
                continue;
            }
            for d in differences(&sets, win) {
                let (a, b) = (g.cells.start + d.a as usize, g.cells.start + d.b as usize);
                let against = summary.cells[b].policy_set.name.clone();
                merge_differences(
                    &mut paired[a],
                    &[CellDifference { against, team_reward: d.team_reward, win: d.win }],
                );
            }
        }
    }
    Ok(paired)
}

/// One cell's aggregate as records are read.
#[derive(Debug)]
struct CellAcc {
    sweep: String,
    engine_version: String,
    jobs: BTreeSet<u64>,
    aggregate: CellAggregate,
}

/// The cells of a block of records, first seen first: mergeable in file order.
#[derive(Debug, Default)]
struct CellsScan {
    cells: indexmap::IndexMap<(String, String, String), CellAcc>,
    bad: Option<String>,
}

impl CellsScan {
    fn add_row(&mut self, row: crate::records::Row) {
        if self.bad.is_some() {
            return;
        }
        let game = match row.game.parse::<GameKind>() {
            Ok(g) => g,
            Err(e) => {
                self.bad = Some(e.to_string());
                return;
            }
        };
        let key = (row.game.clone(), row.scenario.clone(), row.policy_set.clone());
        let acc = self.cells.entry(key).or_insert_with(|| CellAcc {
            sweep: row.sweep.clone(),
            engine_version: row.engine_version.clone(),
            jobs: Default::default(),
            aggregate: CellAggregate::new(&game.info().buckets),
        });
        acc.jobs.insert(row.job);
        acc.aggregate.add(&row.into_record());
    }

    /// The rows with their records' job indexes, in the sweep's order (by first job).
    fn rows_with_jobs(self) -> anyhow::Result<Vec<(CellRow, BTreeSet<u64>)>> {
        if let Some(e) = self.bad {
            anyhow::bail!(e);
        }
        let mut rows: Vec<_> = self
            .cells
            .into_iter()
            .map(|((game, scenario, policy_set), a)| {
                let row = CellRow::new(
                    &a.sweep,
                    &game,
                    &a.engine_version,
                    &scenario,
                    &policy_set,
                    a.jobs.len() as u64,
                    a.aggregate,
                );
                (row, a.jobs)
            })
            .collect();
        crate::cell_order::sort(&mut rows, |(_, jobs)| Place::of_job(jobs.first().copied()));
        Ok(rows)
    }
}

impl crate::records::scan::Accumulate for CellsScan {
    fn add(&mut self, _: &crate::records::scan::ScanRow<'_>) {
        debug_assert!(false, "cell aggregates need whole rows: scan with Need::whole");
    }

    fn add_whole(&mut self, row: crate::records::Row) {
        self.add_row(row);
    }

    fn merge(&mut self, later: CellsScan) {
        if self.bad.is_some() {
            return;
        }
        if later.bad.is_some() {
            self.bad = later.bad;
            return;
        }
        for (key, acc) in later.cells {
            match self.cells.get_mut(&key) {
                Some(mine) => {
                    mine.jobs.extend(acc.jobs);
                    if let Err(e) = mine.aggregate.merge(&acc.aggregate) {
                        self.bad = Some(e.to_string());
                        return;
                    }
                }
                None => {
                    self.cells.insert(key, acc);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `a` and `b` (JSON of cell rows) equal, numbers to 1e-12 relative (or 1e-9 absolute, for
    /// sums of squared deviations that are zero up to rounding).
    fn close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
        use serde_json::Value;
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs()) || (x - y).abs() <= 1e-9
            }
            (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| close(x, y)),
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|((kx, x), (ky, y))| kx == ky && close(x, y))
            }
            _ => a == b,
        }
    }

    /// [`rows_of_records`] row at a time, one aggregate per cell: the reference of its equality
    /// test.
    fn rows_of_records_rows(input: &crate::records::Input) -> anyhow::Result<Vec<CellRow>> {
        let mut cells = CellsScan::default();
        input.for_each_row(|row| cells.add_row(row))?;
        Ok(cells.rows_with_jobs()?.into_iter().map(|(row, _)| row).collect())
    }

    #[test]
    fn parallel_cells_are_the_row_readers() {
        use crate::report::reads_tests::{results, write_all};
        let dir = tempfile::tempdir().unwrap();
        let mut files = write_all(dir.path(), &results());
        // A file cut in its last record: both skip it.
        let jsonl = files.iter().find(|p| p.extension().is_some_and(|e| e == "jsonl")).unwrap().clone();
        let bytes = std::fs::read(&jsonl).unwrap();
        let cut = dir.path().join("cut.jsonl");
        std::fs::write(&cut, &bytes[..bytes.len() - 9]).unwrap();
        files.push(cut);
        for path in &files {
            let input = crate::records::Input::file(path).unwrap();
            let want = rows_of_records_rows(&input).unwrap();
            assert!(want.len() >= 12 && want.iter().all(|r| r.aggregate.episodes > 0), "{}", path.display());
            for block in [700, 4096, crate::records::scan::BLOCK] {
                let got = rows_of_records_blocks(&input, block).unwrap();
                assert_eq!(got.len(), want.len());
                for (g, w) in got.iter().zip(&want) {
                    // Counts, outcomes, min and max exactly; means and squared deviations merged.
                    assert_eq!(g.aggregate.episodes, w.aggregate.episodes);
                    assert_eq!(g.aggregate.outcomes, w.aggregate.outcomes);
                    assert_eq!(g.aggregate.histograms, w.aggregate.histograms);
                    let (gj, wj) = (serde_json::to_value(g).unwrap(), serde_json::to_value(w).unwrap());
                    assert!(close(&gj, &wj), "{} block {block}:\n{gj}\nvs\n{wj}", path.display());
                }
            }
        }
    }
}
