//! The one order of cells in every table and file the coordinator prints or writes (`run`,
//! `watch`, `results`, `summary`, `compare`, `report`, summary files): the sweep's, that is the
//! file order of its `[[cells]]` groups, within a group its scenarios, within a scenario its
//! policy sets, then its rankings ([docs/sweeps.md](../../docs/sweeps.md#expansion-order-and-job-indexes)).
//!
//! Jobs are numbered in that order, so a cell's [`Place`] is the index of its first job, which
//! every record carries: the order is the sweep's whether the definition is at hand or only a
//! results file, and whatever order the rows arrived in (a fleet writes jobs as their results
//! come). Cells of one job (a summary job's paired policy sets) and rows without a job index
//! (summary files, whose rows are written in the sweep's order) keep the order they came in:
//! the sort is stable.

/// Where a cell goes: the first job index of it seen; unknown ones go last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place(u64);

impl Place {
    /// A cell whose jobs are not known (a summary file's row).
    pub const UNKNOWN: Place = Place(u64::MAX);

    /// The place of a cell with a row of job `job` (`None`: unknown).
    pub fn of_job(job: Option<u64>) -> Place {
        job.map_or(Place::UNKNOWN, Place)
    }

    /// Keeps the earlier of this place and `other` (a cell is placed by its first job).
    pub fn earliest(&mut self, other: Place) {
        *self = (*self).min(other);
    }
}

impl Default for Place {
    fn default() -> Place {
        Place::UNKNOWN
    }
}

/// Sorts `items` into the sweep's order by their places, stably.
pub fn sort<T>(items: &mut [T], place: impl FnMut(&T) -> Place) {
    items.sort_by_key(place);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_go_by_first_job_and_ties_keep_their_order() {
        let mut p = Place::of_job(Some(7));
        p.earliest(Place::of_job(Some(3)));
        p.earliest(Place::UNKNOWN);
        assert_eq!(p, Place::of_job(Some(3)));
        let mut cells = vec![
            ("c", Place::of_job(Some(9))),
            ("a", Place::UNKNOWN),
            ("b", Place::of_job(Some(2))),
            ("d", Place::UNKNOWN),
            ("b2", Place::of_job(Some(2))),
        ];
        sort(&mut cells, |c| c.1);
        assert_eq!(cells.iter().map(|c| c.0).collect::<Vec<_>>(), ["b", "b2", "c", "a", "d"]);
    }
}
