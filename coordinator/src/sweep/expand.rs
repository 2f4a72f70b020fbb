//! From cells to jobs: which cells play together ([`Group`]), how many seeds each job plays,
//! the job indexes, and `--collect`, which turns a parsed sweep into the sweep a file saying so
//! would be.

use simfleet::policy::is_llm_spec;
use simfleet::protocol::Collect;
use simfleet::Spec;

use super::{default_episodes_per_job, Cell, Group, Sweep};

impl Sweep {
    /// Groups the cells, numbers the jobs and sets the id: what follows from the cells, done once
    /// they are parsed and again when their collect mode changes.
    ///
    /// A group of `n` paired cells plays `⌈episodes_per_job / n⌉` seeds of each of its sets per
    /// job, so that a job plays about `episodes_per_job` episodes whatever the number of sets.
    pub(super) fn expand(&mut self) {
        self.groups.clear();
        let mut next_job = 0;
        let mut start = 0;
        while start < self.cells.len() {
            let end = group_end(&self.cells, start);
            let sets = (end - start) as u64;
            // The cells of one entry and scenario have one size: the entry's, or the scenario's
            // default.
            let episodes_per_job = self.cells[start].episodes_per_job;
            let group =
                Group { cells: start..end, seeds_per_job: episodes_per_job.div_ceil(sets).max(1), first_job: next_job };
            for cell in &mut self.cells[start..end] {
                cell.paired = sets > 1;
                cell.group = self.groups.len();
            }
            next_job += group.jobs(self.seeds);
            self.groups.push(group);
            start = end;
        }
        self.set_id();
    }

    /// The sweep with every cell collecting `collect` (`--collect`), its jobs sized for that
    /// where the file leaves `episodes_per_job` to the default, and its id for that: the same
    /// sweep as a file saying `collect = …` at the top. `None` keeps it as it is.
    pub fn with_collect(mut self, collect: Option<Collect>) -> Sweep {
        if let Some(collect) = collect {
            self.collect_override = Some(collect);
            for c in &mut self.cells {
                c.collect = collect;
                if !c.explicit_episodes_per_job {
                    // The scenario parsed when the file was read.
                    let spec = Spec::parse(&c.scenario).expect("a validated scenario parses");
                    c.episodes_per_job = default_episodes_per_job(c.game, &spec, collect, &c.policy_set.seats);
                }
            }
            self.expand();
        }
        self
    }
}

/// Where the group that starts at cell `start` ends. Summary cells of the same `[[cells]]` group
/// (or ranking section) and scenario play together, but for cells with `llm` seats: their
/// episodes wait on a model and are played concurrently, one policy set at a time.
fn group_end(cells: &[Cell], start: usize) -> usize {
    let pairable = |c: &Cell| c.collect == Collect::Summary && !c.policy_set.seats.iter().any(|s| is_llm_spec(s));
    let first = &cells[start];
    if !pairable(first) {
        return start + 1;
    }
    let same = |c: &Cell| c.entry == first.entry && c.game == first.game && c.scenario == first.scenario;
    start + 1 + cells[start + 1..].iter().take_while(|c| same(c) && pairable(c)).count()
}
