//! `coordinator replay SWEEP --scenario S --policy-set P --seed N [--records FILE]`: one
//! episode's JSON replay, played in-process from the cell the sweep file defines.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use simfleet::protocol::{Job, SeedRange};
use simfleet::{GameKind, RunEnv};

use crate::sweep::Sweep;

/// Write one episode's JSON replay (to stdout unless --out is given).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sweep file that defines the cell.
    sweep: PathBuf,
    /// The scenario string as written in the sweep.
    #[arg(long)]
    scenario: String,
    /// The policy set name.
    #[arg(long = "policy-set")]
    policy_set: String,
    /// The episode seed.
    #[arg(long)]
    seed: u64,
    /// The game, when several cells share the scenario and policy set.
    #[arg(long)]
    game: Option<GameKind>,
    /// Write the replay here instead of stdout.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Replay the episode's `llm` seats from their recorded exchanges in this results file
    /// (any format) instead of calling the model; fails unless the replayed record equals
    /// the recorded one byte for byte.
    #[arg(long, value_name = "FILE")]
    records: Option<PathBuf>,
}

/// Writes the replay.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = replay(&args.sweep, args.game, &args.scenario, &args.policy_set, args.seed, args.records.as_deref())?;
    write_text(&text, args.out.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

/// One episode's JSON replay: the cell of `sweep_path` with `scenario` and `policy_set` (and
/// `game`, when several games have them), played with `seed`; with `records`, its `llm` seats
/// answered from the exchanges recorded there ([`crate::llm::replay_recorded`]).
pub fn replay(
    sweep_path: &Path,
    game: Option<GameKind>,
    scenario: &str,
    policy_set: &str,
    seed: u64,
    records: Option<&Path>,
) -> anyhow::Result<String> {
    let sweep = Sweep::load(sweep_path)?;
    let cell = one_cell(&sweep, game, scenario, policy_set)?;
    let job = Job {
        protocol_version: simfleet::PROTOCOL_VERSION,
        sweep: sweep.id.clone(),
        index: 0,
        game: cell.game.as_str().into(),
        scenario: cell.scenario.clone(),
        policy_set: cell.policy_set.clone(),
        seeds: SeedRange { start: seed, count: 1 },
        replay: true,
        collect: Default::default(),
        paired: Vec::new(),
    };
    if let Some(records) = records {
        let r = crate::llm::replay_recorded(&job, records)?;
        eprintln!(
            "replayed from {}: the record matches byte for byte; {} model call(s) answered from it, none made",
            records.display(),
            r.calls
        );
        return Ok(r.replay);
    }
    let result =
        simfleet::run_job(&job, &RunEnv { chat: crate::llm::llm_transport(), worker: "replay".into(), agents: None });
    if let Some(e) = result.error {
        bail!("the episode could not be played: {e}");
    }
    result.replays.and_then(|mut r| r.pop()).context("the engine returned no replay")
}

/// The one cell of `sweep` with `scenario` and `policy_set` (and `game`), or an error that lists
/// the cells.
pub(crate) fn one_cell<'a>(
    sweep: &'a Sweep,
    game: Option<GameKind>,
    scenario: &str,
    policy_set: &str,
) -> anyhow::Result<&'a crate::sweep::Cell> {
    let cells = sweep.find_cell(game, scenario, policy_set);
    match cells.as_slice() {
        [c] => Ok(*c),
        [] => {
            let known: Vec<String> =
                sweep.cells.iter().map(|c| format!("{} / {} / {}", c.game, c.scenario, c.policy_set.name)).collect();
            bail!(
                "the sweep has no cell with scenario {scenario:?} and policy set {policy_set:?}; its cells (game / scenario / policy set):\n  {}",
                known.join("\n  ")
            )
        }
        _ => bail!("several games have scenario {scenario:?} and policy set {policy_set:?}: add --game"),
    }
}

/// Writes `text` to `out`, or to stdout when `out` is `None`.
fn write_text(text: &str, out: Option<&Path>) -> anyhow::Result<()> {
    match out {
        Some(path) => {
            std::fs::write(path, format!("{text}\n")).with_context(|| format!("cannot write {}", path.display()))
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "{text}")?;
            Ok(())
        }
    }
}
