//! Job sizes: the default episodes per job of a cell, and of a cell that collects summaries (a
//! fraction of a second of play).

use simfleet::protocol::Collect;
use simfleet::{GameKind, Spec};

/// How many times the records-mode default episodes per job a summary job carries, per game:
/// about one second of play on one core when chosen, 0.1–0.3 s since issue 17's faster engines
/// (docs/sweeps.md, "Episodes per job"). The records-mode defaults were sized to 10–250 ms of
/// playing, encoding and publishing each episode's record (BENCHMARKS.md, "Sizing inputs"); a
/// summary job publishes one small aggregate, so its episodes cost only their play, and a
/// hundred times as many of them amortise the per-message cost of the fleet a hundredfold. A constant, not a calibration, so that the expansion and the sweep id
/// are the same on every machine.
pub fn summary_scale(game: GameKind) -> u64 {
    match game {
        GameKind::BucketBrigade => 100,
        GameKind::Deception => 50,
        GameKind::Cogsguard => 4,
        GameKind::Trolley => 50,
    }
}

/// Episodes per job when the file does not say: the game's default for its scenario, times
/// [`summary_scale`] when the cell collects summaries.
pub fn default_episodes_per_job(game: GameKind, scenario: &Spec, collect: Collect) -> u64 {
    let records = game.default_episodes_per_job(scenario);
    match collect {
        Collect::Records => records,
        Collect::Summary => records.saturating_mul(summary_scale(game)),
    }
}
