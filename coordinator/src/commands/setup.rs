//! `coordinator setup`: create or change the JetStream topology ([`crate::fleet::setup`]).

use std::process::ExitCode;

use super::{runtime, FleetArgs};
use crate::fleet::setup;

/// Create the JetStream topology (jobs, results and DLQ streams, the sweeps KV bucket) with
/// `stream_replicas` replicas, or change the replicas of an existing one
/// (e.g. after growing NATS from one server to three), and print each object with its leader.
/// The admin's job: under the shipped permissions only the admin user may create or change the
/// topology; on a server without permissions, `submit` creates it by itself.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    fleet: FleetArgs,
}

/// Sets the topology up and prints every object's state.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let settings = args.fleet.settings()?;
    let states = runtime()?.block_on(setup::setup(&settings))?;
    print!("{}", setup::table(&states));
    println!("the topology has {} replica(s) (stream_replicas)", settings.stream_replicas);
    Ok(ExitCode::SUCCESS)
}
