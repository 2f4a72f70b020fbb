//! The `coordinator` subcommands, one module each: its clap arguments (`Args`, whose doc
//! comment is the command's `--help` text) and its `run`, which does the work through the library
//! modules, prints what happened and returns the exit code. `main.rs` parses and dispatches.
//!
//! Exit codes: 0 done (or stdout closed by its reader, [`exit`]); 1 done, but jobs failed
//! (`run`, `watch`, `submit --watch`); 2 an error, printed by `main.rs` each cause once.
//!
//! The fleet commands (`submit`, `watch`, `status`, `results`, `cancel`, `priority`, `setup`)
//! take the connection flags, [`FleetArgs`], and `submit` and `watch` [`MetricsArgs`] too; the
//! commands that need no server (`run`, `summary`, `list`, ...) take neither, so their `--help`
//! lists only what they use.

pub mod arena;
pub mod cancel;
pub mod compare;
pub mod exit;
pub mod list;
pub mod priority;
pub mod rank;
pub mod records;
pub mod replay;
pub mod report;
pub mod results;
pub mod run;
pub mod setup;
pub mod status;
pub mod submit;
pub mod summary;
pub mod watch;

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Context;

use crate::collector::failures::FailedJob;
use crate::fleet::{FleetFlags, FleetSettings};

/// Connection flags of the fleet commands (submit, watch, status, results, cancel, priority,
/// setup).
#[derive(clap::Args, Debug)]
pub struct FleetArgs {
    /// NATS server URL, or a cluster's servers comma-separated (nats://a:4222,nats://b:4222)
    /// [default: $NATS_URL, else nats://127.0.0.1:4222]. Also SIMFLEET_COORDINATOR__NATS_URL or
    /// `nats_url` in --config.
    #[arg(long, value_name = "URL")]
    nats_url: Option<String>,
    // Its help lists every key the file accepts, from `fleet::settings::CONFIG_KEYS`.
    #[arg(long, value_name = "FILE", help = crate::fleet::settings::config_help())]
    config: Option<PathBuf>,
}

/// The metrics flag of the commands that collect results (`watch`, `submit --watch`).
#[derive(clap::Args, Debug)]
pub struct MetricsArgs {
    /// Serve `simfleet_sweep_jobs` on http://ADDR/metrics while `watch` runs (for Prometheus);
    /// at the end, `watch` waits up to 15 s for one last scrape of the final counts.
    #[arg(long, value_name = "ADDR")]
    metrics_listen: Option<String>,
}

impl FleetArgs {
    /// The settings from these flags, the environment and the `--config` file.
    pub fn settings(&self) -> anyhow::Result<FleetSettings> {
        self.settings_with(None)
    }

    /// [`FleetArgs::settings`] with the `--metrics-listen` of `metrics`.
    pub fn settings_with(&self, metrics: Option<&MetricsArgs>) -> anyhow::Result<FleetSettings> {
        let flags = FleetFlags {
            config: self.config.clone(),
            nats_url: self.nats_url.clone(),
            metrics_listen: metrics.and_then(|m| m.metrics_listen.clone()),
        };
        let env: HashMap<String, String> = std::env::vars().collect();
        Ok(FleetSettings::load(&flags, &env)?)
    }
}

/// The async runtime of a fleet command.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")
}

/// Lists failed jobs on stdout, after a blank line (nothing when there are none).
fn print_failures(failures: &[FailedJob]) {
    if failures.is_empty() {
        return;
    }
    println!("\n{} job(s) failed:", failures.len());
    for f in failures {
        println!("  job {}: {} ({})", f.job, f.error, f.kind);
    }
}
