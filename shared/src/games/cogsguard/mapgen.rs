//! Seeded map generation for `arena` and `machina` (§4.2–§4.4). Every draw comes from the map
//! stream, in the spec's order, so two policy sets on one seed play the same map.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::seeding::{Stream, MAP_STREAM};

use super::layout::{LCell, Layout};
use super::types::{Align, Kind};

/// Size parameters of a generated map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenParams {
    /// Interior height H.
    pub rows: u16,
    /// Interior width W.
    pub cols: u16,
    /// Border width b.
    pub border: u16,
    /// Building samples per thousand interior cells.
    pub coverage_permille: u32,
    /// Number of agents (spawn pads).
    pub num_agents: usize,
}

/// The base (§4.3) as offsets from its centre: every object but the walls.
pub const BASE_OBJECTS: [((i32, i32), Kind, Align); 12] = [
    ((0, 0), Kind::Hub, Align::Cogs),
    ((-3, 0), Kind::Junction, Align::Neutral),
    ((3, 0), Kind::Chest, Align::Cogs),
    ((5, 4), Kind::Chest, Align::Cogs),
    ((5, -4), Kind::AlignerStation, Align::Cogs),
    ((5, -2), Kind::ScramblerStation, Align::Cogs),
    ((5, 0), Kind::MinerStation, Align::Cogs),
    ((5, 2), Kind::ScoutStation, Align::Cogs),
    ((-8, -8), Kind::CarbonExtractor, Align::Neutral),
    ((-8, 8), Kind::OxygenExtractor, Align::Neutral),
    ((8, -8), Kind::GermaniumExtractor, Align::Neutral),
    ((8, 8), Kind::SiliconExtractor, Align::Neutral),
];

/// Spawn pad candidates in order (offsets from the base centre, §4.3).
pub fn pad_candidates() -> impl Iterator<Item = (i32, i32)> {
    let first = [(-2, 0), (0, 2), (2, 0), (0, -2)];
    let rings = (3..=5).flat_map(|k| [(0, -k), (0, k), (-k, 0), (k, 0), (-k, -k), (-k, k), (k, -k), (k, k)]);
    first.into_iter().chain(rings)
}

/// Reusable buffers of the generator.
#[derive(Clone, Debug, Default)]
pub struct MapGen {
    centres: Vec<(u16, u16)>,
    reached: Vec<bool>,
    stack: Vec<usize>,
    dist: Vec<u32>,
    parent: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, u16, u16)>>,
}

impl MapGen {
    /// Generates the map of `seed` into `layout`.
    pub fn generate(&mut self, layout: &mut Layout, seed: u64, p: &GenParams) {
        let mut rng = Stream::new(seed, MAP_STREAM);
        let (h, w, b) = (p.rows as i32, p.cols as i32, p.border as i32);
        layout.reset((h + 2 * b) as u16, (w + 2 * b) as u16);
        let interior = |r: i32, c: i32| r >= b && r < b + h && c >= b && c < b + w;
        // 1. Border wall.
        for r in 0..layout.rows {
            for c in 0..layout.cols {
                if !interior(r as i32, c as i32) {
                    layout.set(r, c, LCell::Wall);
                }
            }
        }
        // 2. Rock clusters.
        let mut r = b + 3;
        while r < b + h {
            let mut c = b + 3;
            while c < b + w {
                if rng.chance(0.8) {
                    let dr = rng.index(5) as i32 - 2;
                    let dc = rng.index(5) as i32 - 2;
                    let k = rng.index(3) as i32;
                    for u in -k..=k {
                        for v in -k..=k {
                            let (rr, cc) = (r + dr + u, c + dc + v);
                            if u * u + v * v <= k * k && interior(rr, cc) {
                                layout.set(rr as u16, cc as u16, LCell::Wall);
                            }
                        }
                    }
                }
                c += 7;
            }
            r += 7;
        }
        // 3. Wall segments.
        for _ in 0..(h * w / 200) {
            let r = b + rng.index(h as usize) as i32;
            let c = b + rng.index(w as usize) as i32;
            let horizontal = rng.chance(0.5);
            let len = 3 + rng.index(6) as i32;
            for i in 0..len {
                let (rr, cc) = if horizontal { (r, c + i) } else { (r + i, c) };
                if interior(rr, cc) {
                    layout.set(rr as u16, cc as u16, LCell::Wall);
                }
            }
        }
        // 4. Buildings.
        self.centres.clear();
        let samples = p.coverage_permille as i64 * (h - 2) as i64 * (w - 2) as i64 / 1000;
        for _ in 0..samples {
            let r = (b + 1 + rng.index((h - 2) as usize) as i32) as u16;
            let c = (b + 1 + rng.index((w - 2) as usize) as i32) as u16;
            let k = rng.index(7);
            if self.centres.iter().any(|&q| super::types::cheb(q, (r, c)) <= 1) {
                continue;
            }
            self.centres.push((r, c));
            for rr in r - 1..=r + 1 {
                for cc in c - 1..=c + 1 {
                    layout.set(rr, cc, LCell::Empty);
                }
            }
            let kind = match k {
                0..=2 => Kind::Junction,
                3 => Kind::CarbonExtractor,
                4 => Kind::OxygenExtractor,
                5 => Kind::GermaniumExtractor,
                _ => Kind::SiliconExtractor,
            };
            layout.set(r, c, LCell::Obj(kind, Align::Neutral));
        }
        // 5. Base.
        let (r0, c0) = (b + h / 2, b + w / 2);
        for dr in -13..=13 {
            for dc in -13..=13 {
                layout.set((r0 + dr) as u16, (c0 + dc) as u16, LCell::Empty);
            }
        }
        for dr in -10i32..=10 {
            for dc in -10i32..=10 {
                let gate = (dr.abs() == 10 && dc.abs() <= 2) || (dc.abs() == 10 && dr.abs() <= 2);
                if (dr.abs() == 10 || dc.abs() == 10) && !gate {
                    layout.set((r0 + dr) as u16, (c0 + dc) as u16, LCell::Wall);
                }
            }
        }
        for ((dr, dc), kind, align) in BASE_OBJECTS {
            layout.set((r0 + dr) as u16, (c0 + dc) as u16, LCell::Obj(kind, align));
        }
        // 6. Connectivity, then pads.
        self.connect(layout, (r0 - 2) as usize * layout.cols as usize + c0 as usize, p);
        for (dr, dc) in pad_candidates() {
            if layout.pads.len() == p.num_agents {
                break;
            }
            let (r, c) = ((r0 + dr) as u16, (c0 + dc) as u16);
            if layout.is_open(r, c) {
                layout.pads.push((r, c));
            }
        }
        layout.pads.sort_unstable();
    }

    /// Flood-fills open cells from `from`, marking them reached.
    fn flood(&mut self, layout: &Layout, from: usize) {
        let cols = layout.cols as usize;
        if self.reached[from] {
            return;
        }
        self.reached[from] = true;
        self.stack.push(from);
        while let Some(i) = self.stack.pop() {
            for n in [i - cols, i + cols, i - 1, i + 1] {
                if !self.reached[n] && layout.cells[n] == LCell::Empty {
                    self.reached[n] = true;
                    self.stack.push(n);
                }
            }
        }
    }

    /// §4.4: carve the cheapest wall path from each unreached open cell to the reached set.
    fn connect(&mut self, layout: &mut Layout, start: usize, p: &GenParams) {
        let n = layout.cells.len();
        let cols = layout.cols as usize;
        self.reached.clear();
        self.reached.resize(n, false);
        self.flood(layout, start);
        let (b, h, w) = (p.border as usize, p.rows as usize, p.cols as usize);
        let interior = |i: usize| {
            let (r, c) = (i / cols, i % cols);
            r >= b && r < b + h && c >= b && c < b + w
        };
        // Cells before the scan position stay reached or closed: carving only opens cells that
        // join the reached component, so the scan never has to restart.
        let mut scan = b * cols + b;
        loop {
            let src = (scan..n).find(|&i| interior(i) && layout.cells[i] == LCell::Empty && !self.reached[i]);
            let Some(src) = src else { break };
            scan = src;
            self.dist.clear();
            self.dist.resize(n, u32::MAX);
            self.parent.clear();
            self.parent.resize(n, u32::MAX);
            self.heap.clear();
            self.dist[src] = 0;
            self.heap.push(Reverse((0, (src / cols) as u16, (src % cols) as u16)));
            let mut target = None;
            while let Some(Reverse((d, r, c))) = self.heap.pop() {
                let i = r as usize * cols + c as usize;
                if d > self.dist[i] {
                    continue;
                }
                if self.reached[i] {
                    target = Some(i);
                    break;
                }
                for m in [i - cols, i + cols, i - 1, i + 1] {
                    let cost = match layout.cells[m] {
                        _ if !interior(m) => continue,
                        LCell::Obj(..) => continue,
                        LCell::Wall => 10,
                        LCell::Empty => 1,
                    };
                    let nd = d + cost;
                    if nd < self.dist[m] {
                        self.dist[m] = nd;
                        self.parent[m] = i as u32;
                        self.heap.push(Reverse((nd, (m / cols) as u16, (m % cols) as u16)));
                    }
                }
            }
            // The reached component is never empty and the interior is one rectangle, so a
            // target always exists; without one the cell is left as is and skipped.
            let Some(mut i) = target else {
                self.reached[src] = true;
                continue;
            };
            while i != src {
                if layout.cells[i] == LCell::Wall {
                    layout.cells[i] = LCell::Empty;
                }
                i = self.parent[i] as usize;
            }
            self.flood(layout, src);
        }
    }
}
