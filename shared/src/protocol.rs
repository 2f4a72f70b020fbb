//! The messages between coordinator and workers, and the episode record every export carries.
//!
//! Everything here is a plain serde struct encoded with rmp-serde as named-field maps, so a
//! field added later (with `#[serde(default)]`) does not break older readers. The protocol is
//! versioned: a worker that gets a job of another version answers it with a typed
//! [`JobError`] of kind `unsupported_version` instead of guessing ([`check_version`]).
//!
//! Nothing here names a game: an episode's game-specific figures are [`Stats`], a map or a
//! game's own typed value behind a trait object.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The version of [`Job`] and [`JobResult`] this build speaks.
pub const PROTOCOL_VERSION: u32 = 1;

pub use crate::stats::{Stats, StatsMap};

use crate::aggregate::CellAggregate;

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

/// One played episode: the fields every game fills (its spec maps the game onto them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpisodeRecord {
    /// The episode seed.
    pub seed: u64,
    /// A short game-defined label (`success`, `crewmates`, `cogs_ahead`, …).
    pub outcome: String,
    /// The game's natural episode length (nights, ticks, rounds).
    pub length: u32,
    /// Whether the episode was cut by a length limit.
    pub truncated: bool,
    /// The team reward of the game's active reward model.
    pub team_reward: f64,
    /// One reward per seat.
    pub agent_rewards: Vec<f64>,
    /// FNV-1a 64 of the trajectory, 16 lowercase hex digits.
    pub trajectory_hash: String,
    /// The game's extra figures.
    pub stats: Stats,
}

/// What went wrong with a job. Its `kind` is also the `error_kind` metric label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobErrorKind {
    /// The message is not a job at all.
    Undecodable,
    /// The job speaks another protocol version.
    UnsupportedVersion,
    /// The game id is not one this build knows.
    UnknownGame,
    /// A scenario field, policy spec or parameter is invalid.
    InvalidJob,
    /// The engine panicked (a bug; the worker survives it).
    EnginePanic,
    /// The sweep was cancelled.
    Cancelled,
}

impl JobErrorKind {
    /// Every kind.
    pub const ALL: [JobErrorKind; 6] = [
        JobErrorKind::Undecodable,
        JobErrorKind::UnsupportedVersion,
        JobErrorKind::UnknownGame,
        JobErrorKind::InvalidJob,
        JobErrorKind::EnginePanic,
        JobErrorKind::Cancelled,
    ];

    /// The snake_case name (the metric label).
    pub const fn as_str(self) -> &'static str {
        match self {
            JobErrorKind::Undecodable => "undecodable",
            JobErrorKind::UnsupportedVersion => "unsupported_version",
            JobErrorKind::UnknownGame => "unknown_game",
            JobErrorKind::InvalidJob => "invalid_job",
            JobErrorKind::EnginePanic => "engine_panic",
            JobErrorKind::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for JobErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A typed job failure. Displayed as `invalid <field> = <value>: <reason>` when it names a field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobError {
    /// The kind.
    pub kind: JobErrorKind,
    /// The field at fault: `scenario.<field>`, `policy_set[<seat>].<param>`, `game`, ….
    pub field: Option<String>,
    /// The offending value as written.
    pub value: Option<String>,
    /// The reason, for a person.
    pub message: String,
}

impl JobError {
    /// An error of `kind` with no field.
    pub fn new(kind: JobErrorKind, message: impl Into<String>) -> JobError {
        JobError { kind, field: None, value: None, message: message.into() }
    }

    /// An `invalid_job` naming `field = value` and the reason.
    pub fn invalid(field: impl Into<String>, value: impl fmt::Display, reason: impl Into<String>) -> JobError {
        JobError {
            kind: JobErrorKind::InvalidJob,
            field: Some(field.into()),
            value: Some(value.to_string()),
            message: reason.into(),
        }
    }
}

/// Checks that a job speaks this build's [`PROTOCOL_VERSION`]; otherwise the `unsupported_version`
/// error to answer it with. The worker checks the envelope before decoding the rest, `run_job`
/// checks the job again: both call this.
pub fn check_version(version: u32) -> Result<(), JobError> {
    if version == PROTOCOL_VERSION {
        return Ok(());
    }
    Err(JobError {
        kind: JobErrorKind::UnsupportedVersion,
        field: Some("protocol_version".into()),
        value: Some(version.to_string()),
        message: format!("this worker speaks protocol version {PROTOCOL_VERSION}"),
    })
}

impl fmt::Display for JobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.field, &self.value) {
            (Some(field), Some(value)) => write!(f, "invalid {field} = {value}: {}", self.message),
            (Some(field), None) => write!(f, "invalid {field}: {}", self.message),
            _ => write!(f, "{}: {}", self.kind, self.message),
        }
    }
}

impl std::error::Error for JobError {}

/// A worker's answer to one job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// [`PROTOCOL_VERSION`] of the worker.
    pub protocol_version: u32,
    /// Sweep id of the job.
    pub sweep: String,
    /// Job index.
    pub index: u64,
    /// Which worker played it (its id; not part of the determinism contract).
    pub worker: String,
    /// `"<crate semver>+<rules_version>"`; empty when the game is unknown.
    pub engine_version: String,
    /// Game id, scenario string and policy set name of the job (empty when undecodable), so a
    /// result can be exported without the sweep definition.
    #[serde(default)]
    pub game: String,
    /// Scenario spec string as written.
    #[serde(default)]
    pub scenario: String,
    /// Policy set name.
    #[serde(default)]
    pub policy_set: String,
    /// Wall time the worker spent, in seconds (not part of the determinism contract).
    pub elapsed_seconds: f64,
    /// One JSON replay per seed, when the job asked.
    #[serde(default)]
    pub replays: Option<Vec<String>>,
    /// One record per seed, in seed order; empty on error and in a summary result.
    pub records: Vec<EpisodeRecord>,
    /// The aggregate of the job's episodes, when the job collected a summary. Not written when
    /// absent, so a records result encodes as it did before the field existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Box<CellAggregate>>,
    /// Set when the job failed; then `records` is empty and `summary` absent.
    pub error: Option<JobError>,
}

impl JobResult {
    /// An answer from `worker` to job `index` of `sweep`, with no engine version, records or
    /// error yet. The game, scenario and policy set name come from `job` when it decoded (empty
    /// otherwise), so that even a failure can be exported and counted per game.
    pub fn empty(worker: &str, sweep: String, index: u64, job: Option<&Job>) -> JobResult {
        JobResult {
            protocol_version: PROTOCOL_VERSION,
            sweep,
            index,
            worker: worker.to_string(),
            engine_version: String::new(),
            game: job.map(|j| j.game.clone()).unwrap_or_default(),
            scenario: job.map(|j| j.scenario.clone()).unwrap_or_default(),
            policy_set: job.map(|j| j.policy_set.name.clone()).unwrap_or_default(),
            elapsed_seconds: 0.0,
            replays: None,
            records: Vec::new(),
            summary: None,
            error: None,
        }
    }

    /// Episodes this result answers for: its records, or its summary's episodes.
    pub fn episodes(&self) -> u64 {
        self.summary.as_ref().map_or(self.records.len() as u64, |s| s.episodes)
    }

    /// The answer to a job that failed with `error` (see [`JobResult::empty`]): no records.
    pub fn failed(worker: &str, sweep: String, index: u64, job: Option<&Job>, error: JobError) -> JobResult {
        JobResult { error: Some(error), ..JobResult::empty(worker, sweep, index, job) }
    }
}

/// Why bytes do not decode.
#[derive(Debug, thiserror::Error)]
#[error("undecodable message: {0}")]
pub struct DecodeError(#[from] rmp_serde::decode::Error);

/// Encodes any protocol value as a named-field MessagePack map.
pub fn encode<T: Serialize + 'static>(value: &T) -> Vec<u8> {
    // A result, what every worker encodes once per job, is written field by field so that its
    // records' typed stats take their game's own encoder; the bytes are the same.
    if let Some(result) = (value as &dyn std::any::Any).downcast_ref::<JobResult>() {
        return encode_result(result);
    }
    // Serialising these plain structs into a Vec cannot fail: no maps with non-string keys, no
    // I/O. A failure would be a bug in a derive, so it is allowed to panic.
    rmp_serde::to_vec_named(value).expect("protocol values always encode")
}

/// A [`JobResult`] as `rmp_serde::to_vec_named` writes it: a map of its fields in declaration
/// order, each record a map of its own, but each record's stats written by
/// [`Stats::write_msgpack`] (typed stats without `erased_serde`).
fn encode_result(result: &JobResult) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    write_result_head(&mut out, result, result.records.len());
    let records_start = out.len();
    for (i, record) in result.records.iter().enumerate() {
        if i == 1 {
            reserve_rest(&mut out, records_start, result.records.len());
        }
        write_record(&mut out, record);
    }
    write_result_tail(&mut out, result);
    out
}

/// After a result's first record: room for the rest at once, instead of doubling (and copying)
/// the buffer as it fills. The records of a job are alike in size (250 bytes to 1 KB by game).
/// Never more than 64 MiB ahead: when the records are written as they are played
/// ([`ResultWriter`]) they are not there yet, and a job announcing millions of them must fail as
/// too large for the server once played, not abort the process on an allocation.
fn reserve_rest(out: &mut Vec<u8>, records_start: usize, records: usize) {
    let first = out.len() - records_start;
    let rest = first.saturating_add(first / 4).saturating_mul(records.saturating_sub(1));
    out.reserve(rest.min(64 << 20));
}

fn write_len(out: &mut Vec<u8>, len: usize, map: bool) {
    let len = u32::try_from(len).expect("fewer than 2^32 entries");
    let written = if map { rmp::encode::write_map_len(out, len) } else { rmp::encode::write_array_len(out, len) };
    written.expect("writing to a Vec cannot fail");
}

fn write_field<T: Serialize + ?Sized>(out: &mut Vec<u8>, name: &str, value: &T) {
    rmp::encode::write_str(out, name).expect("writing to a Vec cannot fail");
    rmp_serde::encode::write_named(out, value).expect("protocol values always encode");
}

/// A result's fields up to its records' array header (of `records` records); the offset of
/// `elapsed_seconds`' f64 (always its 9-byte form, as `rmp_serde` writes an `f64`) is returned.
/// The destructuring names every field, so a field added to the struct does not compile until it
/// is written here or in [`write_result_tail`] too.
fn write_result_head(out: &mut Vec<u8>, result: &JobResult, records: usize) -> usize {
    let JobResult {
        protocol_version,
        sweep,
        index,
        worker,
        engine_version,
        game,
        scenario,
        policy_set,
        elapsed_seconds,
        replays,
        records: _,
        summary,
        error: _,
    } = result;
    write_len(out, 12 + usize::from(summary.is_some()), true);
    write_field(out, "protocol_version", protocol_version);
    write_field(out, "sweep", sweep);
    write_field(out, "index", index);
    write_field(out, "worker", worker);
    write_field(out, "engine_version", engine_version);
    write_field(out, "game", game);
    write_field(out, "scenario", scenario);
    write_field(out, "policy_set", policy_set);
    rmp::encode::write_str(out, "elapsed_seconds").expect("writing to a Vec cannot fail");
    let elapsed_at = out.len();
    crate::msgpack::f64(out, *elapsed_seconds);
    write_field(out, "replays", replays);
    rmp::encode::write_str(out, "records").expect("writing to a Vec cannot fail");
    write_len(out, records, false);
    elapsed_at
}

/// A result's fields after its records.
fn write_result_tail(out: &mut Vec<u8>, result: &JobResult) {
    if let Some(summary) = &result.summary {
        write_field(out, "summary", summary);
    }
    write_field(out, "error", &result.error);
}

/// One record, as `rmp_serde` writes it, its stats through [`Stats::write_msgpack`].
fn write_record(out: &mut Vec<u8>, record: &EpisodeRecord) {
    let EpisodeRecord { seed, outcome, length, truncated, team_reward, agent_rewards, trajectory_hash, stats } = record;
    // The record's fields written directly, as `rmp_serde` writes them (`crate::msgpack`):
    // a record is ~250 bytes, and a serializer per field cost most of the encoding's time.
    use crate::msgpack as mp;
    mp::map_len(out, 8);
    out.extend_from_slice(mp::fixstr!("seed"));
    mp::uint(out, *seed);
    out.extend_from_slice(mp::fixstr!("outcome"));
    mp::str(out, outcome);
    out.extend_from_slice(mp::fixstr!("length"));
    mp::uint(out, u64::from(*length));
    out.extend_from_slice(mp::fixstr!("truncated"));
    mp::bool(out, *truncated);
    out.extend_from_slice(mp::fixstr!("team_reward"));
    mp::f64(out, *team_reward);
    out.extend_from_slice(mp::fixstr!("agent_rewards"));
    mp::array_len(out, agent_rewards.len());
    for &r in agent_rewards {
        mp::f64(out, r);
    }
    out.extend_from_slice(mp::fixstr!("trajectory_hash"));
    mp::str(out, trajectory_hash);
    out.extend_from_slice(mp::fixstr!("stats"));
    stats.write_msgpack(out);
}

/// A records result encoded while its job plays: [`encode`] of the [`JobResult`] that `head`
/// (a result without records) would be with the records given to [`ResultWriter::record`],
/// byte for byte, without keeping them. The worker's path for records jobs: each record is
/// written and dropped as it is played, instead of a job's records (megabytes of small
/// allocations) being held, encoded and dropped in passes of their own.
pub struct ResultWriter {
    out: Vec<u8>,
    head: JobResult,
    elapsed_at: usize,
    records_start: usize,
    announced: usize,
    written: usize,
}

impl ResultWriter {
    /// The result `head` with `records` records to come (`head.records` is ignored).
    pub fn new(head: JobResult, records: usize) -> ResultWriter {
        let mut out = Vec::with_capacity(1024);
        let elapsed_at = write_result_head(&mut out, &head, records);
        let records_start = out.len();
        ResultWriter { out, head, elapsed_at, records_start, announced: records, written: 0 }
    }

    /// Appends the next record.
    pub fn record(&mut self, record: &EpisodeRecord) {
        if self.written == 1 {
            reserve_rest(&mut self.out, self.records_start, self.announced);
        }
        self.written += 1;
        write_record(&mut self.out, record);
    }

    /// The encoded result, with `elapsed_seconds` filled in; `None` unless exactly the announced
    /// records were written.
    pub fn finish(mut self, elapsed_seconds: f64) -> Option<Vec<u8>> {
        if self.written != self.announced {
            return None;
        }
        self.head.elapsed_seconds = elapsed_seconds;
        let mut f = Vec::with_capacity(9);
        crate::msgpack::f64(&mut f, elapsed_seconds);
        self.out[self.elapsed_at..self.elapsed_at + 9].copy_from_slice(&f);
        write_result_tail(&mut self.out, &self.head);
        Some(self.out)
    }
}

/// Decodes a protocol value.
pub fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, DecodeError> {
    Ok(rmp_serde::from_slice(bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_job() -> Job {
        Job {
            protocol_version: PROTOCOL_VERSION,
            sweep: "demo-0123456789ab".into(),
            index: 7,
            game: "bucket_brigade".into(),
            scenario: "default?num_agents=5".into(),
            policy_set: PolicySet { name: "mixed".into(), seats: vec!["hero".into(); 5] },
            seeds: SeedRange { start: 100, count: 250 },
            replay: false,
            collect: Collect::Records,
        }
    }

    fn sample_record() -> EpisodeRecord {
        let mut stats = StatsMap::new();
        stats.insert("termination_reason".into(), "no_fires".into());
        stats.insert("agent_lies".into(), serde_json::json!([0, 1, 2, 3]));
        stats.insert("vote_accuracy".into(), serde_json::Value::Null);
        stats.insert("mean".into(), serde_json::json!(0.25));
        EpisodeRecord {
            seed: u64::MAX - 3,
            outcome: "success".into(),
            length: 13,
            truncated: false,
            team_reward: -12.5,
            agent_rewards: vec![1.0, -0.5, 1e300, 0.1],
            trajectory_hash: "0123456789abcdef".into(),
            stats: stats.into(),
        }
    }

    #[test]
    fn job_round_trips() {
        let job = sample_job();
        let back: Job = decode(&encode(&job)).unwrap();
        assert_eq!(back, job);
        let env: JobEnvelope = decode(&encode(&job)).unwrap();
        assert_eq!((env.protocol_version, env.sweep.as_str(), env.index), (1, "demo-0123456789ab", 7));
    }

    #[test]
    fn result_round_trips_with_records_and_errors() {
        let mut res = JobResult {
            protocol_version: PROTOCOL_VERSION,
            sweep: "s-000000000000".into(),
            index: 1,
            worker: "w1".into(),
            engine_version: "0.1.0+bucket_brigade-rules-1".into(),
            game: "bucket_brigade".into(),
            scenario: "default".into(),
            policy_set: "p".into(),
            elapsed_seconds: 0.5,
            replays: Some(vec!["{}".into()]),
            records: vec![sample_record(), sample_record()],
            summary: None,
            error: None,
        };
        let back: JobResult = decode(&encode(&res)).unwrap();
        assert_eq!(back, res);
        res.records.clear();
        res.error = Some(JobError::invalid("scenario.num_agents", 11, "must be within 4..=10"));
        let back: JobResult = decode(&encode(&res)).unwrap();
        assert_eq!(back, res);
        assert_eq!(back.error.unwrap().to_string(), "invalid scenario.num_agents = 11: must be within 4..=10");
    }

    /// Typed stats of no game: a struct with the shapes games use.
    #[derive(Debug, Serialize)]
    struct Figures {
        rounds: Vec<(u32, Option<&'static str>)>,
        rate: Option<f64>,
        by_seat: std::collections::BTreeMap<String, u32>,
    }

    impl crate::stats::TypedStats for Figures {
        fn to_map(&self) -> StatsMap {
            crate::stats::map_of(self)
        }

        fn write_msgpack(&self, out: &mut Vec<u8>) {
            crate::stats::write_msgpack_of(self, out);
        }
    }

    #[test]
    fn a_result_encodes_field_by_field_to_the_derives_bytes() {
        let typed = Figures {
            rounds: vec![(1, Some("save_minority")), (2, None)],
            rate: Some(0.5),
            by_seat: [("2".to_string(), 7), ("10".to_string(), 0)].into(),
        };
        let mut with_typed = sample_record();
        with_typed.stats = Stats::typed(typed);
        let mut res = JobResult {
            protocol_version: PROTOCOL_VERSION,
            sweep: "s-000000000000".into(),
            index: u64::MAX,
            worker: "w1".into(),
            engine_version: "0.1.0+trolley-rules-1".into(),
            game: "trolley".into(),
            scenario: "balanced_5p".into(),
            policy_set: "p".into(),
            elapsed_seconds: 0.25,
            replays: Some(vec!["{}".into()]),
            records: vec![sample_record(), with_typed, sample_record()],
            summary: None,
            error: None,
        };
        // `rmp_serde` on the derive (typed stats through `erased_serde`) is the reference.
        assert_eq!(encode(&res), rmp_serde::to_vec_named(&res).unwrap());
        let back: JobResult = decode(&encode(&res)).unwrap();
        assert_eq!(back, res);
        res.records.clear();
        res.replays = None;
        res.error = Some(JobError::new(JobErrorKind::EnginePanic, "boom"));
        assert_eq!(encode(&res), rmp_serde::to_vec_named(&res).unwrap());
    }

    #[test]
    fn records_mode_jobs_and_results_are_what_older_peers_read_and_write() {
        // A records job and a records result write no `collect` and no `summary` key: their
        // bytes are those of the protocol before summaries existed.
        let keys = |bytes: &[u8]| -> Vec<String> {
            let v: serde_json::Value = rmp_serde::from_slice(bytes).unwrap();
            v.as_object().unwrap().keys().cloned().collect()
        };
        let job = sample_job();
        assert!(!keys(&encode(&job)).contains(&"collect".to_string()));
        let mut result = JobResult::empty("w", job.sweep.clone(), 7, Some(&job));
        result.records = vec![sample_record()];
        assert_eq!(keys(&encode(&result)).len(), 12, "the twelve fields of version 1");
        // And what an older coordinator sends, without those keys, reads as records mode.
        let mut old: serde_json::Map<String, serde_json::Value> =
            serde_json::from_value(serde_json::to_value(&job).unwrap()).unwrap();
        old.remove("collect");
        let back: Job = decode(&rmp_serde::to_vec_named(&old).unwrap()).unwrap();
        assert_eq!(back.collect, Collect::Records);
        let summary = Job { collect: Collect::Summary, ..job };
        assert_eq!(decode::<Job>(&encode(&summary)).unwrap().collect, Collect::Summary);
    }

    #[test]
    fn record_encoding_is_stable() {
        // Same value, same bytes: the determinism contract is stated on encoded records.
        assert_eq!(encode(&sample_record()), encode(&sample_record()));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for bytes in [&b""[..], b"\xff\xff", b"hello world", &[0x81, 0xa1, b'x', 0xc0]] {
            assert!(decode::<Job>(bytes).is_err());
        }
    }

    #[test]
    fn the_wire_layer_names_no_game() {
        // Built from pieces so that this test does not find itself.
        let needles = [concat!("crate::", "games"), concat!("Trolley", "Stats")];
        for (file, source) in [("protocol.rs", include_str!("protocol.rs")), ("stats.rs", include_str!("stats.rs"))] {
            for needle in needles {
                assert!(!source.contains(needle), "{file} names {needle}: the protocol must not depend on a game");
            }
        }
    }

    #[test]
    fn error_kinds_are_snake_case_on_the_wire() {
        for kind in JobErrorKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
        }
    }
}
