//! How many model calls a job is expected to make: the one estimate that `run` and `submit`
//! print before playing and that a worker reserves against a sweep's `llm_max_calls` before it
//! starts a model job, so both sides count the same way.

use crate::protocol::Job;
use crate::GameKind;

/// Decisions one model seat makes per episode, about, by game and number of agents: the game's
/// [`crate::games::GameInfo::llm_decisions`].
pub fn decisions_per_seat_episode(game: GameKind, agents: usize) -> f64 {
    game.info().llm_decisions.per_seat_episode(agents)
}

/// The calls expected of `episodes` episodes of `game` played by the team `seats`: episodes ×
/// model seats × decisions per seat and episode (one call a decision when the model answers
/// well; retries are not counted), rounded up.
pub fn expected_calls(game: GameKind, seats: &[String], episodes: u64) -> u64 {
    let model_seats = seats.iter().filter(|s| crate::policy::is_llm_spec(s)).count();
    (episodes as f64 * model_seats as f64 * decisions_per_seat_episode(game, seats.len())).ceil() as u64
}

/// A job's expected calls ([`expected_calls`]); 0 for a game this build does not know (such a
/// job is answered `unknown_game` without playing).
pub fn expected_job_calls(job: &Job) -> u64 {
    match job.game.parse::<GameKind>() {
        Ok(game) => expected_calls(game, &job.policy_set.seats, job.seeds.count),
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_model_seats_only() {
        let seats = |n: usize| {
            let mut s = vec!["llm?model=m".to_string()];
            s.extend(std::iter::repeat_n("heuristic".to_string(), n - 1));
            s
        };
        assert_eq!(expected_calls(GameKind::Deception, &seats(4), 20), 100);
        assert_eq!(expected_calls(GameKind::Trolley, &seats(3), 10), 78);
        assert_eq!(expected_calls(GameKind::Deception, &["heuristic".to_string()], 20), 0);
    }
}
