//! Pinky's first-class state (§13.4): role, mode, mood and goal, with the names the debug string
//! and the `mode_occupancy` stats use.

use crate::games::cogsguard::types::{vibe, Gear, Kind, ELEMENTS};

/// A Pinky role. `resting` and `choosing_role` are the flexible agents' waiting states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// Inactive, waiting for its decision step.
    Resting,
    /// Evaluating team need (lasts one decision).
    ChoosingRole,
    /// Harvests elements and deposits them.
    Miner,
    /// Explores frontiers and reports.
    Scout,
    /// Aligns neutral junctions to cogs.
    Aligner,
    /// Scrambles clips junctions to neutral.
    Scrambler,
}

impl Role {
    /// Every role, in occupancy order.
    pub const ALL: [Role; 6] =
        [Role::Resting, Role::ChoosingRole, Role::Miner, Role::Scout, Role::Aligner, Role::Scrambler];
    /// The four active roles in the team-need tie order (miner, scout, aligner, scrambler).
    pub const ACTIVE: [Role; 4] = [Role::Miner, Role::Scout, Role::Aligner, Role::Scrambler];

    /// The role's name.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Resting => "resting",
            Role::ChoosingRole => "choosing_role",
            Role::Miner => "miner",
            Role::Scout => "scout",
            Role::Aligner => "aligner",
            Role::Scrambler => "scrambler",
        }
    }

    /// Whether the role is one of the four active roles.
    pub const fn is_active(self) -> bool {
        !matches!(self, Role::Resting | Role::ChoosingRole)
    }

    /// The vibe announcing the role (resting: default).
    pub const fn vibe(self) -> u8 {
        match self {
            Role::Miner => vibe::MINER,
            Role::Scout => vibe::SCOUT,
            Role::Aligner => vibe::ALIGNER,
            Role::Scrambler => vibe::SCRAMBLER,
            Role::Resting | Role::ChoosingRole => vibe::DEFAULT,
        }
    }

    /// The role's gear (none for the waiting states).
    pub const fn gear(self) -> Gear {
        match self {
            Role::Miner => Gear::Miner,
            Role::Scout => Gear::Scout,
            Role::Aligner => Gear::Aligner,
            Role::Scrambler => Gear::Scrambler,
            Role::Resting | Role::ChoosingRole => Gear::None,
        }
    }

    /// HP reserve of the role's risk class: conservative 40, moderate 30, aggressive 20.
    pub const fn reserve(self) -> i32 {
        match self {
            Role::Aligner => 30,
            Role::Scout | Role::Scrambler => 20,
            Role::Miner | Role::Resting | Role::ChoosingRole => 40,
        }
    }

    /// Whether the risk class is aggressive (scout, scrambler).
    pub const fn aggressive(self) -> bool {
        matches!(self, Role::Scout | Role::Scrambler)
    }

    /// Index in [`Role::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A mode: what the agent is doing; it drives behaviour (§13.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// No task: the role's idle rule picks the next mode.
    Idle,
    /// Acquiring the role's gear.
    GetGear,
    /// Returning to safety.
    Retreat,
    /// Searching for something unknown.
    Explore,
    /// Navigating to a cell.
    MoveTo,
    /// Miner: extracting.
    Harvest,
    /// Miner: delivering cargo.
    Deposit,
    /// Scout: exploring frontiers.
    FrontierExplore,
    /// Scout: returning to a friendly building.
    Report,
    /// Aligner/scrambler: getting hearts.
    AcquireHearts,
    /// Aligner: converting a neutral junction.
    AlignJunction,
    /// Scrambler: neutralising a clips junction.
    RaidJunction,
}

impl Mode {
    /// Every mode, in occupancy order.
    pub const ALL: [Mode; 12] = [
        Mode::Idle,
        Mode::GetGear,
        Mode::Retreat,
        Mode::Explore,
        Mode::MoveTo,
        Mode::Harvest,
        Mode::Deposit,
        Mode::FrontierExplore,
        Mode::Report,
        Mode::AcquireHearts,
        Mode::AlignJunction,
        Mode::RaidJunction,
    ];

    /// The mode's name.
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Idle => "idle",
            Mode::GetGear => "get_gear",
            Mode::Retreat => "retreat",
            Mode::Explore => "explore",
            Mode::MoveTo => "move_to",
            Mode::Harvest => "harvest",
            Mode::Deposit => "deposit",
            Mode::FrontierExplore => "frontier_explore",
            Mode::Report => "report",
            Mode::AcquireHearts => "acquire_hearts",
            Mode::AlignJunction => "align_junction",
            Mode::RaidJunction => "raid_junction",
        }
    }

    /// Index in [`Mode::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// Mood (§13.7), recomputed every step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mood {
    /// pct > 80, safe, no clips junction within 12.
    Calm,
    /// Every other case.
    Cautious,
    /// 20 ≤ pct < 50.
    Urgent,
    /// pct < 20.
    Desperate,
}

impl Mood {
    /// The mood's name.
    pub const fn name(self) -> &'static str {
        match self {
            Mood::Calm => "calm",
            Mood::Cautious => "cautious",
            Mood::Urgent => "urgent",
            Mood::Desperate => "desperate",
        }
    }
}

/// What an `explore` searches for (`find_<thing>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thing {
    /// The station of a role gear.
    Station(Gear),
    /// An eligible usable extractor.
    Extractor,
    /// An eligible align target.
    NeutralJunction,
    /// An eligible raid target.
    ClipsJunction,
    /// A chest.
    Chest,
    /// A hub or cogs junction to deposit at.
    Depot,
}

/// A goal's intent (its label).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoalKind {
    /// Get the role's gear.
    GetGear,
    /// Harvest element e (`get_<el>`).
    Get(usize),
    /// Deliver cargo.
    DepositCargo,
    /// Get hearts at a chest.
    GetHearts,
    /// Align the dest junction.
    AlignJunction,
    /// Scramble the dest junction.
    ScrambleJunction,
    /// Reach a frontier (scout).
    ExploreFrontier,
    /// Search for a thing.
    Find(Thing),
    /// Return next to a friendly building.
    Report,
    /// Reach safety.
    Retreat,
    /// Refill influence in a friendly aura.
    Recharge,
    /// Resting agent reaching safety.
    Rest,
    /// Wait at a safe cell.
    Hold,
}

impl GoalKind {
    /// Writes the goal's label.
    pub fn write(self, out: &mut String) {
        let s = match self {
            GoalKind::GetGear => "get_gear",
            GoalKind::Get(e) => {
                out.push_str("get_");
                ELEMENTS[e]
            }
            GoalKind::DepositCargo => "deposit_cargo",
            GoalKind::GetHearts => "get_hearts",
            GoalKind::AlignJunction => "align_junction",
            GoalKind::ScrambleJunction => "scramble_junction",
            GoalKind::ExploreFrontier => "explore_frontier",
            GoalKind::Find(t) => {
                out.push_str("find_");
                match t {
                    Thing::Station(g) => {
                        out.push_str(g.name());
                        "_station"
                    }
                    Thing::Extractor => "extractor",
                    Thing::NeutralJunction => "neutral_junction",
                    Thing::ClipsJunction => "clips_junction",
                    Thing::Chest => "chest",
                    Thing::Depot => "depot",
                }
            }
            GoalKind::Report => "report",
            GoalKind::Retreat => "retreat",
            GoalKind::Recharge => "recharge",
            GoalKind::Rest => "rest",
            GoalKind::Hold => "hold",
        };
        out.push_str(s);
    }
}

/// What a dest is, for its label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DestKind {
    /// An object of this kind (`hub`, `junction`, `chest`, `<el>_extractor`, `<role>_station`).
    Object(Kind),
    /// A frontier cell.
    Frontier,
    /// A safe cell.
    Safe,
    /// Any other cell.
    Cell,
}

/// A goal's destination: label and absolute position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dest {
    /// The label.
    pub kind: DestKind,
    /// Absolute (row, col).
    pub pos: (u16, u16),
}

impl Dest {
    /// The dest's label.
    pub fn label(&self) -> &'static str {
        match self.kind {
            DestKind::Object(k) => k.label(),
            DestKind::Frontier => "frontier",
            DestKind::Safe => "safe",
            DestKind::Cell => "cell",
        }
    }

    /// Whether a goal timeout on this dest avoids it (extractor, junction or frontier cell).
    pub fn avoidable(&self) -> bool {
        match self.kind {
            DestKind::Object(k) => k == Kind::Junction || k.element().is_some(),
            DestKind::Frontier => true,
            DestKind::Safe | DestKind::Cell => false,
        }
    }
}

/// A goal: intent, destination, start step. The timeout is the policy's `T`; the success
/// condition is the one of the mode that set it (§13.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Goal {
    /// Label.
    pub kind: GoalKind,
    /// Destination, if any.
    pub dest: Option<Dest>,
    /// Decision step at which it was set.
    pub started_at_step: u32,
}
