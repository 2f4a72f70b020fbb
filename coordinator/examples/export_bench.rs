//! Export throughput of every format: plays 100,000 Bucket Brigade episodes once, then writes
//! `--rows N` records (cycling through them) to .jsonl, .csv, .msgpack and .parquet with
//! `RecordWriter`, and reads each file back with `records::reader::for_each_row`.
//!
//! ```text
//! cargo run --release -p simfleet-coordinator --example export_bench [-- --rows 1000000 \
//!     --formats jsonl,csv,msgpack,parquet --dir /tmp --keep]
//! ```
//!
//! For the flat-memory check, run one format at two sizes under `/usr/bin/time -v` and compare
//! "Maximum resident set size": `--formats parquet --rows 1000000` vs `--rows 5000000`.

use std::path::PathBuf;
use std::time::Instant;

use coordinator::records::RecordWriter;
use coordinator::sweep::Sweep;
use simfleet::{run_job, JobResult, RunEnv};

const SWEEP: &str = r#"
name = "export-bench"
seeds = { start = 0, count = 25000 }
episodes_per_job = 250

[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
mixed = ["firefighter", "free_rider", "hero", "liar"]
coordinators = ["coordinator", "coordinator", "coordinator", "coordinator"]
random = ["random", "random", "random", "random"]
"#;

struct Args {
    rows: u64,
    formats: Vec<String>,
    dir: PathBuf,
    keep: bool,
}

fn args() -> Args {
    let mut a = Args {
        rows: 1_000_000,
        formats: ["jsonl", "csv", "msgpack", "parquet"].map(String::from).to_vec(),
        dir: std::env::temp_dir(),
        keep: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--rows" => a.rows = value().parse().expect("--rows takes a number"),
            "--formats" => a.formats = value().split(',').map(String::from).collect(),
            "--dir" => a.dir = PathBuf::from(value()),
            "--keep" => a.keep = true,
            other => panic!("unknown flag {other}: use --rows N, --formats a,b, --dir DIR, --keep"),
        }
    }
    a
}

fn main() -> anyhow::Result<()> {
    let args = args();
    let sweep = Sweep::parse(SWEEP, "export-bench")?;
    let started = Instant::now();
    let env = RunEnv::default();
    let results: Vec<JobResult> = sweep.jobs().map(|job| run_job(&job, &env)).collect();
    let records: u64 = results.iter().map(|r| r.records.len() as u64).sum();
    println!("played {records} episodes in {:.1} s (not part of the figures below)", started.elapsed().as_secs_f64());
    println!("peak RSS after playing: {} MB", peak_rss_mb());
    println!(
        "{:<8} {:>10} {:>10} {:>12} {:>10} {:>12} {:>14}",
        "format", "rows", "write s", "write rows/s", "bytes/row", "read rows/s", "peak RSS MB*"
    );
    for format in &args.formats {
        let path = args.dir.join(format!("export_bench.{format}"));
        let started = Instant::now();
        let mut writer = RecordWriter::create(&path, &sweep.games())?;
        'outer: loop {
            for r in &results {
                if writer.rows() + r.records.len() as u64 > args.rows {
                    for rec in &r.records[..(args.rows - writer.rows()) as usize] {
                        writer.write(&coordinator::records::RowRef::new(r, rec))?;
                    }
                    break 'outer;
                }
                writer.write_result(r)?;
            }
        }
        let rows = writer.finish()?;
        let write_s = started.elapsed().as_secs_f64();
        let peak = peak_rss_mb();
        let bytes = std::fs::metadata(&path)?.len();
        let started = Instant::now();
        let mut read = 0u64;
        coordinator::records::for_each_row(&path, |_, _| read += 1)?;
        let read_s = started.elapsed().as_secs_f64();
        assert_eq!(read, rows, "{format}: every row reads back");
        println!(
            "{format:<8} {rows:>10} {write_s:>10.2} {:>12.0} {:>10.1} {:>12.0} {peak:>14}",
            rows as f64 / write_s,
            bytes as f64 / rows as f64,
            rows as f64 / read_s
        );
        if !args.keep {
            std::fs::remove_file(&path)?;
        }
    }
    println!("* the process's peak resident memory after writing (Linux VmHWM), played records included");
    Ok(())
}

/// The process's peak resident set so far, in MB (Linux), or "n/a".
fn peak_rss_mb() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
    kb.map_or_else(|| "n/a".into(), |kb| (kb / 1024).to_string())
}
