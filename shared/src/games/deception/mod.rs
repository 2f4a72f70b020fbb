//! The `deception` game (placeholder until its engine lands: every job is refused).

use crate::games::{Buckets, Entry, Episode, Game, GameInfo, GameKind};
use crate::protocol::{JobError, JobErrorKind};
use crate::spec::Spec;
use crate::RunEnv;

/// The `deception` game, prepared for one job.
#[derive(Debug)]
pub struct Deception {
    _private: (),
}

impl Game for Deception {
    const INFO: GameInfo = GameInfo {
        kind: GameKind::Deception,
        rules_version: "deception-rules-1",
        scenarios: &[Entry { name: "default", about: "not implemented yet" }],
        policies: &[],
        stat_keys: &[],
        win_outcome: None,
        outcomes: &[],
        buckets: Buckets { team_reward: &[0.0], length: &[1.0], agent_reward: &[0.0] },
    };

    fn prepare(_scenario: &Spec, _team: &[Spec], _env: &RunEnv) -> Result<Self, JobError> {
        Err(JobError::new(JobErrorKind::UnknownGame, "the deception engine is not built yet"))
    }

    fn default_episodes_per_job(_scenario: &Spec) -> u64 {
        100
    }

    fn play(&mut self, _seed: u64, _replay: bool) -> Episode {
        unreachable!("prepare never succeeds")
    }
}
