//! The vocabulary of CogsGuard (spec §1, §5, §7, §12): elements, gear, cell kinds, junction
//! alignments and action ids. Every numeric value here is part of the observation or the
//! trajectory hash, so the discriminants are fixed by the spec.

/// Element names in their fixed order (index 0..3): carbon, oxygen, germanium, silicon.
pub const ELEMENTS: [&str; 4] = ["carbon", "oxygen", "germanium", "silicon"];

/// Team pool cap per element (§5).
pub const POOL_CAP: u32 = 10_000;
/// Team pool cap of hearts (§5).
pub const POOL_HEART_CAP: u32 = 65_535;

/// The gear slot: none or one of the four role gears. Discriminants are the observation's `gear`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Gear {
    /// No gear.
    None = 0,
    /// Aligner gear: influence cap 20.
    Aligner = 1,
    /// Scrambler gear: hp cap 200.
    Scrambler = 2,
    /// Miner gear: cargo cap 40, mines 10 per bump.
    Miner = 3,
    /// Scout gear: hp cap 400, energy cap 100.
    Scout = 4,
}

impl Gear {
    /// The four role gears in observation order.
    pub const ROLES: [Gear; 4] = [Gear::Aligner, Gear::Scrambler, Gear::Miner, Gear::Scout];

    /// The gear of an observation value (anything above 4 reads as none).
    pub const fn from_u8(v: u8) -> Gear {
        match v {
            1 => Gear::Aligner,
            2 => Gear::Scrambler,
            3 => Gear::Miner,
            4 => Gear::Scout,
            _ => Gear::None,
        }
    }

    /// The gear's name (`none`, `aligner`, …), as in stats and replays.
    pub const fn name(self) -> &'static str {
        match self {
            Gear::None => "none",
            Gear::Aligner => "aligner",
            Gear::Scrambler => "scrambler",
            Gear::Miner => "miner",
            Gear::Scout => "scout",
        }
    }

    /// Station price in (C, O, G, S) (§5); none costs nothing.
    pub const fn cost(self) -> [u32; 4] {
        match self {
            Gear::None => [0, 0, 0, 0],
            Gear::Aligner => [3, 1, 1, 1],
            Gear::Scrambler => [1, 3, 1, 1],
            Gear::Miner => [1, 1, 3, 1],
            Gear::Scout => [1, 1, 1, 3],
        }
    }
}

/// What a cell shows: the observation's `kind` (§12). Object kinds are 3..=13.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Kind {
    /// Outside the grid.
    OutOfBounds = 0,
    /// Empty terrain without object.
    Empty = 1,
    /// Wall terrain.
    Wall = 2,
    /// The hub (always cogs): deposit point and aura source.
    Hub = 3,
    /// A junction: neutral, cogs or clips.
    Junction = 4,
    /// A chest: hearts.
    Chest = 5,
    /// Carbon extractor.
    CarbonExtractor = 6,
    /// Oxygen extractor.
    OxygenExtractor = 7,
    /// Germanium extractor.
    GermaniumExtractor = 8,
    /// Silicon extractor.
    SiliconExtractor = 9,
    /// Aligner station.
    AlignerStation = 10,
    /// Scrambler station.
    ScramblerStation = 11,
    /// Miner station.
    MinerStation = 12,
    /// Scout station.
    ScoutStation = 13,
}

impl Kind {
    /// The kind of an observation value (unknown values read as out of bounds).
    pub const fn from_u8(v: u8) -> Kind {
        match v {
            1 => Kind::Empty,
            2 => Kind::Wall,
            3 => Kind::Hub,
            4 => Kind::Junction,
            5 => Kind::Chest,
            6 => Kind::CarbonExtractor,
            7 => Kind::OxygenExtractor,
            8 => Kind::GermaniumExtractor,
            9 => Kind::SiliconExtractor,
            10 => Kind::AlignerStation,
            11 => Kind::ScramblerStation,
            12 => Kind::MinerStation,
            13 => Kind::ScoutStation,
            _ => Kind::OutOfBounds,
        }
    }

    /// Whether this kind is an object (blocks movement, bumpable).
    pub const fn is_object(self) -> bool {
        self as u8 >= 3
    }

    /// The element index of an extractor.
    pub const fn element(self) -> Option<usize> {
        match self {
            Kind::CarbonExtractor | Kind::OxygenExtractor | Kind::GermaniumExtractor | Kind::SiliconExtractor => {
                Some(self as usize - 6)
            }
            _ => None,
        }
    }

    /// The extractor of element `e` (0..3).
    pub const fn extractor(e: usize) -> Kind {
        Kind::from_u8(6 + e as u8)
    }

    /// The gear a station sells.
    pub const fn station_gear(self) -> Option<Gear> {
        match self {
            Kind::AlignerStation | Kind::ScramblerStation | Kind::MinerStation | Kind::ScoutStation => {
                Some(Gear::from_u8(self as u8 - 9))
            }
            _ => None,
        }
    }

    /// The station of a role gear.
    pub const fn station(g: Gear) -> Kind {
        Kind::from_u8(g as u8 + 9)
    }

    /// Label used in debug strings and replays (`hub`, `carbon_extractor`, `miner_station`, …).
    pub const fn label(self) -> &'static str {
        match self {
            Kind::OutOfBounds => "out_of_bounds",
            Kind::Empty => "cell",
            Kind::Wall => "wall",
            Kind::Hub => "hub",
            Kind::Junction => "junction",
            Kind::Chest => "chest",
            Kind::CarbonExtractor => "carbon_extractor",
            Kind::OxygenExtractor => "oxygen_extractor",
            Kind::GermaniumExtractor => "germanium_extractor",
            Kind::SiliconExtractor => "silicon_extractor",
            Kind::AlignerStation => "aligner_station",
            Kind::ScramblerStation => "scrambler_station",
            Kind::MinerStation => "miner_station",
            Kind::ScoutStation => "scout_station",
        }
    }
}

/// A junction's alignment, with the trajectory hash's encoding (0 neutral, 1 cogs, 2 clips).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Align {
    /// Neutral: no aura, can be aligned by cogs or captured by clips.
    Neutral = 0,
    /// Cogs: friendly aura, deposit point.
    Cogs = 1,
    /// Clips: hostile aura.
    Clips = 2,
}

impl Align {
    /// Every alignment in hash order.
    pub const ALL: [Align; 3] = [Align::Neutral, Align::Cogs, Align::Clips];

    /// `neutral`, `cogs` or `clips`.
    pub const fn name(self) -> &'static str {
        match self {
            Align::Neutral => "neutral",
            Align::Cogs => "cogs",
            Align::Clips => "clips",
        }
    }
}

/// Observation `align` values (§12): 0 none, 1 neutral, 2 cogs, 3 clips.
pub mod obs_align {
    /// Not an aligned object.
    pub const NONE: u8 = 0;
    /// Neutral junction.
    pub const NEUTRAL: u8 = 1;
    /// Cogs object (hub, chest, station, cogs junction).
    pub const COGS: u8 = 2;
    /// Clips junction.
    pub const CLIPS: u8 = 3;
}

/// Action ids (§7).
pub mod action {
    /// Do nothing.
    pub const NOOP: u8 = 0;
    /// row − 1.
    pub const MOVE_NORTH: u8 = 1;
    /// row + 1.
    pub const MOVE_SOUTH: u8 = 2;
    /// col − 1.
    pub const MOVE_WEST: u8 = 3;
    /// col + 1.
    pub const MOVE_EAST: u8 = 4;
    /// `change_vibe_v` is `CHANGE_VIBE + v`.
    pub const CHANGE_VIBE: u8 = 5;
    /// Number of actions.
    pub const COUNT: u8 = 12;
    /// Names by id.
    pub const NAMES: [&str; 12] = [
        "noop",
        "move_north",
        "move_south",
        "move_west",
        "move_east",
        "change_vibe_default",
        "change_vibe_heart",
        "change_vibe_gear",
        "change_vibe_scrambler",
        "change_vibe_aligner",
        "change_vibe_miner",
        "change_vibe_scout",
    ];

    /// (drow, dcol) of a move action, or None for the rest.
    pub const fn delta(a: u8) -> Option<(i32, i32)> {
        match a {
            MOVE_NORTH => Some((-1, 0)),
            MOVE_SOUTH => Some((1, 0)),
            MOVE_WEST => Some((0, -1)),
            MOVE_EAST => Some((0, 1)),
            _ => None,
        }
    }
}

/// Vibe ids (§7): default, heart, gear, scrambler, aligner, miner, scout.
pub mod vibe {
    /// `default`.
    pub const DEFAULT: u8 = 0;
    /// `scrambler`.
    pub const SCRAMBLER: u8 = 3;
    /// `aligner`.
    pub const ALIGNER: u8 = 4;
    /// `miner`.
    pub const MINER: u8 = 5;
    /// `scout`.
    pub const SCOUT: u8 = 6;
    /// Number of vibes.
    pub const COUNT: usize = 7;
}

/// Chebyshev distance (§1).
#[inline]
pub fn cheb(a: (u16, u16), b: (u16, u16)) -> u16 {
    a.0.abs_diff(b.0).max(a.1.abs_diff(b.1))
}

/// Manhattan distance (§1).
#[inline]
pub fn man(a: (u16, u16), b: (u16, u16)) -> u16 {
    a.0.abs_diff(b.0) + a.1.abs_diff(b.1)
}
