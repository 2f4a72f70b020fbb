//! `coordinator cancel ID`: cancel a sweep ([`crate::fleet::cancel`]).

use std::process::ExitCode;

use super::{runtime, FleetArgs};
use crate::fleet::{self, Fleet};

/// Cancel a sweep: its queued jobs are removed and workers answer the rest `cancelled`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sweep id.
    id: String,
    #[command(flatten)]
    fleet: FleetArgs,
}

/// Cancels the sweep and says how many queued jobs were removed.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let settings = args.fleet.settings()?;
    let id = args.id;
    runtime()?.block_on(async {
        let fleet = Fleet::connect(&settings).await?;
        let report = fleet::cancel::cancel(&fleet, &id).await?;
        println!(
            "{id}: cancelled; {} queued job(s) removed; jobs already taken are answered `cancelled`",
            report.purged
        );
        Ok(ExitCode::SUCCESS)
    })
}
