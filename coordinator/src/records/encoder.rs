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
                    let mut ser = rmp_serde::Serializer::new(&mut *out).with_struct_map();
                    serde::Serialize::serialize(&row, &mut ser).map_err(io::Error::other)?;
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
            fields.push(match row.stats.get(*key) {
                None | Some(serde_json::Value::Null) => String::new(),
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(v) => json(v),
            });
        }
    }
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
}
