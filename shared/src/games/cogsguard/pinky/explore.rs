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
        // Each cell enters the queue at most once: a search writes it by index, no push.
        self.queue.clear();
        self.queue.resize(n, 0);
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
        // The buffers cut to the length of the pass grid: one bounds test then covers a cell
        // in all three.
        let pass = k.pass_grid();
        let n = pass.len();
        let (mark, queue) = (&mut self.mark[..n], &mut self.queue[..n]);
        mark[start] = g;
        queue[0] = start as u32;
        let (mut head, mut tail) = (0, 1);
        let w = k.framed_width();
        // Clockwise from north: N, E, S, W, as offsets; the expansion order starts at `first`.
        let around = [w.wrapping_neg(), 1, w, usize::MAX];
        let order = [0, 1, 2, 3].map(|t| around[(first + t) % 4]);
        while head < tail {
            let i = queue[head] as usize;
            head += 1;
            // is_frontier on the framed grid: free with an unknown neighbour (the frame is 0).
            let unknown = |d: usize| pass[i.wrapping_add(d)] == PASS_UNKNOWN;
            if pass[i] == PASS_FREE && (unknown(around[0]) || unknown(1) || unknown(w) || unknown(usize::MAX)) {
                self.frontiers.push(i as u32);
                let p = k.unframed(i);
                if eligible(p) {
                    return Some(p);
                }
            }
            // The four neighbours written out (the compiler does not unroll a loop over them).
            macro_rules! reach {
                ($d:expr) => {{
                    let j = i.wrapping_add($d);
                    if mark[j] != g && pass[j] == PASS_FREE {
                        mark[j] = g;
                        queue[tail] = j as u32;
                        tail += 1;
                    }
                }};
            }
            reach!(order[0]);
            reach!(order[1]);
            reach!(order[2]);
            reach!(order[3]);
        }
        self.failed = Some((k.pass_version(), start));
        None
    }
}
