//! `coordinator rank FILE...`: fit and print each policy's contribution to team reward
//! ([`crate::rank`]), optionally also as CSV.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::rank;

/// Rank policies by their contribution to team reward, from the results of a ranking sweep
/// ([[rankings]] teams, e.g. examples/bb_ranking.toml). Fits team reward = block effect + the
/// sum of the seated policies' contributions (fixed effects per scenario, or per scenario and
/// seed when teams share seeds; ridge prior; closed form) and prints, per game and policy: the
/// contribution with its 95% interval, the marginal value (mean team reward with minus
/// without it), teams, seats filled and rank.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The results files (.jsonl, .csv, .msgpack or .parquet), or directories of shards (their
    /// results files, sorted by name), read as one table.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Take each policy set's seats from this sweep file (the one the records came from)
    /// instead of from team names, so hand-written policy sets count too.
    #[arg(long, value_name = "SWEEP")]
    sweep: Option<PathBuf>,
    /// Also write the ranking as CSV here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Ridge λ: pseudo-episodes pulling each contribution toward the roster average.
    #[arg(long, default_value_t = rank::DEFAULT_RIDGE)]
    ridge: f64,
}

/// Prints the ranking (and writes the CSV).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (fits, skipped) = rank::rank(&crate::records::Input::open(&args.files)?, args.sweep.as_deref(), args.ridge)?;
    print!("{}", rank::table::table(&fits, &skipped));
    if let Some(out) = args.out {
        rank::table::write_csv(&fits, &out).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.display()))?;
        println!("ranking written to {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}
