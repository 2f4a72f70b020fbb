//! `coordinator report FILE... --out report.html`: a self-contained HTML report of a results file
//! ([`crate::report`]).

use std::path::PathBuf;
use std::process::ExitCode;

/// Write a self-contained HTML report of a results file (inline SVG, no network). It opens with
/// "At a glance": per game, a heatmap of scenario × policy set (mean team reward as colour, win
/// rate in each cell) and a forest plot of each policy set's paired difference in team reward
/// from a baseline on shared seeds (as `compare`). Then the summary
/// table, outcome shares with 95% intervals, team-reward and episode-length histograms per
/// cell, and the ranking when the policy sets are teams. Results of a stopping sweep (`[stop]`,
/// its `<stem>.stop.json` beside them) add "Stopping decisions" (per cell and question: the
/// decision, seeds, anytime-valid interval) and the decisions on the forest plots.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The results files (.jsonl, .csv, .msgpack or .parquet), or directories of shards (their
    /// results files, sorted by name), read as one table.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(long)]
    out: PathBuf,
    /// Take each policy set's seats from this sweep file for the ranking (see `rank`).
    #[arg(long, value_name = "SWEEP")]
    sweep: Option<PathBuf>,
    /// The policy set the forest plots compare with [default: a stopping sweep's `baseline`;
    /// else `random` if there is one, else the sweep's first policy set: that of the cell with
    /// the first job]. Pairing needs per-seed records (see `compare`).
    #[arg(long, value_name = "NAME")]
    baseline: Option<String>,
    /// The `<stem>.stop.json` of the stopping sweep the results come from, when it is not
    /// beside FILE (found there by default).
    #[arg(long, value_name = "STOP_JSON")]
    stop: Vec<PathBuf>,
}

/// Writes the page and says what is in it.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let decisions = crate::stop::decisions::Decisions::find(&args.files, &args.stop)?;
    let w = crate::report::report(
        &crate::records::Input::open(&args.files)?,
        args.sweep.as_deref(),
        args.baseline.as_deref(),
        decisions.as_ref(),
        &args.out,
    )?;
    println!(
        "report written to {}: {} episodes, {} cells, {} game(s) ranked",
        args.out.display(),
        w.episodes,
        w.cells,
        w.ranked
    );
    Ok(ExitCode::SUCCESS)
}
