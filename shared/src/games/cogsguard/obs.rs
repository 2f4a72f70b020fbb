//! The egocentric observation (§12): own state, team pool and vibe roster, and an 11×11 window of
//! cells centred on the agent. Built into preallocated structs after every tick and at reset.

use super::state::World;
use super::types::{obs_align, vibe, Kind};

/// Half the window size: the window is (2·5+1)² cells.
pub const VIEW_RADIUS: usize = 5;
/// Window side.
pub const VIEW: usize = 2 * VIEW_RADIUS + 1;

/// One cell of the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    /// 0 out_of_bounds, 1 empty, 2 wall, 3 hub, 4 junction, 5 chest, 6..9 extractors, 10..13 stations.
    pub kind: u8,
    /// 0 none, 1 neutral, 2 cogs, 3 clips.
    pub align: u8,
    /// An agent stands here.
    pub agent: bool,
    /// That agent's vibe.
    pub agent_vibe: u8,
    /// That agent's gear.
    pub agent_gear: u8,
    /// Units left in an extractor, else 0.
    pub amount: u16,
}

/// What one agent sees after a tick.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observation {
    /// Ticks completed.
    pub step: u32,
    /// Episode length.
    pub max_steps: u32,
    /// Own id.
    pub agent_id: u8,
    /// Team size.
    pub num_agents: u8,
    /// Full grid height.
    pub map_rows: u16,
    /// Full grid width.
    pub map_cols: u16,
    /// Own absolute (row, col).
    pub pos: (u16, u16),
    /// Executed action of the previous tick.
    pub last_action: u8,
    /// Its success.
    pub last_ok: bool,
    /// Energy.
    pub energy: u16,
    /// Hit points.
    pub hp: u16,
    /// Influence.
    pub influence: u16,
    /// Hearts.
    pub heart: u16,
    /// Own elements C, O, G, S.
    pub cargo: [u16; 4],
    /// 0 none, 1 aligner, 2 scrambler, 3 miner, 4 scout.
    pub gear: u8,
    /// Own vibe.
    pub vibe: u8,
    /// Current hp cap.
    pub hp_cap: u16,
    /// Current energy cap.
    pub energy_cap: u16,
    /// Current cargo cap.
    pub cargo_cap: u16,
    /// Current influence cap.
    pub influence_cap: u16,
    /// Team pool C, O, G, S.
    pub pool: [u32; 4],
    /// Team pool hearts.
    pub pool_hearts: u32,
    /// Teammates (self included) per vibe.
    pub team_vibes: [u8; vibe::COUNT],
    /// cells[i][j] shows map cell (row−5+i, col−5+j).
    pub cells: [[Cell; VIEW]; VIEW],
    /// `packed[i][j]` is [`pack`] of `cells[i][j]`'s kind and alignment: the same information,
    /// laid out so that a policy keeping a map compares a whole window row with one comparison.
    pub packed: [[u16; VIEW]; VIEW],
    /// Bit j of `agent_cols[i]` is `cells[i][j].agent` (the agents of a row without a look at
    /// each cell).
    pub agent_cols: [u16; VIEW],
}

/// A cell's kind and alignment as one number (kind in the low byte).
#[inline]
pub const fn pack(kind: u8, align: u8) -> u16 {
    kind as u16 | (align as u16) << 8
}

impl Observation {
    /// The window cell showing absolute (r, c), if inside the window.
    pub fn cell_at(&self, r: i32, c: i32) -> Option<&Cell> {
        let i = r - i32::from(self.pos.0) + VIEW_RADIUS as i32;
        let j = c - i32::from(self.pos.1) + VIEW_RADIUS as i32;
        if (0..VIEW as i32).contains(&i) && (0..VIEW as i32).contains(&j) {
            Some(&self.cells[i as usize][j as usize])
        } else {
            None
        }
    }

    /// Recomputes `packed` and `agent_cols` from `cells` (for observations edited by hand).
    pub fn repack(&mut self) {
        for (i, row) in self.cells.iter().enumerate() {
            self.agent_cols[i] = 0;
            for (j, cell) in row.iter().enumerate() {
                self.packed[i][j] = pack(cell.kind, cell.align);
                self.agent_cols[i] |= u16::from(cell.agent) << j;
            }
        }
    }
}

impl World {
    /// Team vibe roster (§12).
    pub fn team_vibes(&self) -> [u8; vibe::COUNT] {
        let mut v = [0u8; vibe::COUNT];
        for a in &self.agents {
            v[a.vibe as usize] += 1;
        }
        v
    }

    /// Recomputes the agent-free view of cell index `i` (after an object changed there).
    pub fn refresh_view(&mut self, i: usize) {
        let (r, c) = ((i / self.cols as usize) as i32, (i % self.cols as usize) as i32);
        let mut cell = self.cell_view(r, c);
        (cell.agent, cell.agent_vibe, cell.agent_gear) = (false, 0, 0);
        self.view[i] = cell;
        self.packed[i] = pack(cell.kind, cell.align);
    }

    /// What cell (r, c) shows (signed: outside the grid is out_of_bounds).
    pub fn cell_view(&self, r: i32, c: i32) -> Cell {
        if !self.in_grid(r, c) {
            return Cell::default();
        }
        let (r, c) = (r as u16, c as u16);
        let i = self.idx(r, c);
        let mut cell = Cell { kind: Kind::Empty as u8, ..Cell::default() };
        if self.wall[i] {
            cell.kind = Kind::Wall as u8;
        } else if let Some(o) = self.object_at(r, c) {
            cell.kind = o.kind as u8;
            cell.align = if o.kind == Kind::Junction {
                o.align as u8 + 1
            } else if o.kind.element().is_some() {
                obs_align::NONE
            } else {
                obs_align::COGS
            };
            if o.kind.element().is_some() {
                cell.amount = o.units;
            }
        }
        if let Some(id) = self.agent_at(r, c) {
            let a = &self.agents[id];
            cell.agent = true;
            cell.agent_vibe = a.vibe;
            cell.agent_gear = a.gear as u8;
        }
        cell
    }

    /// Fills `obs` for agent `id` (no allocation).
    pub fn observe(&self, id: usize, team_vibes: [u8; vibe::COUNT], obs: &mut Observation) {
        let a = &self.agents[id];
        obs.step = self.t;
        obs.max_steps = self.max_steps;
        obs.agent_id = id as u8;
        obs.num_agents = self.agents.len() as u8;
        obs.map_rows = self.rows;
        obs.map_cols = self.cols;
        obs.pos = a.pos();
        obs.last_action = a.last_action;
        obs.last_ok = a.last_ok;
        obs.energy = a.energy;
        obs.hp = a.hp;
        obs.influence = a.influence;
        obs.heart = a.heart;
        obs.cargo = a.cargo;
        obs.gear = a.gear as u8;
        obs.vibe = a.vibe;
        obs.hp_cap = a.hp_cap();
        obs.energy_cap = a.energy_cap();
        obs.cargo_cap = a.cargo_cap();
        obs.influence_cap = a.influence_cap();
        obs.pool = self.pool.elements;
        obs.pool_hearts = self.pool.hearts;
        obs.team_vibes = team_vibes;
        let (r0, c0) = (i32::from(a.row) - VIEW_RADIUS as i32, i32::from(a.col) - VIEW_RADIUS as i32);
        let (rows, cols) = (i32::from(self.rows), i32::from(self.cols));
        // Window columns j whose map column c0 + j lies inside the grid.
        let j0 = (-c0).max(0) as usize;
        let j1 = (cols - c0).min(VIEW as i32).max(0) as usize;
        for (i, (row, packed)) in obs.cells.iter_mut().zip(&mut obs.packed).enumerate() {
            let r = r0 + i as i32;
            if r < 0 || r >= rows || j0 >= j1 {
                row.fill(Cell::default());
                *packed = [0; VIEW];
                continue;
            }
            let from = r as usize * self.cols as usize + (c0 + j0 as i32) as usize;
            let range = from..from + (j1 - j0);
            // A whole row is a fixed-size copy the compiler inlines (no call to memcpy).
            if let (Ok(whole), Ok(whole_packed)) = (
                <&[Cell; VIEW]>::try_from(&self.view[range.clone()]),
                <&[u16; VIEW]>::try_from(&self.packed[range.clone()]),
            ) {
                (*row, *packed) = (*whole, *whole_packed);
                continue;
            }
            row.fill(Cell::default());
            *packed = [0; VIEW];
            row[j0..j1].copy_from_slice(&self.view[range.clone()]);
            packed[j0..j1].copy_from_slice(&self.packed[range]);
        }
        obs.agent_cols = [0; VIEW];
        for b in &self.agents {
            let (i, j) = (i32::from(b.row) - r0, i32::from(b.col) - c0);
            if (0..VIEW as i32).contains(&i) && (0..VIEW as i32).contains(&j) {
                let cell = &mut obs.cells[i as usize][j as usize];
                (cell.agent, cell.agent_vibe, cell.agent_gear) = (true, b.vibe, b.gear as u8);
                obs.agent_cols[i as usize] |= 1 << j;
            }
        }
    }
}
