//! The ASCII map format (§4.5): hand-made test maps, the `ascii` scenario and the replay's
//! `initial_map`. Loading the text a world writes gives the same world back.

use super::layout::{LCell, Layout};
use super::state::World;
use super::types::{Align, Kind};

/// The `tiny_3p` fixture shipped with the engine (§16).
pub const TINY_3P: &str = "\
;max_steps=300
#################
#C.............O#
#...............#
#.......J.......#
#...............#
#....@..&..@....#
#...............#
#.......=...@...#
#...A..X..M..S..#
#...............#
#G.....k.......I#
#################
";

/// Fixtures by name, for `ascii?map=<name>`.
pub const FIXTURES: &[(&str, &str)] = &[("tiny_3p", TINY_3P)];

/// Why a map text does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsciiError(pub String);

impl std::fmt::Display for AsciiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn cell_of(ch: char) -> Option<LCell> {
    Some(match ch {
        '#' => LCell::Wall,
        '.' | '@' => LCell::Empty,
        '&' => LCell::Obj(Kind::Hub, Align::Cogs),
        'J' => LCell::Obj(Kind::Junction, Align::Neutral),
        'j' => LCell::Obj(Kind::Junction, Align::Cogs),
        'k' => LCell::Obj(Kind::Junction, Align::Clips),
        '=' => LCell::Obj(Kind::Chest, Align::Cogs),
        'A' => LCell::Obj(Kind::AlignerStation, Align::Cogs),
        'X' => LCell::Obj(Kind::ScramblerStation, Align::Cogs),
        'M' => LCell::Obj(Kind::MinerStation, Align::Cogs),
        'S' => LCell::Obj(Kind::ScoutStation, Align::Cogs),
        'C' => LCell::Obj(Kind::CarbonExtractor, Align::Neutral),
        'O' => LCell::Obj(Kind::OxygenExtractor, Align::Neutral),
        'G' => LCell::Obj(Kind::GermaniumExtractor, Align::Neutral),
        'I' => LCell::Obj(Kind::SiliconExtractor, Align::Neutral),
        _ => return None,
    })
}

/// The character of an object (or terrain) for writing maps.
pub fn char_of(kind: Kind, align: Align) -> char {
    match kind {
        Kind::OutOfBounds | Kind::Wall => '#',
        Kind::Empty => '.',
        Kind::Hub => '&',
        Kind::Junction => match align {
            Align::Neutral => 'J',
            Align::Cogs => 'j',
            Align::Clips => 'k',
        },
        Kind::Chest => '=',
        Kind::AlignerStation => 'A',
        Kind::ScramblerStation => 'X',
        Kind::MinerStation => 'M',
        Kind::ScoutStation => 'S',
        Kind::CarbonExtractor => 'C',
        Kind::OxygenExtractor => 'O',
        Kind::GermaniumExtractor => 'G',
        Kind::SiliconExtractor => 'I',
    }
}

fn header(layout: &mut Layout, line: &str) -> Result<(), AsciiError> {
    let body = &line[1..];
    let (k, v) = body.split_once('=').ok_or_else(|| AsciiError(format!("header {line:?} is not ;key=value")))?;
    let bad = || AsciiError(format!("header {line:?} has a bad value"));
    match k {
        "max_steps" => {
            let n: u32 = v.parse().map_err(|_| bad())?;
            if !(1..=100_000).contains(&n) {
                return Err(bad());
            }
            layout.max_steps = Some(n);
        }
        "clips" => {
            layout.clips = Some(match v {
                "on" => true,
                "off" => false,
                _ => return Err(bad()),
            })
        }
        "pool" => {
            let parts: Vec<&str> = v.split(',').collect();
            if parts.len() != 5 {
                return Err(bad());
            }
            let mut n = [0u32; 5];
            for (slot, p) in n.iter_mut().zip(&parts) {
                *slot = p.parse().map_err(|_| bad())?;
            }
            if n[..4].iter().any(|&x| x > super::types::POOL_CAP) || n[4] > super::types::POOL_HEART_CAP {
                return Err(bad());
            }
            layout.pool = Some(([n[0], n[1], n[2], n[3]], n[4]));
        }
        "extractor" => {
            let n: u16 = v.parse().map_err(|_| bad())?;
            layout.extractor = Some(n);
        }
        _ => return Err(AsciiError(format!("unknown header {k:?}"))),
    }
    Ok(())
}

/// Parses a map: lines separated by `\n` or `/`, header lines starting with `;`, then
/// rectangular rows. Blank lines are ignored. Needs 1..=20 agents (`@`).
pub fn parse(text: &str) -> Result<Layout, AsciiError> {
    let mut layout = Layout::default();
    let mut rows: Vec<&str> = Vec::new();
    for line in text.split(['\n', '/']) {
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            continue;
        }
        if line.starts_with(';') {
            header(&mut layout, line)?;
        } else {
            rows.push(line);
        }
    }
    if rows.is_empty() {
        return Err(AsciiError("the map has no rows".into()));
    }
    let width = rows[0].chars().count();
    if rows.len() > 1000 || width > 1000 {
        return Err(AsciiError("the map is larger than 1000×1000".into()));
    }
    let (h, w) = (rows.len() as u16, width as u16);
    let (max_steps, clips, pool, extractor) = (layout.max_steps, layout.clips, layout.pool, layout.extractor);
    layout.reset(h, w);
    (layout.max_steps, layout.clips, layout.pool, layout.extractor) = (max_steps, clips, pool, extractor);
    for (r, row) in rows.iter().enumerate() {
        if row.chars().count() != width {
            return Err(AsciiError(format!(
                "row {} has {} cells, row 1 has {width} (ragged rows)",
                r + 1,
                row.chars().count()
            )));
        }
        for (c, ch) in row.chars().enumerate() {
            let cell = cell_of(ch)
                .ok_or_else(|| AsciiError(format!("unknown map character {ch:?} at row {}, col {}", r + 1, c + 1)))?;
            layout.set(r as u16, c as u16, cell);
            if ch == '@' {
                layout.pads.push((r as u16, c as u16));
            }
        }
    }
    if layout.pads.is_empty() || layout.pads.len() > 20 {
        return Err(AsciiError(format!("the map has {} agents (`@`); 1..=20 needed", layout.pads.len())));
    }
    Ok(layout)
}

/// Writes a world's current map in the §4.5 form, headers first: `max_steps`, `clips`, `pool`,
/// and `extractor` (the units of the first extractor, or 100 when there is none).
pub fn write(world: &World) -> Vec<String> {
    let mut out = Vec::with_capacity(world.rows as usize + 4);
    out.push(format!(";max_steps={}", world.max_steps));
    out.push(format!(";clips={}", if world.clips { "on" } else { "off" }));
    let p = &world.pool;
    out.push(format!(";pool={},{},{},{},{}", p.elements[0], p.elements[1], p.elements[2], p.elements[3], p.hearts));
    let units = world.objects.iter().find(|o| o.present && o.kind.element().is_some()).map_or(100, |o| o.units);
    out.push(format!(";extractor={units}"));
    for r in 0..world.rows {
        let mut line = String::with_capacity(world.cols as usize);
        for c in 0..world.cols {
            let ch = if world.agent_at(r, c).is_some() {
                '@'
            } else {
                match world.object_at(r, c) {
                    Some(o) => char_of(o.kind, o.align),
                    None if world.is_wall(r, c) => '#',
                    None => '.',
                }
            };
            line.push(ch);
        }
        out.push(line);
    }
    out
}
