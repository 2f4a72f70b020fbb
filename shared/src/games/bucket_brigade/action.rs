//! What agents say and do each night (spec §1, §4): modes, signals and actions.

/// REST or WORK: both a signal (what an agent says it will do) and a mode (what it does).
/// The discriminants are the spec's codes (REST 0, WORK 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Mode {
    /// Stay home; earns `reward_rest`.
    Rest = 0,
    /// Fight the fire at the chosen house; costs `cost_to_work_one_night`.
    Work = 1,
}

impl Mode {
    /// The spec's code (REST 0, WORK 1).
    #[inline]
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The mode of an `index(2)` draw: 0 → REST, 1 → WORK.
    #[inline]
    pub const fn from_index(i: usize) -> Mode {
        if i == 0 {
            Mode::Rest
        } else {
            Mode::Work
        }
    }

    /// The other mode.
    #[inline]
    pub const fn opposite(self) -> Mode {
        match self {
            Mode::Rest => Mode::Work,
            Mode::Work => Mode::Rest,
        }
    }
}

/// One agent's action of a night: a house and a mode.
///
/// `house` is a plain index so that a wrong one can be represented and refused: the engine
/// rejects a house outside 0..9 with a typed error instead of repairing it (§4 step 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Action {
    /// The house the agent goes to, 0..9.
    pub house: u8,
    /// Whether it works there or rests.
    pub mode: Mode,
}

impl Action {
    /// An action.
    #[inline]
    pub const fn new(house: u8, mode: Mode) -> Action {
        Action { house, mode }
    }
}

/// What one agent did on the previous night, as the observation shows it (§7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LastAction {
    /// The house it went to.
    pub house: u8,
    /// What it did there.
    pub mode: Mode,
    /// What it had signalled.
    pub signal: Mode,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_spec() {
        assert_eq!(Mode::Rest.code(), 0);
        assert_eq!(Mode::Work.code(), 1);
        assert_eq!(Mode::from_index(0), Mode::Rest);
        assert_eq!(Mode::from_index(1), Mode::Work);
        assert_eq!(Mode::Rest.opposite(), Mode::Work);
        assert_eq!(Mode::Work.opposite(), Mode::Rest);
    }
}
