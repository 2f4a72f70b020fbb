//! `coordinator results ID --out FILE`: export a sweep's results again from the results stream
//! ([`crate::fleet::results`]).

use std::path::PathBuf;
use std::process::ExitCode;

use super::{print_failures, runtime, FleetArgs};
use crate::fleet::{self, Fleet};

/// Export a sweep's results again from the results stream into --out.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sweep id.
    id: String,
    /// Output file; the format follows the extension.
    #[arg(long)]
    out: PathBuf,
    /// Do not draw a progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    fleet: FleetArgs,
}

/// Writes the file and says what is in it.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let settings = args.fleet.settings()?;
    let Args { id, out, quiet, .. } = args;
    runtime()?.block_on(async {
        let fleet = Fleet::connect(&settings).await?;
        let report = fleet::results::export(&fleet, &id, &out, !quiet).await?;
        let total = report.jobs_total.map_or_else(|| "?".to_string(), |t| t.to_string());
        println!(
            "{id}: {} records of {} jobs (of {total}) written to {}; {} failed; {} duplicates skipped",
            report.records,
            report.jobs,
            out.display(),
            report.failures.len(),
            report.duplicates
        );
        if let Some((path, rows)) = &report.cells {
            println!("{id}: {rows} cell summaries written to {}", path.display());
        }
        print_failures(&report.failures);
        Ok(ExitCode::SUCCESS)
    })
}
