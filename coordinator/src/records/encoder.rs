//! Encoding episode rows to the bytes of the line formats (`.jsonl`, `.csv`, `.msgpack`).
//!
//! Separate from the writer so that encoding can run where the records are made: `coordinator
//! run` encodes each job's rows on the thread that played it and hands the writer bytes, which
//! keeps the one writer thread from becoming the bottleneck on every core. The bytes are the
//! same wherever they are encoded.

use simfleet::protocol::JobResult;

use super::any_format::AnyFormat;
use super::error::ExportError;
use super::format::Format;
use super::row::RowRef;

/// Encodes rows of one line format. Cheap to clone; shareable across threads.
#[derive(Clone, Debug)]
pub struct RowEncoder {
    format: AnyFormat,
    /// The CSV stats columns (unused by the other formats).
    stats: Vec<&'static str>,
}

impl RowEncoder {
    /// An encoder for `format`, or `None` for a format whose rows are not appended one after
    /// another (Parquet).
    pub fn new(format: AnyFormat, stats: Vec<&'static str>) -> Option<RowEncoder> {
        format.appendable().then_some(RowEncoder { format, stats })
    }

    /// The bytes a new file begins with (CSV's header line; empty for the other formats).
    pub fn header(&self) -> Result<Vec<u8>, ExportError> {
        self.format.header(&self.stats)
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
        self.format.encode_rows(rows, &self.stats, out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use simfleet::protocol::{Job, PolicySet, SeedRange};
    use simfleet::{run_job, GameKind, RunEnv, PROTOCOL_VERSION};

    use crate::records::RecordWriter;

    /// The result of a 40-seed job of `game`, its seeds from `start`.
    pub(crate) fn result(game: &str, scenario: &str, seats: &[&str], start: u64) -> simfleet::JobResult {
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
}
