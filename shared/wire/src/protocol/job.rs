//! What the coordinator sends: a [`Job`] (a cell of a sweep and a range of seeds), and the
//! [`JobEnvelope`] a worker decodes first.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a job's result carries: every episode's record, or one aggregate of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Collect {
    /// One [`EpisodeRecord`] per seed (the default).
    #[default]
    Records,
    /// One [`CellAggregate`] of the job's episodes in [`JobResult::summary`].
    Summary,
}

impl Collect {
    /// Whether this is [`Collect::Records`] (which a job does not write on the wire).
    pub fn is_records(&self) -> bool {
        *self == Collect::Records
    }

    /// `records` or `summary`, as written in a sweep file and on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Collect::Records => "records",
            Collect::Summary => "summary",
        }
    }
}

impl fmt::Display for Collect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Collect {
    type Err = String;
    fn from_str(s: &str) -> Result<Collect, String> {
        match s {
            "records" => Ok(Collect::Records),
            "summary" => Ok(Collect::Summary),
            other => Err(format!("{other:?} is not a collect mode: use \"records\" or \"summary\"")),
        }
    }
}

/// A range of episode seeds: `start, start+1, …, start+count−1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedRange {
    /// The first seed.
    pub start: u64,
    /// How many episodes.
    pub count: u64,
}

impl SeedRange {
    /// The seeds in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> {
        let SeedRange { start, count } = *self;
        (0..count).map(move |i| start.wrapping_add(i))
    }
}

/// A named team: one policy spec string per agent seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicySet {
    /// The name given in the sweep file.
    pub name: String,
    /// One policy spec per seat, in seat order.
    pub seats: Vec<String>,
}

/// One unit of work: a cell of a sweep and a range of seeds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// [`PROTOCOL_VERSION`] of the sender.
    pub protocol_version: u32,
    /// The sweep id (`<slug>-<12 hex>`).
    pub sweep: String,
    /// Index of this job in the sweep's expansion order.
    pub index: u64,
    /// Game id (`GameKind::as_str`); a string so that an unknown game is a typed error.
    pub game: String,
    /// Scenario spec string as written in the sweep (`name?field=value&…`).
    pub scenario: String,
    /// The team.
    pub policy_set: PolicySet,
    /// The episodes to play.
    pub seeds: SeedRange,
    /// Whether to return one JSON replay per seed.
    #[serde(default)]
    pub replay: bool,
    /// What the result carries. Not written when `records`, so a records job encodes as it did
    /// before the field existed.
    #[serde(default, skip_serializing_if = "Collect::is_records")]
    pub collect: Collect,
    /// The other policy sets of the job's (game, scenario), played on the same seeds after
    /// `policy_set` (a summary job only): the result carries their aggregates and the moments of
    /// the per-seed differences between every two of them (`JobResult::paired`). A job with
    /// paired sets is protocol version 2 ([`Job::required_version`]); without, it is written as
    /// before the field existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paired: Vec<PolicySet>,
}

impl Job {
    /// The oldest protocol version that carries this job: 2 with paired policy sets (an older
    /// worker would play only the first and answer a summary without the pairs, so it must
    /// refuse the job instead), 1 otherwise.
    pub fn required_version(&self) -> u32 {
        if self.paired.is_empty() {
            1
        } else {
            2
        }
    }

    /// Every policy set the job plays, in order: `policy_set`, then the paired ones.
    pub fn policy_sets(&self) -> impl Iterator<Item = &PolicySet> {
        std::iter::once(&self.policy_set).chain(&self.paired)
    }

    /// This job as one of its policy sets plays it: the same seeds, `policy_set` alone.
    pub fn for_set(&self, policy_set: &PolicySet) -> Job {
        Job { policy_set: policy_set.clone(), paired: Vec::new(), ..self.clone() }
    }
}

/// The first fields of a [`Job`]: what a worker decodes before anything else, so that even a
/// job it cannot understand can be answered on the right subject with the right index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobEnvelope {
    /// Protocol version of the sender.
    pub protocol_version: u32,
    /// Sweep id.
    pub sweep: String,
    /// Job index.
    pub index: u64,
}
