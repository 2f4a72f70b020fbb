//! `coordinator status [ID]`: a sweep's state, or every sweep's, as a table
//! ([`crate::fleet::status`]).

use std::process::ExitCode;

use super::{runtime, FleetArgs};
use crate::fleet::{self, Fleet};

/// Show a sweep's state (or every sweep's) from any machine: its class (priority) and share,
/// jobs, jobs waiting and in flight, the share of the fleet it gets now (its part of every
/// sweep's jobs in flight), answered, written and failed, from the KV bucket, the streams and
/// the sweeps' consumers; then the consumers' limits (ack wait, max deliver, max ack pending)
/// as the server has them.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sweep id; all sweeps when absent.
    id: Option<String>,
    #[command(flatten)]
    fleet: FleetArgs,
}

/// Prints the table.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let settings = args.fleet.settings()?;
    runtime()?.block_on(async {
        let fleet = Fleet::connect(&settings).await?;
        let states = fleet::status::status(&fleet, args.id.as_deref()).await?;
        print!("{}", fleet::status::table(&states));
        match fleet::status::consumer(&fleet, &states).await {
            Some(limits) => println!("\n{limits}"),
            None => println!("\nno sweep has a consumer on the server (none was submitted yet)"),
        }
        Ok(ExitCode::SUCCESS)
    })
}
