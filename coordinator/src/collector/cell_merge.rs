//! [`CellTable`]: a sweep's results merged per cell, what `run` and `watch` keep when a sweep
//! collects summaries, and what becomes the rows of a summary file.
//!
//! Results may arrive in any order (a fleet), but floating-point merges are not associative: so
//! each cell merges its jobs' aggregates in job-index order, keeping those that arrive early
//! until the jobs before them are in. A job that failed is skipped in that order. The rows are
//! therefore the same bytes from `run` and from `watch`, whatever the arrival order.

use std::collections::BTreeMap;

use simfleet::aggregate::CellAggregate;
use simfleet::{GameKind, JobResult};

use crate::records::summary_file::{merge_differences, CellDifference, CellRow};
use crate::sweep::Sweep;

/// What one cell has merged so far.
#[derive(Debug)]
struct Slot {
    game: GameKind,
    scenario: String,
    policy_set: String,
    engine_version: String,
    /// The next job index to merge.
    next: u64,
    /// The index past the cell's last job.
    end: u64,
    /// What later jobs gave (or failures, `None`), waiting for `next`.
    early: BTreeMap<u64, Option<Part>>,
    merged: CellAggregate,
    /// The merged differences from the later policy sets of the cell's paired jobs.
    paired: Vec<CellDifference>,
    jobs: u64,
}

/// What one job gives one cell: its aggregate, and its differences from the later sets the job
/// played on the same seeds.
#[derive(Debug)]
struct Part {
    aggregate: CellAggregate,
    paired: Vec<CellDifference>,
}

impl Slot {
    fn put(&mut self, index: u64, part: Option<Part>) -> anyhow::Result<()> {
        self.early.insert(index, part);
        while let Some(p) = self.early.remove(&self.next) {
            if let Some(p) = p {
                self.merged.merge(&p.aggregate)?;
                merge_differences(&mut self.paired, &p.paired);
                self.jobs += 1;
            }
            self.next += 1;
        }
        Ok(())
    }
}

/// Per-cell aggregates of a sweep.
#[derive(Debug)]
pub struct CellTable {
    sweep: String,
    cells: Vec<Slot>,
}

impl CellTable {
    /// An empty table of `sweep`'s cells.
    pub fn new(sweep: &Sweep) -> CellTable {
        let cells = sweep
            .cells
            .iter()
            .enumerate()
            .map(|(i, c)| Slot {
                game: c.game,
                scenario: c.scenario.clone(),
                policy_set: c.policy_set.name.clone(),
                engine_version: simfleet::engine_version(c.game),
                next: sweep.jobs_of_cell(i).start,
                end: sweep.jobs_of_cell(i).end,
                early: BTreeMap::new(),
                merged: CellAggregate::new(&c.game.info().buckets),
                paired: Vec::new(),
                jobs: 0,
            })
            .collect();
        CellTable { sweep: sweep.id.clone(), cells }
    }

    /// Adds a played job's result (its summary, or the aggregate of its records); a failed
    /// result is skipped in the job order.
    pub fn accept_result(&mut self, sweep: &Sweep, result: &JobResult) -> anyhow::Result<()> {
        let cells = sweep.cells_of_job(result.index);
        if cells.is_empty() || cells.end > self.cells.len() {
            anyhow::bail!("job {} is not a job of sweep {}", result.index, sweep.id);
        }
        let slots = &mut self.cells[cells];
        if result.error.is_some() {
            return slots.iter_mut().try_for_each(|slot| slot.put(result.index, None));
        }
        if !result.engine_version.is_empty() {
            slots.iter_mut().for_each(|slot| slot.engine_version.clone_from(&result.engine_version));
        }
        // The job's first set, then its paired sets, in the order of the group's cells.
        let first = match &result.summary {
            Some(a) => (**a).clone(),
            None => CellAggregate::of_records(&slots[0].game.info().buckets, &result.records),
        };
        let paired = result.paired.iter().flat_map(|p| p.cells.iter().map(|c| c.summary.clone()));
        let mut aggregates = std::iter::once(first).chain(paired);
        // Set `a`'s differences from the later sets `b`, numbered as the slots are.
        let names: Vec<String> = slots.iter().map(|s| s.policy_set.clone()).collect();
        let differences = result.paired.as_deref().map_or(&[][..], |p| &p.differences[..]);
        for (i, slot) in slots.iter_mut().enumerate() {
            let Some(aggregate) = aggregates.next() else {
                anyhow::bail!("job {}'s result has no aggregate of {}", result.index, slot.policy_set);
            };
            let mut paired = Vec::new();
            for d in differences.iter().filter(|d| d.a as usize == i) {
                let Some(against) = names.get(d.b as usize) else {
                    anyhow::bail!("job {}'s result pairs set {} of {}", result.index, d.b, names.len());
                };
                let (team_reward, win) = (d.team_reward.clone(), d.win.clone());
                paired.push(CellDifference { against: against.clone(), team_reward, win });
            }
            slot.put(result.index, Some(Part { aggregate, paired }))?;
        }
        Ok(())
    }

    /// Skips job `index` (it failed without a result, e.g. it ran out of deliveries).
    pub fn skip(&mut self, sweep: &Sweep, index: u64) -> anyhow::Result<()> {
        let cells = sweep.cells_of_job(index);
        for slot in self.cells.get_mut(cells).into_iter().flatten() {
            if index >= slot.next && !slot.early.contains_key(&index) {
                slot.put(index, None)?;
            }
        }
        Ok(())
    }

    /// One row per cell with at least one episode, in the sweep's cell order. Aggregates still
    /// waiting for an earlier job (one that never came) are merged in job order after what is in.
    pub fn rows(&self) -> anyhow::Result<Vec<CellRow>> {
        let mut rows = Vec::new();
        for slot in &self.cells {
            let mut merged = slot.merged.clone();
            let mut paired = slot.paired.clone();
            let mut jobs = slot.jobs;
            for p in slot.early.values().flatten() {
                merged.merge(&p.aggregate)?;
                merge_differences(&mut paired, &p.paired);
                jobs += 1;
            }
            debug_assert!(slot.next <= slot.end);
            if merged.episodes > 0 {
                rows.push(
                    CellRow::new(
                        &self.sweep,
                        slot.game.as_str(),
                        &slot.engine_version,
                        &slot.scenario,
                        &slot.policy_set,
                        jobs,
                        merged,
                    )
                    .with_paired(paired),
                );
            }
        }
        Ok(rows)
    }
}

/// Where the summary file of a sweep goes: `out` itself when every cell collects summaries,
/// else beside it (`<stem>.cells.<ext>`), `out` keeping the records of the records cells.
pub fn summary_path(sweep: &Sweep, out: &std::path::Path) -> std::path::PathBuf {
    if sweep.cells.iter().all(|c| c.collect == simfleet::protocol::Collect::Summary) {
        return out.to_path_buf();
    }
    let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = out.extension().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    out.with_file_name(format!("{stem}.cells.{ext}"))
}

/// The summary table of a summary file's rows.
pub fn summary_of(rows: &[CellRow]) -> anyhow::Result<crate::summary::Summary> {
    let mut summary = crate::summary::Summary::default();
    for r in rows {
        summary.add_aggregate(&r.game, &r.engine_version, &r.scenario, &r.policy_set, &r.aggregate)?;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use simfleet::protocol::Collect;

    use super::*;

    const MIXED: &str = r#"
name = "mixed"
seeds = { start = 0, count = 50 }
episodes_per_job = 20

[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]

[[cells]]
game = "trolley"
scenarios = ["balanced_5p"]
collect = "summary"
[cells.policy_sets]
persuadable = ["persuadable", "persuadable", "persuadable", "persuadable", "persuadable"]
"#;

    #[test]
    fn a_mixed_sweep_writes_the_records_cells_rows_and_every_cells_summary_beside_them() {
        let dir = tempfile::tempdir().unwrap();
        let sweep = dir.path().join("mixed.toml");
        std::fs::write(&sweep, MIXED).unwrap();
        let out = dir.path().join("out.jsonl");
        let report = crate::embedded::play(&sweep, &out, Some(2), false, None).unwrap();
        let cells_path = dir.path().join("out.cells.jsonl");
        assert_eq!(report.cells, Some((cells_path.clone(), 2)));
        assert_eq!((report.records, report.episodes), (50, 100), "only the records cell has rows");
        let rows = crate::records::summary_file::read_cells(&cells_path).unwrap();
        assert_eq!(
            rows.iter().map(|r| (r.game.as_str(), r.jobs, r.episodes)).collect::<Vec<_>>(),
            [("bucket_brigade", 3, 50), ("trolley", 3, 50)]
        );
        // The records cell's row is the aggregate of its records, as `summary --out` makes it.
        let from_records = crate::rebuild::rows_of_records(&crate::records::Input::file(&out).unwrap()).unwrap();
        assert_eq!(from_records.len(), 1);
        assert_eq!(from_records[0].aggregate.episodes, rows[0].aggregate.episodes);
        assert_eq!(from_records[0].aggregate.histograms, rows[0].aggregate.histograms);
        assert_eq!(from_records[0].team_reward_max_seed, rows[0].team_reward_max_seed);
        // Every cell summary for a summary run; a records run has no summary file.
        let sweep = Sweep::load(&sweep).unwrap();
        assert_eq!(summary_path(&sweep.clone().with_collect(Some(Collect::Summary)), &out), out);
        assert!(!sweep.with_collect(Some(Collect::Records)).collects_summaries());
    }

    #[test]
    fn early_results_wait_for_the_jobs_before_them_and_failures_are_skipped() {
        let sweep = Sweep::parse(MIXED, "mixed.toml").unwrap();
        let env = simfleet::RunEnv::default();
        let results: Vec<JobResult> = sweep.jobs().map(|j| simfleet::run_job(&j, &env)).collect();
        let mut in_order = CellTable::new(&sweep);
        for r in &results {
            in_order.accept_result(&sweep, r).unwrap();
        }
        let want = in_order.rows().unwrap();
        // Every order of arrival of the 6 jobs: the same merge order, the same values.
        let orders = permutations(results.len());
        assert_eq!(orders.len(), 720);
        for order in &orders {
            let mut shuffled = CellTable::new(&sweep);
            for &i in order {
                shuffled.accept_result(&sweep, &results[i]).unwrap();
            }
            assert_eq!(shuffled.rows().unwrap(), want, "arrival order {order:?}");
        }
        // Job 0 failed, told at any point of any arrival of the others: its episodes are not counted.
        let mut once = None;
        for order in &orders {
            let mut with_failure = CellTable::new(&sweep);
            for &i in order {
                match i {
                    0 => with_failure.skip(&sweep, 0).unwrap(),
                    _ => with_failure.accept_result(&sweep, &results[i]).unwrap(),
                }
            }
            let rows = with_failure.rows().unwrap();
            assert_eq!((rows[0].jobs, rows[0].episodes), (2, 30), "the failed job's episodes are not counted");
            assert_eq!(rows[1], want[1], "the other cell is untouched");
            assert!(once.get_or_insert_with(|| rows.clone()) == &rows, "the same rows whenever the failure is told");
        }
    }

    /// Every order of `0..n`.
    fn permutations(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return vec![Vec::new()];
        }
        let mut out = Vec::new();
        for rest in permutations(n - 1) {
            for at in 0..=rest.len() {
                let mut p = rest.clone();
                p.insert(at, n - 1);
                out.push(p);
            }
        }
        out
    }
}
