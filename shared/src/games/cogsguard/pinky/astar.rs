//! The path search toward a cell or an object (§13.6) as an A* search that gives exactly the
//! path of the breadth-first search it replaces, while looking at far fewer cells.
//!
//! The breadth-first search tries neighbours N, S, W, E and stops at the first target cell it
//! reaches. It reaches each cell first along the lexicographically smallest of its shortest
//! paths, read as a sequence of moves (by induction on the distance: cells leave its queue in
//! the order of those sequences), so its path leads to a nearest target, along the smallest
//! sequence of moves among all shortest paths to the nearest targets. That path is a function
//! of the distances to the targets alone: with D the distance from the start, walk from the
//! start, each time taking the first of N, S, W, E whose distance to the targets is one less.
//!
//! Those distances come from an A* search from the targets to the start, with the Manhattan
//! distance to the start as the (consistent) heuristic h: a cell leaves the open list with its
//! exact distance, and a cell of a shortest path from the start has g + h ≤ D, so once every
//! cell with g + h ≤ D has left the open list, each cell the walk looks at has its exact
//! distance or none (it is then on no shortest path). A distance equal to the one wanted is
//! exact anyway (g is never below the exact distance, which is at least D minus the steps
//! walked). A move changes g by one and h by one, so g + h takes the values F, F + 2, …: two
//! lists (this F, the next) are the whole priority queue. The start is entered like any cell:
//! a path through it to a target is longer than D, so no distance the walk reads changes.

use super::knowledge::Knowledge;

/// A target cell (set by the caller in the tier's copy of the pass grid).
pub const TARGET: u8 = 4;
/// The cell has a distance (g).
const SEEN: u8 = 8;
/// The cell left the open list: its distance is exact.
const CLOSED: u8 = 16;

/// The open lists of the search (buffers reused from search to search).
#[derive(Clone, Debug, Default)]
pub struct AStar {
    /// Cells with g + h = F.
    now: Vec<u32>,
    /// Cells with g + h = F + 2.
    later: Vec<u32>,
}

impl AStar {
    /// Sizes the lists for `n` cells (of the framed grid): each holds a cell at most once.
    pub fn reset(&mut self, n: usize) {
        for v in [&mut self.now, &mut self.later] {
            v.clear();
            v.reserve(n);
        }
    }

    /// (address, capacity) of every buffer, for the no-allocation check.
    /// The two lists trade places from search to search: listed by address.
    pub fn buffers(&self, out: &mut Vec<(usize, usize)>) {
        let mut lists = [&self.now, &self.later].map(|v| (v.as_ptr() as usize, v.capacity()));
        lists.sort_unstable();
        out.extend(lists);
    }

    /// The search from framed index `start` on `open` (the tier's copy of the pass grid: cells
    /// entered hold a bit of `enter`, targets carry [`TARGET`], the start and the cells never
    /// entered in this tier hold none of `enter`) toward the cell `aim` (framed index), whose
    /// targets are `aim` itself (`object` false) or its four neighbours (`object` true).
    /// `g` holds the distances (any content on entry). Fills `path` (first step first) and
    /// returns whether a target was reached: the path of the breadth-first search.
    #[allow(clippy::too_many_arguments)]
    pub fn search(
        &mut self,
        k: &Knowledge,
        open: &mut [u8],
        g: &mut [u32],
        start: usize,
        enter: u8,
        aim: usize,
        object: bool,
        path: &mut Vec<(u16, u16)>,
    ) -> bool {
        // Distances cut to the length of the grid copy: one bounds test covers a cell in both.
        let g = &mut g[..open.len()];
        let w = k.framed_width();
        let goal = (start / w, start % w);
        let h = |x: usize| (x / w).abs_diff(goal.0) + (x % w).abs_diff(goal.1);
        open[start] = enter;
        self.now.clear();
        self.later.clear();
        // The targets this tier enters, at distance 0; their h differ by 0 or 2 (an object's
        // four neighbours are two steps apart).
        let all = [aim - w, aim + w, aim - 1, aim + 1];
        let targets = if object { &all[..] } else { std::slice::from_ref(&aim) };
        let entered = |t: &&usize| open[**t] & enter != 0;
        let Some(mut f) = targets.iter().filter(entered).map(|&t| h(t)).min() else {
            return false;
        };
        for &t in targets {
            if open[t] & enter != 0 && open[t] & SEEN == 0 {
                open[t] |= SEEN;
                g[t] = 0;
                if h(t) == f {
                    self.now.push(t as u32);
                } else {
                    self.later.push(t as u32);
                }
            }
        }
        let mut reached = false;
        loop {
            while let Some(x) = self.now.pop() {
                let x = x as usize;
                let v = open[x];
                if v & CLOSED != 0 {
                    // Also in the next list, with the distance it had before a shorter one.
                    continue;
                }
                open[x] = v | CLOSED;
                reached |= x == start;
                self.expand(open, g, x, w, enter, goal, reached);
            }
            if reached {
                break;
            }
            if self.later.is_empty() {
                return false;
            }
            std::mem::swap(&mut self.now, &mut self.later);
            f += 2;
        }
        // Every cell with g + h ≤ f = D has left the open list: walk from the start.
        let d = g[start];
        debug_assert_eq!(d as usize, f);
        path.clear();
        let mut at = start;
        for left in (0..d).rev() {
            at = [at - w, at + w, at - 1, at + 1]
                .into_iter()
                .find(|&j| open[j] & SEEN != 0 && g[j] == left)
                .expect("a cell on a shortest path has a next one on it");
            path.push(k.unframed(at));
        }
        true
    }

    /// Looks at the four neighbours of the closed cell x: a cell not seen yet that this tier
    /// enters gets its distance and goes to the list of its g + h; a seen, open cell reached
    /// two steps shorter (the most a consistent h allows) moves to this F's list. Once the
    /// start is reached only this F's list is filled.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn expand(
        &mut self,
        open: &mut [u8],
        g: &mut [u32],
        x: usize,
        w: usize,
        enter: u8,
        goal: (usize, usize),
        done: bool,
    ) {
        let (xr, xc) = ((x as u32 / w as u32) as usize, (x as u32 % w as u32) as usize);
        let next = g[x] + 1;
        // Whether a move N, S, W, E brings the cell nearer to the goal (h − 1) or not (h + 1).
        let nearer = [xr > goal.0, xr < goal.0, xc > goal.1, xc < goal.1];
        let around = [x - w, x + w, x - 1, x + 1];
        for (j, near) in around.into_iter().zip(nearer) {
            let v = open[j];
            if v & SEEN == 0 {
                if v & enter != 0 {
                    open[j] = v | SEEN;
                    g[j] = next;
                    if near {
                        self.now.push(j as u32);
                    } else if !done {
                        self.later.push(j as u32);
                    }
                }
            } else if v & CLOSED == 0 && next < g[j] {
                g[j] = next;
                self.now.push(j as u32);
            }
        }
    }
}
