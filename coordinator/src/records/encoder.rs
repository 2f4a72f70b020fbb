//! Encoding episode rows to the bytes of the line formats (`.jsonl`, `.csv`, `.msgpack`).
//!
//! Separate from the writer so that encoding can run where the records are made: `coordinator
//! run` encodes each job's rows on the thread that played it and hands the writer bytes, which
//! keeps the one writer thread from becoming the bottleneck on every core. The bytes are the
//! same wherever they are encoded.

use std::io;

use simfleet::protocol::JobResult;

use super::error::ExportError;
use super::format::Format;
use super::row::{RowRef, SCALAR_COLUMNS};

/// Encodes rows of one line format. Cheap to clone; shareable across threads.
#[derive(Clone, Debug)]
pub struct RowEncoder {
    format: Format,
    /// The CSV stats columns (unused by the other formats).
    stats: Vec<&'static str>,
}

impl RowEncoder {
    /// An encoder for `format`, or `None` for a format that is not line-based (Parquet).
    pub fn new(format: Format, stats: Vec<&'static str>) -> Option<RowEncoder> {
        match format {
            Format::Jsonl | Format::Csv | Format::Msgpack => Some(RowEncoder { format, stats }),
            Format::Parquet => None,
        }
    }

    /// The CSV header line (empty for the other formats).
    pub fn header(&self) -> Result<Vec<u8>, ExportError> {
        let mut out = Vec::new();
        if self.format == Format::Csv {
            let mut head: Vec<&str> = SCALAR_COLUMNS.to_vec();
            head.extend(["agent_rewards", "trajectory_hash"]);
            head.extend(self.stats.iter().copied());
            let mut w = csv::WriterBuilder::new().from_writer(&mut out);
            w.write_record(&head)?;
            w.flush()?;
        }
        Ok(out)
    }

    /// Appends the rows of every record of `result` to `out`; returns how many.
    pub fn encode_result(&self, result: &JobResult, out: &mut Vec<u8>) -> Result<u64, ExportError> {
        let rows = result.records.iter().map(|rec| RowRef::new(result, rec));
        self.encode_rows(rows, out)
    }

    /// Appends `rows` to `out`; returns how many.
    pub fn encode_rows<'a>(
        &self,
        rows: impl IntoIterator<Item = RowRef<'a>>,
        out: &mut Vec<u8>,
    ) -> Result<u64, ExportError> {
        let mut n = 0;
        match self.format {
            Format::Jsonl => {
                for row in rows {
                    serde_json::to_writer(&mut *out, &row).map_err(io::Error::from)?;
                    out.push(b'\n');
                    n += 1;
                }
            }
            Format::Msgpack => {
                for row in rows {
                    write_msgpack(&row, out);
                    n += 1;
                }
            }
            Format::Csv => {
                let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(&mut *out);
                let mut fields: Vec<String> = Vec::new();
                for row in rows {
                    self.csv_fields(&row, &mut fields);
                    w.write_record(fields.iter())?;
                    n += 1;
                }
                w.flush()?;
            }
            Format::Parquet => unreachable!("RowEncoder::new refuses Parquet"),
        }
        Ok(n)
    }

    fn csv_fields(&self, row: &RowRef<'_>, fields: &mut Vec<String>) {
        fields.clear();
        fields.extend([
            row.sweep.to_string(),
            row.job.to_string(),
            row.game.to_string(),
            row.engine_version.to_string(),
            row.scenario.to_string(),
            row.policy_set.to_string(),
            row.seed.to_string(),
            row.outcome.to_string(),
            row.length.to_string(),
            row.truncated.to_string(),
            json(&row.team_reward),
            json(&row.agent_rewards),
            row.trajectory_hash.to_string(),
        ]);
        for key in &self.stats {
            fields.push(match row.stats.as_map().get(*key) {
                None | Some(serde_json::Value::Null) => String::new(),
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(v) => json(v),
            });
        }
    }
}

/// Appends `row` as the named-field MessagePack map `rmp_serde` writes for a [`RowRef`] (its
/// fields in declaration order), field by field: a row is ~390 bytes, and going through a
/// serializer, with typed stats behind `erased_serde`, cost about a tenth of `coordinator run`'s
/// time. `encode_msgpack_is_rmp_serdes` compares the bytes.
fn write_msgpack(row: &RowRef<'_>, out: &mut Vec<u8>) {
    use simfleet::msgpack as mp;
    let RowRef {
        sweep,
        job,
        game,
        engine_version,
        scenario,
        policy_set,
        seed,
        outcome,
        length,
        truncated,
        team_reward,
        agent_rewards,
        trajectory_hash,
        stats,
    } = *row;
    mp::map_len(out, 14);
    mp::str(out, "sweep");
    mp::str(out, sweep);
    mp::str(out, "job");
    mp::uint(out, job);
    mp::str(out, "game");
    mp::str(out, game);
    mp::str(out, "engine_version");
    mp::str(out, engine_version);
    mp::str(out, "scenario");
    mp::str(out, scenario);
    mp::str(out, "policy_set");
    mp::str(out, policy_set);
    mp::str(out, "seed");
    mp::uint(out, seed);
    mp::str(out, "outcome");
    mp::str(out, outcome);
    mp::str(out, "length");
    mp::uint(out, u64::from(length));
    mp::str(out, "truncated");
    mp::bool(out, truncated);
    mp::str(out, "team_reward");
    mp::f64(out, team_reward);
    mp::str(out, "agent_rewards");
    mp::array_len(out, agent_rewards.len());
    for &r in agent_rewards {
        mp::f64(out, r);
    }
    mp::str(out, "trajectory_hash");
    mp::str(out, trajectory_hash);
    mp::str(out, "stats");
    stats.write_msgpack(out);
}

fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).expect("numbers and JSON values always serialise")
}

#[cfg(test)]
mod tests {
    use simfleet::protocol::{Job, PolicySet, SeedRange};
    use simfleet::{run_job, GameKind, RunEnv, PROTOCOL_VERSION};

    use crate::records::RecordWriter;

    fn result(game: &str, scenario: &str, seats: &[&str], start: u64) -> simfleet::JobResult {
        let job = Job {
            protocol_version: PROTOCOL_VERSION,
            sweep: "enc-000000000000".into(),
            index: start,
            game: game.into(),
            scenario: scenario.into(),
            policy_set: PolicySet { name: "team".into(), seats: seats.iter().map(|s| s.to_string()).collect() },
            seeds: SeedRange { start, count: 40 },
            replay: false,
            collect: Default::default(),
            paired: Vec::new(),
        };
        run_job(&job, &RunEnv::default())
    }

    #[test]
    fn bytes_encoded_elsewhere_are_the_bytes_the_writer_writes() {
        let results = [
            result("bucket_brigade", "default", &["hero", "liar", "random", "firefighter"], 0),
            result("deception", "quick_4p1i", &["heuristic"; 4], 40),
        ];
        let games = [GameKind::BucketBrigade, GameKind::Deception];
        let dir = tempfile::tempdir().unwrap();
        for ext in ["csv", "jsonl", "msgpack"] {
            let (direct, encoded) = (dir.path().join(format!("a.{ext}")), dir.path().join(format!("b.{ext}")));
            let mut w = RecordWriter::create(&direct, &games).unwrap();
            for r in &results {
                w.write_result(r).unwrap();
            }
            assert_eq!(w.finish().unwrap(), 80);
            let mut w = RecordWriter::create(&encoded, &games).unwrap();
            let enc = w.encoder().expect("a line format has an encoder");
            for r in &results {
                let mut bytes = Vec::new();
                let rows = enc.encode_result(r, &mut bytes).unwrap();
                w.write_encoded(&bytes, rows).unwrap();
            }
            assert_eq!(w.finish().unwrap(), 80);
            assert_eq!(std::fs::read(&direct).unwrap(), std::fs::read(&encoded).unwrap(), ".{ext}");
        }
        assert!(RecordWriter::create(&dir.path().join("c.parquet"), &games).unwrap().encoder().is_none());
    }

    #[test]
    fn encode_msgpack_is_rmp_serdes() {
        use crate::records::row::RowRef;
        let results = [
            result("bucket_brigade", "default", &["hero", "liar", "random", "firefighter"], 0),
            result("deception", "quick_4p1i", &["heuristic"; 4], 40),
            result("cogsguard", "arena", &["pinky"; 8], 80),
            result("trolley", "balanced_5p", &["persuadable"; 5], 120),
        ];
        let mut typed = 0;
        for r in &results {
            for rec in &r.records {
                typed += usize::from(rec.stats.as_typed().is_some());
                // The record as it is (typed stats where the game types them), and as a map.
                let as_map = simfleet::protocol::Stats::from(rec.stats.as_map().clone());
                for stats in [&rec.stats, &as_map] {
                    let row = RowRef { stats, ..RowRef::new(r, rec) };
                    let mut want = Vec::new();
                    let mut ser = rmp_serde::Serializer::new(&mut want).with_struct_map();
                    serde::Serialize::serialize(&row, &mut ser).unwrap();
                    let mut got = Vec::new();
                    super::write_msgpack(&row, &mut got);
                    assert_eq!(got, want, "{} seed {}", r.game, rec.seed);
                }
            }
        }
        assert!(typed >= 120, "the typed stats path is exercised ({typed} typed records)");
    }
}
