//! `coordinator priority ID CLASS [--share N]`: move a running sweep between classes
//! ([`crate::fleet::priority`]).

use std::process::ExitCode;

use super::{runtime, FleetArgs};
use crate::fleet::{self, Fleet};

/// Change a sweep's class (high, normal, low) and share while it runs.
///
/// Workers take a job of a higher class whenever one is waiting; within a class, sweeps with
/// jobs waiting share the fleet's job slots in proportion to their shares. The change reaches
/// every worker within about a second; jobs already taken finish where they are, and no job is
/// moved, lost or played twice. `coordinator status` shows every sweep's class, share and the
/// fleet share it gets now.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sweep id (`coordinator status` lists them).
    id: String,
    /// The new class: high, normal or low. Leave out to change only --share.
    #[arg(value_parser = ["high", "normal", "low"], required_unless_present = "share")]
    class: Option<String>,
    /// The new weight within the class (1 to 1000).
    #[arg(long, value_name = "N", value_parser = parse_share)]
    share: Option<u32>,
    #[command(flatten)]
    fleet: FleetArgs,
}

/// Writes the class into the sweep's entry and says what changed.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let settings = args.fleet.settings()?;
    let priority = args.class.as_deref().map(str::parse).transpose().map_err(anyhow::Error::msg)?;
    runtime()?.block_on(async {
        let fleet = Fleet::connect(&settings).await?;
        let change = fleet::priority::set_class(&fleet, &args.id, priority, args.share).await?;
        println!(
            "{}: priority {} -> {}, share {} -> {}; workers follow within about a second",
            args.id, change.from.0, change.to.0, change.from.1, change.to.1
        );
        Ok(ExitCode::SUCCESS)
    })
}

/// `--share`: 1 to 1000.
pub(crate) fn parse_share(s: &str) -> Result<u32, String> {
    crate::sweep::share_value(s.parse::<i64>().map_err(|e| format!("{s:?} is not a whole number: {e}"))?)
}
