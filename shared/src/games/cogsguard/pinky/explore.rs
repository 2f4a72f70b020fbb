//! The explore search (§13.8): breadth-first over cells believed free, expansion order
//! clockwise from [N, E, S, W][first], the first popped frontier that is eligible.
//!
//! It has visited marks of its own (not shared with the path searches), so that after a search
//! that found nothing, the marks still say which cells it reached. While no cell has changed
//! what a search may enter ([`Knowledge::pass_version`]), a search from any of those cells
//! reaches the same cells and meets the same frontiers: when none of those frontiers is
//! eligible now, it would find nothing again, and is not run. Otherwise it runs as always, so
//! every result is the one a fresh search gives.

use super::knowledge::{Knowledge, PASS_FREE, PASS_UNKNOWN};

/// Buffers and the memory of the last failed search.
#[derive(Clone, Debug, Default)]
pub struct Explore {
    mark: Vec<u32>,
    gen: u32,
    queue: Vec<u32>,
    /// Framed indices of the frontiers the last search popped, in order.
    frontiers: Vec<u32>,
    /// (pass version, start) of the last search if it found nothing; its region is the cells
    /// whose mark is `gen`.
    failed: Option<(u64, usize)>,
}

impl Explore {
    /// Clears per-episode state and sizes the buffers for `n` cells (of the framed grid).
    pub fn reset(&mut self, n: usize) {
        self.mark.clear();
        self.mark.resize(n, 0);
        self.gen = 0;
        self.queue.clear();
        self.queue.reserve(n);
        self.frontiers.clear();
        self.frontiers.reserve(n);
        self.failed = None;
    }

    /// (address, capacity) of every buffer, for the no-allocation check.
    pub fn buffers(&self, out: &mut Vec<(usize, usize)>) {
        for v in [&self.mark, &self.queue, &self.frontiers] {
            out.push((v.as_ptr() as usize, v.capacity()));
        }
    }

    /// Whether a search from framed index `start` would reach exactly the region of the last
    /// failed search: nothing a search may enter has changed since, and `start` is its start or
    /// a free cell of it (the region is then the free cells connected to `start`).
    fn same_region(&self, k: &Knowledge, start: usize) -> bool {
        self.failed.is_some_and(|(version, from)| {
            version == k.pass_version()
                && (start == from || (self.mark[start] == self.gen && k.pass_at(start) == PASS_FREE))
        })
    }

    /// The explore search from `pos` (see the module documentation).
    pub fn nearest_frontier(
        &mut self,
        k: &Knowledge,
        pos: (u16, u16),
        first: usize,
        mut eligible: impl FnMut((u16, u16)) -> bool,
    ) -> Option<(u16, u16)> {
        let start = k.framed(pos);
        if self.same_region(k, start) && !self.frontiers.iter().any(|&j| eligible(k.unframed(j as usize))) {
            // Unit tests (the golden fixtures, fingerprints and determinism tests among them)
            // check every remembered failure against a search on a copy.
            #[cfg(test)]
            assert_eq!(self.clone().search(k, start, first, &mut eligible), None, "a remembered failure would find");
            return None;
        }
        self.search(k, start, first, &mut eligible)
    }

    fn search(
        &mut self,
        k: &Knowledge,
        start: usize,
        first: usize,
        eligible: &mut impl FnMut((u16, u16)) -> bool,
    ) -> Option<(u16, u16)> {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.gen = 1;
        }
        let g = self.gen;
        self.failed = None;
        self.frontiers.clear();
        self.queue.clear();
        self.mark[start] = g;
        self.queue.push(start as u32);
        let w = k.framed_width();
        let mut head = 0;
        while let Some(&i) = self.queue.get(head) {
            head += 1;
            let i = i as usize;
            // Clockwise from north: N, E, S, W.
            let around = [i - w, i + 1, i + w, i - 1];
            // is_frontier on the framed grid: free with an unknown neighbour (the frame is 0).
            if k.pass_at(i) == PASS_FREE && around.iter().any(|&j| k.pass_at(j) == PASS_UNKNOWN) {
                self.frontiers.push(i as u32);
                let p = k.unframed(i);
                if eligible(p) {
                    return Some(p);
                }
            }
            for t in 0..4 {
                let j = around[(first + t) % 4];
                if self.mark[j] != g && k.pass_at(j) == PASS_FREE {
                    self.mark[j] = g;
                    self.queue.push(j as u32);
                }
            }
        }
        self.failed = Some((k.pass_version(), start));
        None
    }
}
