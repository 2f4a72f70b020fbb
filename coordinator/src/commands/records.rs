//! `coordinator records SWEEP --scenario S --policy-set P --seeds A..B --out FILE`: the records
//! of chosen seeds of one cell, played again in-process, the rows a records-mode run writes.
//!
//! A summary sweep keeps no rows, but every episode is a function of its seed, so any row can be
//! had again: the seeds are played as the records-mode expansion of the same file places them
//! (its sweep id, its job indexes), and written as `run` writes them, so the rows are
//! byte-identical to those of `coordinator run SWEEP --collect records`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use simfleet::protocol::{Collect, SeedRange};
use simfleet::{GameKind, RunEnv};

use super::replay::one_cell;
use crate::collector::{Collector, FailureFile, Output};
use crate::progress::Progress;
use crate::sweep::Sweep;

/// Play chosen seeds of one cell again and write their records, exactly as a records-mode run
/// of the sweep writes them (same sweep id, job indexes and bytes), e.g. the best and worst
/// episodes a summary names.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sweep file that defines the cell (summary or records).
    sweep: PathBuf,
    /// The scenario string as written in the sweep.
    #[arg(long)]
    scenario: String,
    /// The policy set name.
    #[arg(long = "policy-set")]
    policy_set: String,
    /// The game, when several cells share the scenario and policy set.
    #[arg(long)]
    game: Option<GameKind>,
    /// The seeds: `A..B` (B excluded), `A..=B`, or one seed `A`; within the sweep's seeds.
    #[arg(long, value_parser = parse_seeds)]
    seeds: SeedRange,
    /// Output file; the format follows the extension: .jsonl, .csv, .msgpack or .parquet.
    #[arg(long)]
    out: PathBuf,
}

/// `A..B`, `A..=B` or `A`.
fn parse_seeds(text: &str) -> Result<SeedRange, String> {
    let num = |s: &str| s.trim().parse::<u64>().map_err(|e| format!("{s:?} is not a seed: {e}"));
    let (start, end) = match (text.split_once("..="), text.split_once("..")) {
        (Some((a, b)), _) => (num(a)?, num(b)?.checked_add(1).ok_or("the range ends past 2^64")?),
        (None, Some((a, b))) => (num(a)?, num(b)?),
        (None, None) => {
            let a = num(text)?;
            (a, a + 1)
        }
    };
    if end <= start {
        return Err(format!("{text:?} holds no seed: write A..B with A < B, A..=B or one seed"));
    }
    Ok(SeedRange { start, count: end - start })
}

/// Plays the seeds and writes their records.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let sweep = Sweep::load(&args.sweep)?.with_collect(Some(Collect::Records));
    let cell = one_cell(&sweep, args.game, &args.scenario, &args.policy_set)?;
    let (want, all) = (args.seeds, sweep.seeds);
    let (first, end) = (want.start, want.start + want.count);
    if first < all.start || end > all.start + all.count {
        bail!("seeds {first}..{end} are not all in the sweep's seeds {}..{}", all.start, all.start + all.count);
    }
    let (output, failures) = (Output::Create, FailureFile::None);
    let mut collector =
        Collector::create(Some(sweep.clone()), &args.out, output, failures, None, Progress::new(false))?;
    let env = RunEnv { chat: crate::llm::llm_transport(), worker: "records".into(), agents: None };
    // The cell's jobs whose seeds meet the range, each cut to the range: same index, same rows.
    let group = &sweep.groups[cell.group];
    let per_job = group.seeds_per_job;
    let (first_chunk, last_chunk) = ((first - all.start) / per_job, (end - 1 - all.start) / per_job);
    for chunk in first_chunk..=last_chunk {
        let mut job = sweep.job(group.first_job + chunk).context("a job of the cell")?;
        let (start, stop) = (job.seeds.start.max(first), (job.seeds.start + job.seeds.count).min(end));
        job.seeds = SeedRange { start, count: stop - start };
        let result = crate::llm::run_job(&job, &env, None);
        if let Some(e) = &result.error {
            bail!("job {} could not be played: {e}", job.index);
        }
        collector.deliver(result)?;
    }
    let written = collector.finish()?.records;
    println!(
        "{written} records of {} / {} / {} (seeds {first}..{end}, sweep {}) written to {}",
        cell.game,
        cell.scenario,
        cell.policy_set.name,
        sweep.id,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::parse_seeds;
    use simfleet::protocol::SeedRange;

    #[test]
    fn seed_ranges_parse_and_empty_ones_are_refused() {
        assert_eq!(parse_seeds("10..20"), Ok(SeedRange { start: 10, count: 10 }));
        assert_eq!(parse_seeds("10..=20"), Ok(SeedRange { start: 10, count: 11 }));
        assert_eq!(parse_seeds("7"), Ok(SeedRange { start: 7, count: 1 }));
        assert!(parse_seeds("20..10").unwrap_err().contains("holds no seed"));
        assert!(parse_seeds("a..3").unwrap_err().contains("is not a seed"));
    }
}
