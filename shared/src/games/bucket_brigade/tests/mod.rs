//! Tests of the bucket_brigade engine against its spec. One file per concern:
//!
//! - `rules`: each phase of a night and the termination rule, on hand-built towns.
//! - `scenario`: overrides, validation and error messages (§2).
//! - `rewards`: each reward term of both models, hand-computed.
//! - `worked_example`: §6.3 reproduced exactly with injected draws (invariant 8).
//! - `policies`: the policies' draws and decisions, and their spec strings.
//! - `replay`: the episode record and the replay JSON (§10).
//! - `props`: proptest invariants of §12.
//! - `determinism`: same job, split jobs, reused games, seat replacement.
//! - `parity`: the published random baselines (§12).
//! - `stats`: typed stats serialize as the map they stand for.
//! - `stepper`: the phase-at-a-time stepper gives `play`'s episodes; views survive their codes.
//! - `golden`: pinned outcomes and trajectory hashes (`shared/tests/golden/bucket_brigade.csv`).

use super::*;

mod determinism;
mod golden;
mod parity;
mod policies;
mod props;
mod replay;
mod rewards;
mod rules;
mod scenario;
mod stats;
mod stepper;
mod worked_example;

/// A scenario spec string resolved (panics on a bad one: tests only).
fn scenario(s: &str) -> Scenario {
    Scenario::from_spec(&crate::spec::Spec::parse(s).unwrap()).unwrap()
}

/// A prepared game (panics on a bad one: tests only).
fn game(sc: &str, team: &[&str]) -> BucketBrigade {
    BucketBrigade::from_strs(sc, team).unwrap_or_else(|e| panic!("{sc} {team:?}: {e}"))
}

/// Houses from a string of `.` (Safe), `B` (Burning) and `R` (Ruined).
fn town(s: &str) -> Houses {
    let mut out = ALL_SAFE;
    assert_eq!(s.len(), NUM_HOUSES);
    for (h, c) in s.chars().enumerate() {
        out[h] = match c {
            '.' => House::Safe,
            'B' => House::Burning,
            'R' => House::Ruined,
            _ => panic!("bad house {c:?}"),
        };
    }
    out
}

/// Modes from a string of `W` and `R`.
fn modes(s: &str) -> Vec<Mode> {
    s.chars().map(|c| if c == 'W' { Mode::Work } else { Mode::Rest }).collect()
}

/// Actions from (house, 'W' | 'R') pairs.
fn acts(list: &[(u8, char)]) -> Vec<Action> {
    list.iter().map(|&(h, m)| Action::new(h, if m == 'W' { Mode::Work } else { Mode::Rest })).collect()
}

/// Asserts two floats agree to 1e-9 (relative), the spec's cross-implementation tolerance.
#[track_caller]
fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}
