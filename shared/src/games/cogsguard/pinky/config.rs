//! The `pinky` policy spec (§13.3): `pinky?miner=a&scout=b&aligner=c&scrambler=d&timeout=T&review=P`.

use crate::field::{int, policy_path};
use crate::protocol::JobError;
use crate::spec::Spec;

use super::state::Role;

const KEYS: [&str; 6] = ["miner", "scout", "aligner", "scrambler", "timeout", "review"];

/// Parsed Pinky parameters. Two seats with equal configs share a rank sequence, whatever the
/// parameter order was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PinkyConfig {
    /// Fixed seats per role, in the rank order miner, scout, aligner, scrambler.
    pub counts: [u32; 4],
    /// Goal timeout T in steps (≥ 1).
    pub timeout: u32,
    /// Role review period P (0 = never).
    pub review: u32,
}

impl Default for PinkyConfig {
    fn default() -> PinkyConfig {
        PinkyConfig { counts: [0; 4], timeout: 100, review: 100 }
    }
}

impl PinkyConfig {
    /// Parses seat `seat`'s spec; errors name `policy_set[<seat>].<param>`.
    pub fn parse(seat: usize, spec: &Spec) -> Result<PinkyConfig, JobError> {
        if let Some((k, v)) = spec.unknown_key(&KEYS) {
            return Err(JobError::invalid(
                policy_path(seat, k),
                v,
                "unknown parameter (known: miner, scout, aligner, scrambler, timeout, review)",
            ));
        }
        let get = |key: &str, lo: i64, hi: i64, default: u32| -> Result<u32, JobError> {
            spec.get(key).map_or(Ok(default), |v| int(&policy_path(seat, key), v, lo, hi).map(|x| x as u32))
        };
        Ok(PinkyConfig {
            counts: [
                get("miner", 0, 20, 0)?,
                get("scout", 0, 20, 0)?,
                get("aligner", 0, 20, 0)?,
                get("scrambler", 0, 20, 0)?,
            ],
            timeout: get("timeout", 1, 100_000, 100)?,
            review: get("review", 0, 100_000, 100)?,
        })
    }

    /// The fixed role of rank k, or None for a flexible seat.
    pub fn fixed_role(&self, rank: usize) -> Option<Role> {
        let mut upto = 0usize;
        for (n, role) in self.counts.iter().zip(Role::ACTIVE) {
            upto += *n as usize;
            if rank < upto {
                return Some(role);
            }
        }
        None
    }
}
