//! The world during play: grid, objects indexed by cell, agents (`agent.rs`), team pool and
//! counters (§4–§6).
//!
//! All buffers live in [`World`] and are reused across episodes, so a tick never allocates.
//! The rules that change a world are in `rules.rs` (actions, bumps, caps) and `tick.rs` (the
//! tick order, regen, auras, reward); the clips events in `clips.rs`.

pub use super::agent::Agent;
use super::clips::Schedule;
use super::events::Event;
use super::layout::{LCell, Layout};
use super::types::{Align, Kind};

/// "No object / no agent here" in the per-cell indexes.
pub const NONE: u16 = u16::MAX;

/// An object on the grid. Objects never move; an extractor at 0 units is removed
/// (`present = false`, its cell freed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Obj {
    /// What it is.
    pub kind: Kind,
    /// Row.
    pub row: u16,
    /// Column.
    pub col: u16,
    /// Alignment (meaningful for junctions; hub, chests and stations are cogs).
    pub align: Align,
    /// Units left (extractors).
    pub units: u16,
    /// False once removed.
    pub present: bool,
}

impl Obj {
    /// (row, col).
    #[inline]
    pub fn pos(&self) -> (u16, u16) {
        (self.row, self.col)
    }
}

/// The team pool (§5): caps 10000 per element and 65535 hearts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pool {
    /// C, O, G, S.
    pub elements: [u32; 4],
    /// Hearts.
    pub hearts: u32,
}

impl Default for Pool {
    /// 10 of each element and 5 hearts.
    fn default() -> Pool {
        Pool { elements: [10; 4], hearts: 5 }
    }
}

/// Episode counters behind the stats (§14) and the conservation property test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// make_heart firings.
    pub hearts_crafted: u64,
    /// Hearts moved by get_heart.
    pub hearts_taken: u64,
    /// Elements moved into the pool by deposits.
    pub deposited: [u64; 4],
    /// Junctions aligned by agents.
    pub aligned: u64,
    /// Junctions scrambled by agents.
    pub scrambled: u64,
    /// Junctions turned clips by events.
    pub clips_captured: u64,
    /// Junctions turned neutral by events.
    pub clips_neutralized: u64,
    /// Transitions to hp 0.
    pub hp_zero: u64,
    /// Gear acquired at stations, by gear (aligner, scrambler, miner, scout).
    pub gear_acquired: [u64; 4],
    /// Cargo destroyed by a cap fall, by element (not exported; conservation test).
    pub cargo_destroyed: [u64; 4],
    /// Elements spent on gear, by element (not exported; conservation test).
    pub gear_spent: [u64; 4],
}

/// An active aura source: its object id (the row-major order key), cell and sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Aura {
    /// Object id.
    pub id: u16,
    /// Row.
    pub row: u16,
    /// Column.
    pub col: u16,
    /// Hub or cogs junction (else clips junction).
    pub friendly: bool,
}

/// The world during play.
#[derive(Clone, Debug, Default)]
pub struct World {
    /// Full grid height.
    pub rows: u16,
    /// Full grid width.
    pub cols: u16,
    /// Wall terrain, row-major.
    pub wall: Vec<bool>,
    /// Object id per cell (or [`NONE`]).
    pub obj_at: Vec<u16>,
    /// Agent id per cell (or [`NONE`]).
    pub agent_cell: Vec<u16>,
    /// What each cell shows without its agent (kept up to date on every object change), so an
    /// observation is 11 row copies plus the visible agents.
    pub view: Vec<super::obs::Cell>,
    /// [`super::obs::pack`] of each cell of `view` (kind and alignment), kept with it.
    pub packed: Vec<u16>,
    /// Objects in row-major order of their cells.
    pub objects: Vec<Obj>,
    /// Object ids of the junctions, row-major.
    pub junctions: Vec<u16>,
    /// Object ids of the aura sources that can ever be active (hubs and junctions), row-major.
    pub sources: Vec<u16>,
    /// The row of each source (parallel to `sources`), for the aura band search.
    pub source_rows: Vec<u16>,
    /// The sources active now (hubs, cogs and clips junctions), row-major, kept up to date by
    /// [`World::set_align`]: the aura step reads this short list instead of skipping the
    /// neutral junctions every tick. Its capacity is reserved at load (it never grows in play).
    pub(crate) active: Vec<Aura>,
    /// Agents by id.
    pub agents: Vec<Agent>,
    /// Team pool.
    pub pool: Pool,
    /// Ticks completed.
    pub t: u32,
    /// Episode length.
    pub max_steps: u32,
    /// Whether clips events run (§10).
    pub clips: bool,
    /// Junction counts by alignment (neutral, cogs, clips), kept up to date.
    pub junction_counts: [u32; 3],
    /// Episode counters.
    pub counters: Counters,
    /// Clips schedule state.
    pub schedule: Schedule,
    /// Events of the current tick, recorded only when `log_events` is set (replays).
    pub events: Vec<Event>,
    /// Whether to record events.
    pub log_events: bool,
    /// Reused buffer: this tick's agent order.
    pub(crate) order: Vec<u16>,
    /// Reused buffer: shuffled junction list of a clips event.
    pub(crate) scratch: Vec<u16>,
}

impl World {
    /// Row-major index of (r, c).
    #[inline]
    pub fn idx(&self, r: u16, c: u16) -> usize {
        r as usize * self.cols as usize + c as usize
    }

    /// Whether (r, c) is inside the grid.
    #[inline]
    pub fn in_grid(&self, r: i32, c: i32) -> bool {
        r >= 0 && c >= 0 && r < self.rows as i32 && c < self.cols as i32
    }

    /// Whether (r, c) is wall terrain.
    #[inline]
    pub fn is_wall(&self, r: u16, c: u16) -> bool {
        self.wall[self.idx(r, c)]
    }

    /// The object at (r, c), if any.
    #[inline]
    pub fn object_at(&self, r: u16, c: u16) -> Option<&Obj> {
        match self.obj_at[self.idx(r, c)] {
            NONE => None,
            id => Some(&self.objects[id as usize]),
        }
    }

    /// The id of the agent at (r, c), if any.
    #[inline]
    pub fn agent_at(&self, r: u16, c: u16) -> Option<usize> {
        match self.agent_cell[self.idx(r, c)] {
            NONE => None,
            id => Some(id as usize),
        }
    }

    /// Loads a layout: objects row-major, agents on their pads, pool and extractor units from
    /// the layout's headers (else the defaults), t = 0. Reuses every buffer.
    pub fn load(&mut self, layout: &Layout, max_steps: u32, clips: bool) {
        self.rows = layout.rows;
        self.cols = layout.cols;
        let n = layout.cells.len();
        self.wall.clear();
        self.wall.resize(n, false);
        self.obj_at.clear();
        self.obj_at.resize(n, NONE);
        self.agent_cell.clear();
        self.agent_cell.resize(n, NONE);
        self.objects.clear();
        self.junctions.clear();
        self.sources.clear();
        self.source_rows.clear();
        self.active.clear();
        self.junction_counts = [0; 3];
        let units = layout.extractor.unwrap_or(100);
        for (i, cell) in layout.cells.iter().enumerate() {
            let (r, c) = ((i / layout.cols as usize) as u16, (i % layout.cols as usize) as u16);
            match *cell {
                LCell::Empty => {}
                LCell::Wall => self.wall[i] = true,
                LCell::Obj(kind, align) => {
                    let id = self.objects.len() as u16;
                    let units = if kind.element().is_some() { units } else { 0 };
                    // An extractor loaded empty is already gone (§5: removed at 0 units).
                    if units == 0 && kind.element().is_some() {
                        continue;
                    }
                    let align = if kind == Kind::Junction { align } else { Align::Cogs };
                    self.objects.push(Obj { kind, row: r, col: c, align, units, present: true });
                    self.obj_at[i] = id;
                    if kind == Kind::Junction {
                        self.junctions.push(id);
                        self.junction_counts[align as usize] += 1;
                    }
                    if kind == Kind::Junction || kind == Kind::Hub {
                        self.sources.push(id);
                        self.source_rows.push(r);
                        if kind == Kind::Hub || align != Align::Neutral {
                            let friendly = kind == Kind::Hub || align == Align::Cogs;
                            self.active.push(Aura { id, row: r, col: c, friendly });
                        }
                    }
                }
            }
        }
        self.view.clear();
        self.view.resize(n, super::obs::Cell::default());
        self.packed.clear();
        self.packed.resize(n, 0);
        for i in 0..n {
            self.refresh_view(i);
        }
        self.agents.clear();
        for (id, &(r, c)) in layout.pads.iter().enumerate() {
            self.agents.push(Agent::spawn(r, c));
            let i = self.idx(r, c);
            self.agent_cell[i] = id as u16;
        }
        self.pool = match layout.pool {
            Some((elements, hearts)) => Pool { elements, hearts },
            None => Pool::default(),
        };
        self.t = 0;
        self.max_steps = max_steps;
        self.clips = clips;
        self.counters = Counters::default();
        self.schedule = Schedule::new(max_steps);
        self.events.clear();
        self.order.clear();
        self.order.extend(0..self.agents.len() as u16);
        self.scratch.clear();
        self.scratch.reserve(self.junctions.len());
        self.active.reserve(self.sources.len() - self.active.len());
    }

    /// (address, capacity) of every buffer, for the no-allocation-per-tick check.
    pub fn buffers(&self, out: &mut Vec<(usize, usize)>) {
        out.push((self.wall.as_ptr() as usize, self.wall.capacity()));
        out.push((self.obj_at.as_ptr() as usize, self.obj_at.capacity()));
        out.push((self.agent_cell.as_ptr() as usize, self.agent_cell.capacity()));
        out.push((self.view.as_ptr() as usize, self.view.capacity()));
        out.push((self.packed.as_ptr() as usize, self.packed.capacity()));
        out.push((self.objects.as_ptr() as usize, self.objects.capacity()));
        out.push((self.junctions.as_ptr() as usize, self.junctions.capacity()));
        out.push((self.sources.as_ptr() as usize, self.sources.capacity()));
        out.push((self.source_rows.as_ptr() as usize, self.source_rows.capacity()));
        out.push((self.active.as_ptr() as usize, self.active.capacity()));
        out.push((self.agents.as_ptr() as usize, self.agents.capacity()));
        out.push((self.events.as_ptr() as usize, self.events.capacity()));
        out.push((self.order.as_ptr() as usize, self.order.capacity()));
        out.push((self.scratch.as_ptr() as usize, self.scratch.capacity()));
    }

    /// Sets a junction's alignment, keeping the counts up to date.
    pub fn set_align(&mut self, obj: u16, to: Align) {
        let o = &mut self.objects[obj as usize];
        self.junction_counts[o.align as usize] -= 1;
        self.junction_counts[to as usize] += 1;
        o.align = to;
        let (row, col) = (o.row, o.col);
        match (self.active.binary_search_by_key(&obj, |a| a.id), to) {
            (Ok(k), Align::Neutral) => {
                self.active.remove(k);
            }
            (Ok(k), _) => self.active[k].friendly = to == Align::Cogs,
            (Err(_), Align::Neutral) => {}
            (Err(k), _) => self.active.insert(k, Aura { id: obj, row, col, friendly: to == Align::Cogs }),
        }
        let i = row as usize * self.cols as usize + col as usize;
        self.refresh_view(i);
    }

    /// Pushes an event if events are recorded.
    #[inline]
    pub(crate) fn log(&mut self, e: Event) {
        if self.log_events {
            self.events.push(e);
        }
    }
}
