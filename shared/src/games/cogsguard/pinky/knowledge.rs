//! Pinky's map knowledge (§13.5), built only from observations: per-cell kind, believed
//! alignment, last-seen step and extractor units, plus the derived safety queries.
//!
//! Friendly sources F (hubs and junctions believed cogs) and clips sources K (junctions believed
//! clips) are counted per cell in two cover grids updated when a belief changes, so `safe(p)`
//! and `drain(p)` are O(1) per call.

use crate::games::cogsguard::obs::{pack, Observation, VIEW, VIEW_RADIUS};
use crate::games::cogsguard::types::{cheb, obs_align, Kind};

use super::rows::rows_differ;

/// Knowledge kind of a never-seen cell.
pub const UNKNOWN: u8 = 0;
/// Knowledge kind of empty terrain without object.
pub const FREE: u8 = Kind::Empty as u8;
/// Aura radius used for safety and drain.
pub const AURA: u16 = 10;

/// Per-cell beliefs and the lists of known buildings.
#[derive(Clone, Debug, Default)]
pub struct Knowledge {
    /// Grid height.
    pub rows: u16,
    /// Grid width.
    pub cols: u16,
    /// Kind per cell: unknown, free, wall, or an object kind (3..=13).
    pub kind: Vec<u8>,
    /// Observation alignment per cell (0 none, 1 neutral, 2 cogs, 3 clips).
    pub align: Vec<u8>,
    /// Kind and alignment per cell as the observation packs them ([`pack`]), compared a window
    /// row at a time.
    packed: Vec<u16>,
    /// Step the cell was last seen (kept up to date for known junctions, the only cells read).
    pub seen: Vec<u32>,
    /// Extractor units per cell (kept up to date for known extractors, the only cells read).
    pub units: Vec<u16>,
    /// Number of friendly sources within Chebyshev 10 of each cell.
    friendly_cover: Vec<u16>,
    /// Number of clips sources within Chebyshev 10 of each cell.
    clips_cover: Vec<u16>,
    /// Known junction cells, in discovery order.
    pub junctions: Vec<(u16, u16)>,
    /// Known hub cells.
    pub hubs: Vec<(u16, u16)>,
    /// Known chest cells.
    pub chests: Vec<(u16, u16)>,
    /// Known extractor cells (depleted ones stay listed; check `kind`).
    pub extractors: Vec<(u16, u16)>,
    /// Known station per gear (aligner, scrambler, miner, scout).
    pub stations: [Option<(u16, u16)>; 4],
    /// What the searches may enter, on the grid framed by one ring of cells that hold 0, so a
    /// search needs no bounds test: [`PASS_FREE`], [`PASS_UNKNOWN`] or 0, at [`Knowledge::framed`].
    pass: Vec<u8>,
    /// Framed indices of the cells holding another visible agent this step.
    agents: Vec<u32>,
    /// Counts the changes of `pass` (never reset): equal counts ⇔ `pass` is as it was.
    pass_version: u64,
}

/// `pass` of a cell believed free.
pub const PASS_FREE: u8 = 1;
/// `pass` of a never-seen cell.
pub const PASS_UNKNOWN: u8 = 2;

impl Knowledge {
    /// Forgets everything, sized for a rows × cols grid (allocates only when the size grows).
    pub fn reset(&mut self, rows: u16, cols: u16) {
        let n = rows as usize * cols as usize;
        self.rows = rows;
        self.cols = cols;
        self.seen.clear();
        self.seen.resize(n, 0);
        self.kind.clear();
        self.kind.resize(n, UNKNOWN);
        self.align.clear();
        self.align.resize(n, 0);
        self.packed.clear();
        self.packed.resize(n, pack(UNKNOWN, 0));
        for v in [&mut self.units, &mut self.friendly_cover, &mut self.clips_cover] {
            v.clear();
            v.resize(n, 0);
        }
        // Reserved once for the whole grid so that discoveries never allocate mid-episode.
        for v in [&mut self.junctions, &mut self.hubs, &mut self.chests, &mut self.extractors] {
            v.clear();
            v.reserve(n);
        }
        let width = usize::from(cols) + 2;
        self.pass.clear();
        self.pass.resize(width * (usize::from(rows) + 2), 0);
        for r in 1..=usize::from(rows) {
            self.pass[r * width + 1..r * width + 1 + usize::from(cols)].fill(PASS_UNKNOWN);
        }
        self.agents.clear();
        self.agents.reserve(VIEW * VIEW);
        self.pass_version += 1;
        self.stations = [None; 4];
    }

    /// (address, capacity) of every buffer, for the no-allocation check.
    pub fn buffers(&self, out: &mut Vec<(usize, usize)>) {
        for v in [&self.kind, &self.align, &self.pass] {
            out.push((v.as_ptr() as usize, v.capacity()));
        }
        out.push((self.packed.as_ptr() as usize, self.packed.capacity()));
        for v in [&self.seen, &self.agents] {
            out.push((v.as_ptr() as usize, v.capacity()));
        }
        for v in [&self.units, &self.friendly_cover, &self.clips_cover] {
            out.push((v.as_ptr() as usize, v.capacity()));
        }
        for v in [&self.junctions, &self.hubs, &self.chests, &self.extractors] {
            out.push((v.as_ptr() as usize, v.capacity()));
        }
    }

    /// Row-major index.
    #[inline]
    pub fn idx(&self, p: (u16, u16)) -> usize {
        p.0 as usize * self.cols as usize + p.1 as usize
    }

    /// Width of the framed grid (`cols` + 2).
    #[inline]
    pub fn framed_width(&self) -> usize {
        usize::from(self.cols) + 2
    }

    /// Index of p on the framed grid of `pass`.
    #[inline]
    pub fn framed(&self, p: (u16, u16)) -> usize {
        (usize::from(p.0) + 1) * self.framed_width() + usize::from(p.1) + 1
    }

    /// The cell at a framed index (inside the grid).
    #[inline]
    pub fn unframed(&self, j: usize) -> (u16, u16) {
        let w = self.framed_width();
        ((j / w - 1) as u16, (j % w - 1) as u16)
    }

    /// What a search may enter at framed index j: [`PASS_FREE`], [`PASS_UNKNOWN`] or 0.
    #[inline]
    pub fn pass_at(&self, j: usize) -> u8 {
        self.pass[j]
    }

    /// [`Knowledge::pass_at`] of every framed index.
    #[inline]
    pub fn pass_grid(&self) -> &[u8] {
        &self.pass
    }

    /// A count of the changes to what the searches may enter: while it is the same, every
    /// [`Knowledge::pass_at`] is.
    #[inline]
    pub fn pass_version(&self) -> u64 {
        self.pass_version
    }

    /// Framed indices of the cells holding another visible agent this step.
    #[inline]
    pub fn agents(&self) -> &[u32] {
        &self.agents
    }

    /// Whether the cell is believed free.
    #[inline]
    pub fn is_free(&self, p: (u16, u16)) -> bool {
        self.kind[self.idx(p)] == FREE
    }

    /// Whether the cell is believed free or unknown.
    #[inline]
    pub fn free_or_unknown(&self, p: (u16, u16)) -> bool {
        let k = self.kind[self.idx(p)];
        k == FREE || k == UNKNOWN
    }

    /// Whether a visible agent (not self) stands on the cell this step: one of the few in
    /// the window, so a look through their list (a grid of marks cost a scattered store per
    /// agent and step, and its memory).
    #[inline]
    pub fn agent_here(&self, p: (u16, u16)) -> bool {
        let j = self.framed(p) as u32;
        self.agents.contains(&j)
    }

    fn is_f(&self, i: usize) -> bool {
        self.kind[i] == Kind::Hub as u8 || (self.kind[i] == Kind::Junction as u8 && self.align[i] == obs_align::COGS)
    }

    fn is_k(&self, i: usize) -> bool {
        self.kind[i] == Kind::Junction as u8 && self.align[i] == obs_align::CLIPS
    }

    fn cover(&mut self, p: (u16, u16), friendly: bool, delta: i32) {
        let (r0, r1) = (p.0.saturating_sub(AURA), (p.0 + AURA).min(self.rows - 1));
        let (c0, c1) = (p.1.saturating_sub(AURA), (p.1 + AURA).min(self.cols - 1));
        let grid = if friendly { &mut self.friendly_cover } else { &mut self.clips_cover };
        for r in r0..=r1 {
            let base = r as usize * self.cols as usize;
            for c in c0..=c1 {
                let v = &mut grid[base + c as usize];
                *v = (i32::from(*v) + delta) as u16;
            }
        }
    }

    /// Overwrites every cell of the 11×11 window with what the observation shows (§13.5).
    ///
    /// Only kind and alignment are compared cell by cell, and learnt (row by row, west to
    /// east) where they changed. The last-seen step and the extractor units are read back only
    /// for junctions and extractors (`stale_junction`, `usable_extractor`), so they are written
    /// only for the known ones inside the window, after the scan: the same values the whole
    /// window's rewrite gave those cells.
    pub fn update(&mut self, o: &Observation) {
        if self.rows != o.map_rows || self.cols != o.map_cols || self.kind.is_empty() {
            self.reset(o.map_rows, o.map_cols);
        }
        self.agents.clear();
        let s = o.step;
        let (rows, cols) = (i32::from(self.rows), i32::from(self.cols));
        let (pr, pc) = (i32::from(o.pos.0), i32::from(o.pos.1));
        let radius = VIEW_RADIUS as i32;
        // Window rows i and columns j whose map row pr − 5 + i and column pc − 5 + j lie inside
        // the grid.
        let (i0, i1) = ((radius - pr).max(0) as usize, (rows - pr + radius).clamp(0, VIEW as i32) as usize);
        let j0 = (radius - pc).max(0) as usize;
        let j1 = (cols - pc + radius).min(VIEW as i32).max(0) as usize;
        if j0 >= j1 {
            return;
        }
        let (width, n) = (cols as usize, j1 - j0);
        // Map column of window column 0 (negative near the west edge; only in-grid columns are
        // read or written).
        let left = pc - radius;
        let c0 = (left + j0 as i32) as usize;
        for i in i0..i1 {
            let r = (pr - radius + i as i32) as usize;
            let base = r * width + c0;
            let seen = &o.packed[i][j0..j1];
            // In-grid cells are never out_of_bounds, so the kind is compared as it comes. Most
            // rows look as they did last time (only a change of kind or alignment can add a
            // building to a list or move a source in or out of F and K): kind and alignment
            // packed side by side, a row is one comparison; only rows that differ are looked at
            // cell by cell. Learning a cell changes no other cell's kind or alignment, so each
            // is learnt as soon as it is found, in the same order as after a whole scan.
            let known = &self.packed[base..base + n];
            let differs = match (<&[u16; VIEW]>::try_from(seen), <&[u16; VIEW]>::try_from(known)) {
                (Ok(seen), Ok(known)) => rows_differ(seen, known),
                _ => seen != known,
            };
            if differs {
                for (jj, &shown) in seen.iter().enumerate() {
                    if shown != self.packed[base + jj] {
                        let cell = &o.cells[i][j0 + jj];
                        self.learn((r as u16, (c0 + jj) as u16), base + jj, cell.kind, cell.align);
                    }
                }
            }
            // The agents of the row, west to east; the agent's own cell shows itself, not
            // another agent. Cells outside the grid never show an agent.
            let mut bits = o.agent_cols[i] & !(u16::from(i == VIEW_RADIUS) << VIEW_RADIUS);
            while bits != 0 {
                let c = (left + bits.trailing_zeros() as i32) as usize;
                bits &= bits - 1;
                self.agents.push(((r + 1) * (width + 2) + c + 1) as u32);
            }
        }
        // Within 5 of the agent in both coordinates: (p − pos + 5) mod 2¹⁶ ≤ 10 (no branch).
        let (top, west) = (o.pos.0.wrapping_sub(VIEW_RADIUS as u16), o.pos.1.wrapping_sub(VIEW_RADIUS as u16));
        let near = |p: (u16, u16)| {
            (p.0.wrapping_sub(top) <= 2 * VIEW_RADIUS as u16) & (p.1.wrapping_sub(west) <= 2 * VIEW_RADIUS as u16)
        };
        for &p in &self.junctions {
            if near(p) {
                self.seen[usize::from(p.0) * width + usize::from(p.1)] = s;
            }
        }
        for &p in &self.extractors {
            if near(p) {
                let cell = &o.cells[usize::from(p.0.wrapping_sub(top))][usize::from(p.1.wrapping_sub(west))];
                self.units[usize::from(p.0) * width + usize::from(p.1)] = cell.amount;
            }
        }
    }

    /// Records a changed cell: building lists and the F/K cover grids.
    fn learn(&mut self, p: (u16, u16), idx: usize, kind: u8, align: u8) {
        let (was_f, was_k, old) = (self.is_f(idx), self.is_k(idx), self.kind[idx]);
        if old != kind {
            match Kind::from_u8(kind) {
                Kind::Junction => self.junctions.push(p),
                Kind::Hub => self.hubs.push(p),
                Kind::Chest => self.chests.push(p),
                k if k.element().is_some() => self.extractors.push(p),
                k => {
                    if let Some(g) = k.station_gear() {
                        self.stations[g as usize - 1] = Some(p);
                    }
                }
            }
        }
        self.kind[idx] = kind;
        self.align[idx] = align;
        self.packed[idx] = pack(kind, align);
        let framed = self.framed(p);
        let pass = match kind {
            FREE => PASS_FREE,
            UNKNOWN => PASS_UNKNOWN,
            _ => 0,
        };
        self.pass_version += u64::from(self.pass[framed] != pass);
        self.pass[framed] = pass;
        let (is_f, is_k) = (self.is_f(idx), self.is_k(idx));
        if is_f != was_f {
            self.cover(p, true, if is_f { 1 } else { -1 });
        }
        if is_k != was_k {
            self.cover(p, false, if is_k { 1 } else { -1 });
        }
    }

    /// safe(p) ⇔ cheb(p, f) ≤ 10 for some f ∈ F.
    #[inline]
    pub fn safe(&self, p: (u16, u16)) -> bool {
        self.friendly_cover[self.idx(p)] > 0
    }

    /// drain(p) = 1 + |{k ∈ K : cheb(p, k) ≤ 10}|.
    #[inline]
    pub fn drain(&self, p: (u16, u16)) -> i64 {
        1 + i64::from(self.clips_cover[self.idx(p)])
    }

    /// Friendly sources F: hubs, then junctions believed cogs.
    pub fn friendly(&self) -> impl Iterator<Item = (u16, u16)> + '_ {
        self.hubs.iter().copied().chain(self.junctions_with(obs_align::COGS))
    }

    /// Known junctions whose believed alignment is `align` (observation encoding).
    pub fn junctions_with(&self, align: u8) -> impl Iterator<Item = (u16, u16)> + '_ {
        self.junctions.iter().copied().filter(move |&p| self.align[self.idx(p)] == align)
    }

    /// out(p) = max(0, min over F of cheb(p, f) − 10), or 1000 when F is empty.
    pub fn out(&self, p: (u16, u16)) -> i64 {
        if self.safe(p) {
            return 0;
        }
        // Plain loops with the alignment test as a select (no iterator chain): the judges call
        // this for every candidate target.
        let mut best = u16::MAX;
        for &f in &self.hubs {
            best = best.min(cheb(p, f));
        }
        for &j in &self.junctions {
            let d = if self.align[self.idx(j)] == obs_align::COGS { cheb(p, j) } else { u16::MAX };
            best = best.min(d);
        }
        if best == u16::MAX {
            1000
        } else {
            (i64::from(best) - i64::from(AURA)).max(0)
        }
    }

    /// Whether p is a frontier: free with an unknown in-grid 4-neighbour.
    pub fn is_frontier(&self, p: (u16, u16)) -> bool {
        let (j, w) = (self.framed(p), self.framed_width());
        // The frame holds 0: cells outside the grid are never unknown.
        self.pass[j] == PASS_FREE && [j - w, j + w, j - 1, j + 1].iter().any(|&i| self.pass[i] == PASS_UNKNOWN)
    }

    /// Whether a usable extractor (last seen with units > 0) stands at p.
    pub fn usable_extractor(&self, p: (u16, u16)) -> bool {
        let i = self.idx(p);
        Kind::from_u8(self.kind[i]).element().is_some() && self.units[i] > 0
    }

    /// Whether any clips source is within Chebyshev `d` of p.
    pub fn clips_within(&self, p: (u16, u16), d: u16) -> bool {
        self.junctions_with(obs_align::CLIPS).any(|k| cheb(k, p) <= d)
    }
}
