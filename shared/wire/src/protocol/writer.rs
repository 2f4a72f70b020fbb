//! The hand-written encoder of a [`JobResult`]: the bytes `rmp_serde::to_vec_named` writes, but
//! each record written directly (a record is ~250 bytes, and a serializer call per field cost
//! most of the encoding's time) and its typed stats by their game's own writer; and
//! [`ResultWriter`], which writes a records result while its job plays.

use serde::Serialize;

use super::{EpisodeRecord, JobResult};

impl JobResult {
    /// This result as [`super::encode`] writes it, field by field: the records' typed stats
    /// through their game's own writer instead of `erased_serde`. The same bytes, faster.
    pub fn encode(&self) -> Vec<u8> {
        encode_result(self)
    }
}

/// A [`JobResult`] as `rmp_serde::to_vec_named` writes it: a map of its fields in declaration
/// order, each record a map of its own, but each record's stats written by
/// [`Stats::write_msgpack`] (typed stats without `erased_serde`).
pub(super) fn encode_result(result: &JobResult) -> Vec<u8> {
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
        paired,
        error: _,
    } = result;
    write_len(out, 12 + usize::from(summary.is_some()) + usize::from(paired.is_some()), true);
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
    if let Some(paired) = &result.paired {
        write_field(out, "paired", paired);
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

/// A records result encoded while its job plays: [`JobResult::encode`] of the result that `head`
/// (a result without records) would be with the records given to [`ResultWriter::record`] (and
/// the replays given to [`ResultWriter::replay`]), byte for byte, without keeping them. The
/// worker's path for records jobs: each record is written and dropped as it is played, instead
/// of a job's records (megabytes of small allocations) being held, encoded and dropped in passes
/// of their own.
///
/// A job that asks for replays (`head.replays` is `Some`, empty) has them written before its
/// records, so its records wait in a buffer of their own until the end; no fleet job asks for
/// replays (`coordinator replay` plays in-process), so the fast path is the one without.
pub struct ResultWriter {
    out: Vec<u8>,
    head: JobResult,
    elapsed_at: usize,
    records_start: usize,
    announced: usize,
    written: usize,
    /// The records of a job with replays, until [`ResultWriter::finish`].
    later: Option<Vec<u8>>,
}

impl ResultWriter {
    /// The result `head` with `records` records to come (`head.records` is ignored; replays, if
    /// `head.replays` is `Some`, come through [`ResultWriter::replay`]).
    pub fn new(head: JobResult, records: usize) -> ResultWriter {
        let mut out = Vec::with_capacity(1024);
        let (elapsed_at, later) = match head.replays {
            None => (write_result_head(&mut out, &head, records), None),
            Some(_) => (0, Some(Vec::new())),
        };
        let records_start = out.len();
        ResultWriter { out, head, elapsed_at, records_start, announced: records, written: 0, later }
    }

    /// Appends the next record.
    pub fn record(&mut self, record: &EpisodeRecord) {
        let (out, start) = match &mut self.later {
            Some(later) => (later, 0),
            None => (&mut self.out, self.records_start),
        };
        if self.written == 1 {
            reserve_rest(out, start, self.announced);
        }
        self.written += 1;
        write_record(out, record);
    }

    /// Appends the next replay (a job with replays only; ignored otherwise).
    pub fn replay(&mut self, text: String) {
        if let Some(replays) = self.head.replays.as_mut() {
            replays.push(text);
        }
    }

    /// The encoded result, with `elapsed_seconds` filled in; `None` unless exactly the announced
    /// records were written.
    pub fn finish(mut self, elapsed_seconds: f64) -> Option<Vec<u8>> {
        if self.written != self.announced {
            return None;
        }
        self.head.elapsed_seconds = elapsed_seconds;
        if let Some(records) = self.later.take() {
            write_result_head(&mut self.out, &self.head, self.written);
            self.out.extend_from_slice(&records);
        } else {
            let mut f = Vec::with_capacity(9);
            crate::msgpack::f64(&mut f, elapsed_seconds);
            self.out[self.elapsed_at..self.elapsed_at + 9].copy_from_slice(&f);
        }
        write_result_tail(&mut self.out, &self.head);
        Some(self.out)
    }
}
