//! The parallel reader against the row-at-a-time one (the reference): the summary of every
//! format, all four games, cut into many blocks and row groups, equals the reference's, counts
//! exactly and means and intervals to 1e-12 relative; partial trailing records are skipped the
//! same way; a broken row is reported with its row number.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;
use simfleet::protocol::{Job, JobResult, PolicySet, SeedRange, PROTOCOL_VERSION};
use simfleet::stats::Stats;
use simfleet::GameKind;

use super::{scan_file, Need};
use crate::records::parquet::ParquetSink;
use crate::records::{Input, RecordWriter, RowRef};
use crate::summary::{Summary, SummaryScan};

fn job(game: &str, scenario: &str, name: &str, seat: &str, seats: usize, start: u64, count: u64) -> Job {
    Job {
        protocol_version: PROTOCOL_VERSION,
        sweep: "scan-000000000000".into(),
        index: start,
        game: game.into(),
        scenario: scenario.into(),
        policy_set: PolicySet { name: name.into(), seats: vec![seat.into(); seats] },
        seeds: SeedRange { start, count },
        replay: false,
        collect: Default::default(),
        paired: Vec::new(),
    }
}

/// Results of all four games, two cells of Bucket Brigade interleaved (so blocks and row groups
/// hold several cells), and `llm` stats on some deception records (the token column).
pub(crate) fn results() -> Vec<JobResult> {
    let mut jobs = Vec::new();
    for start in [0, 40, 80] {
        jobs.push(job("bucket_brigade", "default", "firefighters", "firefighter", 4, start, 40));
        jobs.push(job("bucket_brigade", "hard", "mixed", "hero", 4, start, 40));
    }
    jobs.push(job("deception", "classic_5p1i", "heuristic", "heuristic", 5, 0, 30));
    jobs.push(job("trolley", "balanced_5p", "persuadable", "persuadable", 5, 0, 30));
    jobs.push(job("cogsguard", "arena", "balanced", "pinky?miner=2&scout=1&aligner=3&scrambler=2", 8, 0, 6));
    let mut results: Vec<JobResult> = jobs.iter().map(|j| simfleet::run_job(j, &simfleet::RunEnv::default())).collect();
    for r in &results {
        assert!(r.error.is_none(), "{}: {:?}", r.game, r.error);
    }
    let deception = results.iter_mut().find(|r| r.game == "deception").unwrap();
    for (i, rec) in deception.records.iter_mut().enumerate().filter(|(i, _)| i % 3 == 0) {
        let mut map = std::mem::replace(&mut rec.stats, Stats::from(simfleet::protocol::StatsMap::new())).into_map();
        map.insert("llm".into(), json!({"1": {"prompt_tokens": 100 + i, "completion_tokens": 7}}));
        rec.stats = Stats::from(map);
    }
    results
}

/// The results written to `dir/all.<ext>` for each format, and a Parquet file of 23-row groups.
pub(crate) fn write_all(dir: &Path, results: &[JobResult]) -> Vec<PathBuf> {
    write_formats(dir, results, 23)
}

/// The results written to `dir/all.<ext>` for each format, and `dir/small-groups.parquet` in
/// row groups of `group_rows` rows.
pub(crate) fn write_formats(dir: &Path, results: &[JobResult], group_rows: usize) -> Vec<PathBuf> {
    let games: Vec<GameKind> =
        ["bucket_brigade", "deception", "trolley", "cogsguard"].map(|g| g.parse().unwrap()).into();
    let mut files = Vec::new();
    for ext in ["jsonl", "csv", "msgpack", "parquet"] {
        let path = dir.join(format!("all.{ext}"));
        let mut w = RecordWriter::create(&path, &games).unwrap();
        for r in results {
            w.write_result(r).unwrap();
        }
        w.finish().unwrap();
        files.push(path);
    }
    let path = dir.join("small-groups.parquet");
    let mut sink = ParquetSink::new(std::fs::File::create(&path).unwrap(), crate::records::stat_columns(&games));
    sink.set_row_group_rows(group_rows);
    for r in results {
        for rec in &r.records {
            sink.write(&RowRef::new(r, rec)).unwrap();
        }
    }
    sink.finish().unwrap();
    files.push(path);
    files
}

fn close(what: &str, a: f64, b: f64) {
    let ok = a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs());
    assert!(ok, "{what}: {a} vs {b}");
}

/// Counts exactly, means and intervals to 1e-12 relative, the same cells in the same order.
fn assert_same(what: &str, got: &Summary, want: &Summary) {
    let keys = |s: &Summary| s.cells.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(got), keys(want), "{what}: cells");
    for ((key, a), b) in got.cells.iter().zip(want.cells.values()) {
        let what = format!("{what} {key:?}");
        assert_eq!(a.episodes, b.episodes, "{what}: episodes");
        assert_eq!(a.outcomes, b.outcomes, "{what}: outcomes, in first-seen order");
        assert!(a.outcomes.keys().eq(b.outcomes.keys()), "{what}: outcome order");
        let (x, y) = (&a.team_reward, &b.team_reward);
        assert_eq!((x.count, x.min, x.min_seed, x.max, x.max_seed), (y.count, y.min, y.min_seed, y.max, y.max_seed));
        close(&format!("{what}: mean"), a.mean(), b.mean());
        close(&format!("{what}: ci95"), a.ci95(), b.ci95());
        close(&format!("{what}: mean length"), a.mean_length(), b.mean_length());
        assert_eq!(a.tokens_per_episode(), b.tokens_per_episode(), "{what}: tokens");
    }
    assert_eq!(got.table(), want.table(), "{what}: the printed table");
}

fn scanned(path: &Path, threads: usize, block: usize) -> (Summary, bool) {
    let (acc, cut) = scan_file::<SummaryScan>(path, Need { llm: true, ..Need::default() }, threads, block).unwrap();
    (acc.finish().unwrap(), cut)
}

#[test]
fn every_format_and_game_summarises_as_the_row_reader_does() {
    let dir = tempfile::tempdir().unwrap();
    let results = results();
    let files = write_all(dir.path(), &results);
    let episodes: u64 = results.iter().map(|r| r.records.len() as u64).sum();
    for path in &files {
        let want = summarise_rows(&Input::file(path).unwrap()).unwrap();
        assert_eq!(want.episodes(), episodes, "{}", path.display());
        assert_eq!(want.cells.len(), 5);
        // Many small blocks on three threads (blocks finish out of order), and the default.
        for (threads, block) in [(3, 700), (2, 4096), (1, super::blocks::BLOCK)] {
            let (got, cut) = scanned(path, threads, block);
            assert!(!cut, "{}: no partial record", path.display());
            assert_same(&format!("{} ({threads} threads, {block}-byte blocks)", path.display()), &got, &want);
        }
    }
    let jsonl = summarise_rows(&Input::file(&files[0]).unwrap()).unwrap();
    assert!(jsonl.table().contains("tokens/episode"), "the llm stats are counted: {}", jsonl.table());
}

#[test]
fn a_partial_trailing_record_is_skipped_as_the_row_reader_skips_it() {
    let dir = tempfile::tempdir().unwrap();
    let results = results();
    let files = write_all(dir.path(), &results);
    for path in &files[..3] {
        let bytes = std::fs::read(path).unwrap();
        // Half of the last record: the last line / map, cut in its middle.
        let cut_at = bytes.len() - 40;
        let partial = dir.path().join(format!("partial.{}", path.extension().unwrap().to_str().unwrap()));
        std::fs::File::create(&partial).unwrap().write_all(&bytes[..cut_at]).unwrap();
        let want = summarise_rows(&Input::file(&partial).unwrap()).unwrap();
        let (got, cut) = scanned(&partial, 3, 500);
        assert!(cut, "{}: the partial record is reported", partial.display());
        assert_eq!(got.episodes() + 1, results.iter().map(|r| r.records.len() as u64).sum::<u64>());
        assert_same(&partial.display().to_string(), &got, &want);
    }
}

#[test]
fn a_broken_row_is_reported_with_its_number() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.jsonl");
    let results = results();
    let files = write_all(dir.path(), &results);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[300] = "{\"game\": 1}";
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let e = scan_file::<SummaryScan>(&path, Need { llm: true, ..Need::default() }, 3, 900).unwrap_err();
    assert!(e.to_string().contains("row 301 does not parse"), "{e}");
}

#[test]
fn mixed_engine_versions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut results = results();
    results[3].engine_version = "0.0.1+other-rules".into();
    let files = write_all(dir.path(), &results);
    for path in &files {
        let (acc, _) = scan_file::<SummaryScan>(path, Need { llm: true, ..Need::default() }, 3, 700).unwrap();
        let e = acc.finish().expect_err("two versions of one game");
        assert!(e.to_string().contains("mix engine versions of bucket_brigade"), "{}: {e}", path.display());
    }
}

/// A string holding the bytes every MessagePack record begins with (`0x8e 0xa5 "sweep"`: the
/// tail of U+E3A5 then "sweep") makes false record boundaries; the blocks cut there do not
/// decode to their ends, and the file is read row at a time instead, to the same summary.
#[test]
fn messagepack_record_bytes_inside_a_value_do_not_cut_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let mut results = results();
    for r in results.iter_mut().take(2) {
        r.policy_set = format!("{}\u{E3A5}sweep", r.policy_set);
    }
    let files = write_all(dir.path(), &results);
    let path = &files[2];
    let bytes = std::fs::read(path).unwrap();
    let prefix: &[u8] = b"\x8e\xa5sweep";
    assert!(bytes.starts_with(prefix), "every record begins with its map header and first key");
    let starts = memchr::memmem::find_iter(&bytes, prefix).count();
    let records: usize = results.iter().map(|r| r.records.len()).sum();
    assert!(starts > records, "the prefix occurs inside values too ({starts} for {records} records)");
    let want = summarise_rows(&Input::file(path).unwrap()).unwrap();
    for block in [300, 700, 4096] {
        let (got, cut) = scanned(path, 3, block);
        assert!(!cut);
        assert_same(&format!("{block}-byte blocks"), &got, &want);
    }
}

/// [`summarise`] row at a time on one thread (the reader before the parallel one): the
/// reference the parallel reader is tested against.
fn summarise_rows(input: &Input) -> anyhow::Result<Summary> {
    let mut summary = Summary::default();
    let mut mixed = None;
    // Only the columns the table needs: a Parquet file decodes nothing else.
    let cut = input.for_each_row_of(Some(Summary::COLUMNS), |row| {
        if mixed.is_none() {
            if let Err(e) = summary.add_row(&row) {
                mixed = Some(e);
            }
        }
    })?;
    if let Some(e) = mixed {
        return Err(e.into());
    }
    Input::warn_partial(&cut);
    summary.sort_cells();
    Ok(summary)
}
