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

/// [`AStar`]'s `stamp` of a cell, minus the search's base: seen (it has a distance).
const SEEN: u32 = 0;
/// The cell left the open list: its distance is exact.
const CLOSED: u32 = 1;
/// The cell holds a visible agent: never entered in this tier.
const BLOCKED: u32 = 2;

/// The open lists and the cells' states of the search (buffers reused from search to search).
#[derive(Clone, Debug, Default)]
pub struct AStar {
    /// Cells with g + h = F.
    now: Vec<u32>,
    /// Cells with g + h = F + 2.
    later: Vec<u32>,
    /// Per cell: `base` + [`SEEN`], [`CLOSED`] or [`BLOCKED`] if the search of `base` set it;
    /// anything below `base` means not seen. A new base per search clears every cell at once,
    /// without a copy of the pass grid (which cost more than the search on large maps).
    stamp: Vec<u32>,
    base: u32,
}

impl AStar {
    /// Sizes the buffers for `n` cells (of the framed grid): each list holds a cell at most
    /// once.
    pub fn reset(&mut self, n: usize) {
        for v in [&mut self.now, &mut self.later] {
            v.clear();
            v.reserve(n);
        }
        // Stamps below the base mean not seen, whatever episode wrote them.
        self.stamp.resize(n, 0);
    }

    /// The two lists trade places from search to search: listed by address.
    pub fn buffers(&self, out: &mut Vec<(usize, usize)>) {
        let mut lists = [&self.now, &self.later].map(|v| (v.as_ptr() as usize, v.capacity()));
        lists.sort_unstable();
        out.extend(lists);
        out.push((self.stamp.as_ptr() as usize, self.stamp.capacity()));
    }

    /// The search from framed index `start` toward the cell `aim` (framed index), whose
    /// targets are `aim` itself (`object` false) or its four neighbours (`object` true), over
    /// the cells whose [`Knowledge::pass_grid`] holds a bit of `enter`, except the `blocked`
    /// ones (framed indices). `g` holds the distances (any content on entry). Fills `path`
    /// (first step first) and returns whether a target was reached: the path of the
    /// breadth-first search.
    #[allow(clippy::too_many_arguments)]
    pub fn search(
        &mut self,
        k: &Knowledge,
        g: &mut [u32],
        start: usize,
        enter: u8,
        blocked: &[u32],
        aim: usize,
        object: bool,
        path: &mut Vec<(u16, u16)>,
    ) -> bool {
        self.base = self.base.wrapping_add(4);
        if self.base == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.base = 4;
        }
        let base = self.base;
        // Buffers cut to the length of the pass grid: one bounds test covers a cell in all.
        let pass = k.pass_grid();
        let n = pass.len();
        let (g, stamp) = (&mut g[..n], &mut self.stamp[..n]);
        for &a in blocked {
            stamp[a as usize] = base + BLOCKED;
        }
        let w = k.framed_width();
        let goal = (start / w, start % w);
        let h = |x: usize| (x / w).abs_diff(goal.0) + (x % w).abs_diff(goal.1);
        self.now.clear();
        self.later.clear();
        // The targets this tier enters, at distance 0; their h differ by 0 or 2 (an object's
        // four neighbours are two steps apart).
        let all = [aim - w, aim + w, aim - 1, aim + 1];
        let targets = if object { &all[..] } else { std::slice::from_ref(&aim) };
        let entered = |t: usize, stamp: &[u32]| pass[t] & enter != 0 && stamp[t] != base + BLOCKED;
        let Some(mut f) = targets.iter().filter(|&&t| entered(t, stamp)).map(|&t| h(t)).min() else {
            return false;
        };
        for &t in targets {
            if entered(t, stamp) && stamp[t] != base + SEEN {
                stamp[t] = base + SEEN;
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
                if stamp[x] == base + CLOSED {
                    // Also in the next list, with the distance it had before a shorter one.
                    continue;
                }
                stamp[x] = base + CLOSED;
                reached |= x == start;
                // The four neighbours: a cell not seen yet that this tier enters (the start is
                // entered like any cell) gets its distance and goes to the list of its g + h; a
                // seen, open cell reached two steps shorter (the most a consistent h allows)
                // moves to this F's list. Once the start is reached only this F's list is
                // filled.
                let (xr, xc) = ((x as u32 / w as u32) as usize, (x as u32 % w as u32) as usize);
                let next = g[x] + 1;
                // Whether a move N, S, W, E brings the cell nearer to the start (h − 1).
                let nearer = [xr > goal.0, xr < goal.0, xc > goal.1, xc < goal.1];
                for (j, near) in [x - w, x + w, x - 1, x + 1].into_iter().zip(nearer) {
                    let state = stamp[j].wrapping_sub(base);
                    if state > BLOCKED {
                        if pass[j] & enter != 0 || j == start {
                            stamp[j] = base + SEEN;
                            g[j] = next;
                            if near {
                                self.now.push(j as u32);
                            } else if !reached {
                                self.later.push(j as u32);
                            }
                        }
                    } else if state == SEEN && next < g[j] {
                        g[j] = next;
                        self.now.push(j as u32);
                    }
                }
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
                .find(|&j| stamp[j].wrapping_sub(base) <= CLOSED && g[j] == left)
                .expect("a cell on a shortest path has a next one on it");
            path.push(k.unframed(at));
        }
        true
    }
}
