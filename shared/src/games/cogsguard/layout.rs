//! A map before play: terrain, objects, spawn pads and the ASCII header values (§4).
//!
//! Both map sources produce a [`Layout`]: the generator (§4.2, `mapgen.rs`) and the ASCII parser
//! (§4.5, `ascii.rs`). [`crate::games::cogsguard::World::load`] turns it into a playable world.

use super::types::{Align, Kind};

/// What one cell of a layout holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LCell {
    /// Empty terrain without object.
    Empty,
    /// Wall terrain.
    Wall,
    /// Empty terrain holding an object (with its alignment; only junctions use it).
    Obj(Kind, Align),
}

/// A map before play.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Full grid height.
    pub rows: u16,
    /// Full grid width.
    pub cols: u16,
    /// Row-major cells.
    pub cells: Vec<LCell>,
    /// Spawn pads by agent id.
    pub pads: Vec<(u16, u16)>,
    /// `;max_steps=` header.
    pub max_steps: Option<u32>,
    /// `;clips=` header.
    pub clips: Option<bool>,
    /// `;pool=c,o,g,s,hearts` header.
    pub pool: Option<([u32; 4], u32)>,
    /// `;extractor=` header: initial units of every extractor.
    pub extractor: Option<u16>,
}

impl Layout {
    /// An all-empty layout of the given size (buffers reused).
    pub fn reset(&mut self, rows: u16, cols: u16) {
        self.rows = rows;
        self.cols = cols;
        self.cells.clear();
        self.cells.resize(rows as usize * cols as usize, LCell::Empty);
        self.pads.clear();
        self.max_steps = None;
        self.clips = None;
        self.pool = None;
        self.extractor = None;
    }

    /// Row-major index of (r, c).
    #[inline]
    pub fn idx(&self, r: u16, c: u16) -> usize {
        r as usize * self.cols as usize + c as usize
    }

    /// The cell at (r, c).
    #[inline]
    pub fn get(&self, r: u16, c: u16) -> LCell {
        self.cells[self.idx(r, c)]
    }

    /// Sets the cell at (r, c).
    #[inline]
    pub fn set(&mut self, r: u16, c: u16, v: LCell) {
        let i = self.idx(r, c);
        self.cells[i] = v;
    }

    /// Whether (r, c) is open: empty terrain without object.
    #[inline]
    pub fn is_open(&self, r: u16, c: u16) -> bool {
        self.get(r, c) == LCell::Empty
    }
}
