//! `coordinator status [ID]`: a sweep's state, or every sweep's, as a table
//! ([`crate::fleet::status`]).

use std::process::ExitCode;

use super::{runtime, FleetArgs};
use crate::fleet::{self, Fleet};

/// Show a sweep's state (or every sweep's) from any machine: jobs, queued, answered,
/// written and failed, from the KV bucket and the streams; then the workers' consumer's limits
/// (ack wait, max deliver, max ack pending) as the server has them, and its load.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sweep id; all sweeps when absent.
    id: Option<String>,
}

/// Prints the table.
pub fn run(args: Args, fleet_args: &FleetArgs) -> anyhow::Result<ExitCode> {
    let settings = fleet_args.settings()?;
    runtime()?.block_on(async {
        let fleet = Fleet::connect(&settings).await?;
        print!("{}", fleet::status::table(&fleet::status::status(&fleet, args.id.as_deref()).await?));
        println!("\n{}", fleet::status::consumer(&fleet).await?);
        Ok(ExitCode::SUCCESS)
    })
}
