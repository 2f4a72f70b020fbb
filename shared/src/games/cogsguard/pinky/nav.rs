//! Pinky's navigation (§13.6): tiered BFS paths with a path cache, the explore frontier search
//! (`explore.rs`), and the stuck escape. Buffers are allocated once (at the first step) and
//! reused.

use crate::games::cogsguard::types::action;
use crate::seeding::Stream;

use super::astar::AStar;
use super::explore::Explore;
use super::knowledge::{Knowledge, PASS_FREE, PASS_UNKNOWN};

/// The bit of [`Nav`]'s `open` copy marking a target cell (not a [`Knowledge::pass_at`] bit).
const TARGET: u8 = 4;

/// What a path leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Stand on this cell.
    Cell((u16, u16)),
    /// Stand 4-adjacent to this object (then moving into it is a bump).
    Object((u16, u16)),
    /// Stand on any safe cell.
    Safe,
}

/// The next step toward a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavStep {
    /// Move (a travel step) with this action.
    Move(u8),
    /// Adjacent to the object target: this action bumps it.
    Bump(u8),
    /// The first step holds an agent (tier 3): wait with `noop`.
    Wait,
    /// Already on the target cell (or safe, for [`Target::Safe`]).
    Arrived,
    /// No path in any tier.
    NoPath,
}

/// The move action from a to an adjacent b.
pub fn dir_to(a: (u16, u16), b: (u16, u16)) -> u8 {
    match (i32::from(b.0) - i32::from(a.0), i32::from(b.1) - i32::from(a.1)) {
        (-1, 0) => action::MOVE_NORTH,
        (1, 0) => action::MOVE_SOUTH,
        (0, -1) => action::MOVE_WEST,
        (0, 1) => action::MOVE_EAST,
        _ => action::NOOP,
    }
}

/// The cell a move action leads to, if in the grid.
pub fn step_cell(k: &Knowledge, p: (u16, u16), a: u8) -> Option<(u16, u16)> {
    let (dr, dc) = action::delta(a)?;
    let (r, c) = (i32::from(p.0) + dr, i32::from(p.1) + dc);
    (r >= 0 && c >= 0 && r < i32::from(k.rows) && c < i32::from(k.cols)).then_some((r as u16, c as u16))
}

/// Navigation state: search buffers, path cache, stuck detection and escape.
#[derive(Clone, Debug, Default)]
pub struct Nav {
    /// A path search's copy of [`Knowledge::pass_grid`]: entering a cell clears it, so a
    /// visited cell needs no mark of its own; target cells carry [`TARGET`].
    open: Vec<u8>,
    parent: Vec<u32>,
    queue: Vec<u32>,
    path: Vec<(u16, u16)>,
    next: usize,
    path_target: Option<Target>,
    expect: (u16, u16),
    history: [(u16, u16); 6],
    hist_len: usize,
    unchanged: u8,
    pending: Option<(u16, u16)>,
    escape_left: u8,
    escape_dirs: [u8; 3],
    explore: Explore,
    astar: AStar,
}

impl Nav {
    /// Clears per-episode state and sizes the buffers for `n` cells (of the framed grid).
    pub fn reset(&mut self, n: usize) {
        self.open.clear();
        self.open.reserve(n);
        self.parent.clear();
        self.parent.resize(n, 0);
        // Each cell enters the queue at most once: a search writes it by index, no push.
        self.queue.clear();
        self.queue.resize(n, 0);
        self.path.clear();
        self.path.reserve(n);
        self.explore.reset(n);
        self.astar.reset(n);
        self.clear_cache();
        self.clear_history();
        self.pending = None;
        self.escape_left = 0;
    }

    /// (address, capacity) of every buffer, for the no-allocation check.
    pub fn buffers(&self, out: &mut Vec<(usize, usize)>) {
        out.push((self.open.as_ptr() as usize, self.open.capacity()));
        for v in [&self.parent, &self.queue] {
            out.push((v.as_ptr() as usize, v.capacity()));
        }
        out.push((self.path.as_ptr() as usize, self.path.capacity()));
        self.explore.buffers(out);
        self.astar.buffers(out);
    }

    /// Drops the cached path.
    pub fn clear_cache(&mut self) {
        self.path.clear();
        self.next = 0;
        self.path_target = None;
    }

    fn clear_history(&mut self) {
        self.hist_len = 0;
        self.unchanged = 0;
    }

    fn cache_ok(&self, k: &Knowledge, pos: (u16, u16), target: Target) -> bool {
        self.path_target == Some(target)
            && self.next < self.path.len()
            && pos == self.expect
            && self.path[self.next..].iter().all(|&p| k.free_or_unknown(p))
            && !k.agent_here(self.path[self.next])
    }

    fn is_target(k: &Knowledge, p: (u16, u16), target: Target) -> bool {
        match target {
            Target::Cell(c) => p == c,
            Target::Object(o) => crate::games::cogsguard::types::man(p, o) == 1,
            Target::Safe => k.safe(p),
        }
    }

    /// One BFS tier: 1 free avoiding agents, 2 free/unknown avoiding agents, 3 free/unknown.
    /// Fills the path (first step first) and returns whether a target was reached.
    fn bfs(&mut self, k: &Knowledge, pos: (u16, u16), target: Target, tier: u8) -> bool {
        match target {
            Target::Cell(c) => self.aimed(k, pos, tier, c, false),
            Target::Object(o) => self.aimed(k, pos, tier, o, true),
            Target::Safe => self.bfs_to(k, pos, tier, &[], |j| k.safe(k.unframed(j))),
        }
    }

    /// The search of [`Nav::bfs`] toward a cell or an object, as the A* search of `astar.rs`
    /// (the same path as the breadth-first search, from far fewer cells).
    fn aimed(&mut self, k: &Knowledge, pos: (u16, u16), tier: u8, aim: (u16, u16), object: bool) -> bool {
        // Unit tests (the golden fixtures, fingerprints and determinism tests among them)
        // check every search against the breadth-first search on a copy.
        #[cfg(test)]
        let mut bfs = {
            let (t, w) = (k.framed(aim), k.framed_width());
            let targets = if object { vec![t - w, t + w, t - 1, t + 1] } else { vec![t] };
            let mut copy = self.clone();
            let found = copy.bfs_to(k, pos, tier, &targets, |_| false);
            (found, copy.path)
        };
        let enter = if tier > 1 { PASS_FREE | PASS_UNKNOWN } else { PASS_FREE };
        // Cells holding a visible agent are never entered below tier 3.
        let blocked = if tier < 3 { k.agents() } else { &[] };
        let (start, aim) = (k.framed(pos), k.framed(aim));
        let found = self.astar.search(k, &mut self.parent, start, enter, blocked, aim, object, &mut self.path);
        #[cfg(test)]
        {
            if !bfs.0 {
                bfs.1 = self.path.clone();
            }
            assert_eq!((found, &self.path), (bfs.0, &bfs.1), "A* and breadth-first search differ");
        }
        found
    }

    /// A tier's copy of the pass grid in `open`: targets carry [`TARGET`]; the start and (below
    /// tier 3) the cells holding a visible agent are never entered. Returns the pass bits the
    /// tier enters.
    fn prepare(&mut self, k: &Knowledge, start: usize, tier: u8, targets: &[usize]) -> u8 {
        let enter = if tier > 1 { PASS_FREE | PASS_UNKNOWN } else { PASS_FREE };
        self.open.clear();
        self.open.extend_from_slice(k.pass_grid());
        for &t in targets {
            self.open[t] |= TARGET;
        }
        // The start is reached already; cells holding a visible agent are never entered
        // below tier 3.
        self.open[start] = 0;
        if tier < 3 {
            for &a in k.agents() {
                self.open[a as usize] = 0;
            }
        }
        enter
    }

    /// The breadth-first search on the framed grid (no bounds test per neighbour),
    /// neighbours in N, S, W, E order, each cell tested for the target when it is first
    /// reached: one of `targets` (framed indices) or a cell `is_target` accepts.
    fn bfs_to(
        &mut self,
        k: &Knowledge,
        pos: (u16, u16),
        tier: u8,
        targets: &[usize],
        is_target: impl Fn(usize) -> bool,
    ) -> bool {
        let start = k.framed(pos);
        let w = k.framed_width();
        let enter = self.prepare(k, start, tier, targets);
        self.queue[0] = start as u32;
        let (mut head, mut tail) = (0, 1);
        // One neighbour j of i: entered if open in this tier; the path when it is a target.
        macro_rules! reach {
            ($i:expr, $j:expr) => {{
                let (i, j) = ($i, $j);
                let v = self.open[j];
                if v & enter != 0 {
                    self.open[j] = 0;
                    self.parent[j] = i as u32;
                    if v & TARGET != 0 || is_target(j) {
                        self.path.clear();
                        let mut at = j;
                        while at != start {
                            self.path.push(k.unframed(at));
                            at = self.parent[at] as usize;
                        }
                        self.path.reverse();
                        return true;
                    }
                    self.queue[tail] = j as u32;
                    tail += 1;
                }
            }};
        }
        while head < tail {
            let i = self.queue[head] as usize;
            head += 1;
            // N, S, W, E (written out: the compiler does not unroll the loop over an array).
            reach!(i, i - w);
            reach!(i, i + w);
            reach!(i, i - 1);
            reach!(i, i + 1);
        }
        false
    }

    /// The next step from `pos` toward `target` (§13.6), using the cache when it still holds.
    pub fn toward(&mut self, k: &Knowledge, pos: (u16, u16), target: Target) -> NavStep {
        match target {
            Target::Object(o) if crate::games::cogsguard::types::man(pos, o) == 1 => {
                return NavStep::Bump(dir_to(pos, o))
            }
            Target::Cell(c) if c == pos => return NavStep::Arrived,
            Target::Safe if k.safe(pos) => return NavStep::Arrived,
            _ => {}
        }
        if !self.cache_ok(k, pos, target) {
            self.clear_cache();
            let found = (1..=3).any(|tier| self.bfs(k, pos, target, tier));
            if !found {
                return NavStep::NoPath;
            }
            self.path_target = Some(target);
            self.next = 0;
        }
        let step = self.path[self.next];
        if k.agent_here(step) {
            // Only tier 3 paths go through agents: wait for the cell to clear.
            self.path_target = None;
            return NavStep::Wait;
        }
        self.expect = step;
        self.next += 1;
        NavStep::Move(dir_to(pos, step))
    }

    /// The move just planned was not taken (energy gate): stay on the cached path.
    pub fn undo(&mut self, pos: (u16, u16)) {
        if self.path_target.is_some() && self.next > 0 && self.expect == self.path[self.next - 1] {
            self.next -= 1;
            self.expect = pos;
        }
    }

    /// The last cell of a path to the nearest target cell (e.g. the nearest safe cell).
    pub fn find(&mut self, k: &Knowledge, pos: (u16, u16), target: Target) -> Option<(u16, u16)> {
        if Self::is_target(k, pos, target) {
            return Some(pos);
        }
        let found = (1..=3).any(|tier| self.bfs(k, pos, target, tier));
        let end = self.path.last().copied();
        self.clear_cache();
        if found {
            end
        } else {
            None
        }
    }

    /// The explore search (§13.8): see [`Explore`].
    pub fn nearest_frontier(
        &mut self,
        k: &Knowledge,
        pos: (u16, u16),
        first: usize,
        eligible: impl FnMut((u16, u16)) -> bool,
    ) -> Option<(u16, u16)> {
        self.explore.nearest_frontier(k, pos, first, eligible)
    }

    /// Stuck bookkeeping at the start of a step: did the last travel step move us?
    pub fn observe(&mut self, pos: (u16, u16)) {
        if let Some(from) = self.pending.take() {
            if from == pos {
                self.unchanged = self.unchanged.saturating_add(1);
            } else {
                self.unchanged = 0;
            }
        }
    }

    /// Whether an escape is under way.
    pub fn escaping(&self) -> bool {
        self.escape_left > 0
    }

    /// Records a travel step from `pos` in direction `dir`; returns true when the agent is stuck
    /// (3 travel steps left `pos` unchanged, or the last 6 alternate between 2 cells), in which
    /// case an escape starts (one `chance(0.5)` draw picks the perpendicular side).
    pub fn travel(&mut self, pos: (u16, u16), dir: u8, rng: &mut Stream) -> bool {
        self.history.copy_within(1.., 0);
        self.history[5] = pos;
        self.hist_len = (self.hist_len + 1).min(6);
        let h = &self.history;
        let alternating =
            self.hist_len == 6 && h[0] != h[1] && h[0] == h[2] && h[2] == h[4] && h[1] == h[3] && h[3] == h[5];
        if self.unchanged >= 3 || alternating {
            let (p1, p2, back) = match dir {
                action::MOVE_NORTH | action::MOVE_SOUTH => {
                    (action::MOVE_WEST, action::MOVE_EAST, if dir == action::MOVE_NORTH { 2 } else { 1 })
                }
                _ => (action::MOVE_NORTH, action::MOVE_SOUTH, if dir == action::MOVE_WEST { 4 } else { 3 }),
            };
            let (a, b) = if rng.chance(0.5) { (p1, p2) } else { (p2, p1) };
            self.escape_dirs = [a, b, back];
            self.escape_left = 4;
            self.clear_history();
            self.clear_cache();
            self.pending = None;
            return true;
        }
        self.pending = Some(pos);
        false
    }

    /// One escape step: the first of (perpendicular, other perpendicular, opposite) leading into
    /// a cell believed free with no visible agent, else `noop`. Ends the escape after 4 steps.
    pub fn escape_step(&mut self, k: &Knowledge, pos: (u16, u16)) -> u8 {
        self.escape_left = self.escape_left.saturating_sub(1);
        let a = self
            .escape_dirs
            .into_iter()
            .find(|&d| step_cell(k, pos, d).is_some_and(|q| k.is_free(q) && !k.agent_here(q)))
            .unwrap_or(action::NOOP);
        if self.escape_left == 0 {
            self.clear_cache();
            self.clear_history();
        }
        a
    }
}
