//! Job sizes: the default episodes per job of a cell, of a cell that collects summaries (a
//! fraction of a second of play), and of a cell with `llm` seats (a few minutes of model time).

use simfleet::policy::is_llm_spec;
use simfleet::protocol::Collect;
use simfleet::{GameKind, Spec};

/// Episodes per job of a cell with one `llm` seat when the file does not say; with `k` such
/// seats, `⌈LLM_SEAT_EPISODES_PER_JOB / k⌉`. A game's default (deception's is 2,000 episodes)
/// is sized for scripted seats: one model call takes as long as thousands of scripted episodes,
/// so such a job would keep one worker busy for hours while the rest of the fleet idles, and a
/// worker lost mid-job would throw its paid calls away. At 2–10 decisions per model seat and
/// episode (deception, trolley) and 1–2 s a call, 20 seat-episodes are one to seven minutes
/// of model time, and a 600-episode cell is 30 jobs that the whole fleet plays at once. A
/// constant, so that the expansion and the sweep id are the same on every machine.
pub const LLM_SEAT_EPISODES_PER_JOB: u64 = 20;

/// How many times the records-mode default episodes per job a summary job of `game` carries
/// (the game's own fact, [`simfleet::GameInfo::summary_scale`]).
pub fn summary_scale(game: GameKind) -> u64 {
    game.info().summary_scale
}

/// Episodes per job when the file does not say: for a cell with `llm` seats among `seats`,
/// [`LLM_SEAT_EPISODES_PER_JOB`] shared by those seats, whatever it collects; otherwise the
/// game's default for its scenario, times [`summary_scale`] when the cell collects summaries.
pub fn default_episodes_per_job(game: GameKind, scenario: &Spec, collect: Collect, seats: &[String]) -> u64 {
    let llm_seats = seats.iter().filter(|s| is_llm_spec(s)).count() as u64;
    if llm_seats > 0 {
        return LLM_SEAT_EPISODES_PER_JOB.div_ceil(llm_seats);
    }
    let records = game.default_episodes_per_job(scenario);
    match collect {
        Collect::Records => records,
        Collect::Summary => records.saturating_mul(summary_scale(game)),
    }
}
