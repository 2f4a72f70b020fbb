//! The progress bars of long commands, on stderr. Hidden when stderr is not a terminal, so logs
//! and CI output stay clean, and when the command was given `--quiet`.
//!
//! Rates and ETAs count only this run's work: a resumed `watch` starts its bar at what the
//! file already held, says so, and measures its rate from there (a stalled resume must not
//! show a high rate and "ETA 0s").

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{HumanCount, HumanDuration, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Starts `bar` at `already` episodes done before this run: shown as such, and left out of the
/// rate and the ETA.
fn resume_at(bar: &ProgressBar, already: u64) {
    bar.set_position(already);
    bar.set_style(episode_style(already));
}

/// The episode bar's style, its rate and ETA counting from `base` episodes on, from now.
fn episode_style(base: u64) -> ProgressStyle {
    let since = Instant::now();
    let rate = move |state: &ProgressState| {
        let secs = since.elapsed().as_secs_f64();
        (secs > 0.5).then(|| state.pos().saturating_sub(base) as f64 / secs)
    };
    let already = if base > 0 { format!(" ({} already in the file)", HumanCount(base)) } else { String::new() };
    ProgressStyle::with_template(&format!(
        "{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{human_pos}}/{{human_len}} episodes{already}{{msg}}  {{rate}}  ETA {{left}}"
    ))
    .expect("the template is valid")
    .with_key("rate", move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = match rate(state) {
            Some(r) => write!(w, "{} episodes/s", plain_rate(r)),
            None => write!(w, "- episodes/s"),
        };
    })
    .with_key("left", move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
        let left = state.len().unwrap_or(0).saturating_sub(state.pos());
        let _ = match rate(state) {
            _ if left == 0 => write!(w, "0s"),
            Some(r) if r > 0.0 => write!(w, "{:#}", HumanDuration(Duration::from_secs_f64(left as f64 / r))),
            _ => write!(w, "?"),
        };
    })
}

/// A rate as a person reads it: whole numbers from 100 on, one decimal from 10, two below.
pub fn plain_rate(rate: f64) -> String {
    if rate >= 100.0 {
        HumanCount(rate.round() as u64).to_string()
    } else if rate >= 10.0 {
        format!("{rate:.1}")
    } else {
        format!("{rate:.2}")
    }
}

/// A bar counting the jobs `submit` publishes, with jobs/s.
pub fn publish_bar(show: bool, total: u64) -> ProgressBar {
    let bar = if show { ProgressBar::new(total) } else { ProgressBar::hidden() };
    let since = Instant::now();
    bar.set_style(
        ProgressStyle::with_template("{spinner} publishing {wide_bar} {human_pos}/{human_len} jobs  {rate}")
            .expect("the template is valid")
            .with_key("rate", move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let secs = since.elapsed().as_secs_f64().max(1e-3);
                let _ = write!(w, "{} jobs/s", plain_rate(state.pos() as f64 / secs));
            }),
    );
    bar
}

/// A collector's progress: an episode bar drawn from the first round on (never a bar of
/// unknown length), and the lines said while it waits.
///
/// A stopping sweep's bar counts to the end of the current round, not to the cap: which
/// blocks come next is decided at each fold, so its ETA is the round's, and the bar says how
/// many episodes are still possible at most.
///
/// Clones share the bar: a stopping sweep's watch counts results as they arrive, before the
/// round is complete and they are delivered ([`Progress::arrived`]).
#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
    /// Whether a bar may be drawn (no `--quiet`).
    show: bool,
    rounds: usize,
    /// Episodes counted on arrival and not yet delivered.
    ahead: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Progress {
    /// Progress drawn on stderr when `show` (and stderr is a terminal), from the first round.
    pub fn new(show: bool) -> Progress {
        Progress { bar: ProgressBar::hidden(), show, rounds: 0, ahead: Default::default() }
    }

    /// The bar (hidden until the first round).
    pub fn bar(&self) -> &ProgressBar {
        &self.bar
    }

    /// Starts the bar at `already` episodes done before this run (a resumed watch).
    pub fn resume_at(&self, already: u64) {
        resume_at(&self.bar, already);
    }

    /// A round begins, at whose end `total` episodes are done; `possible` is the most a
    /// stopping sweep can play in all (`None` for a plain sweep).
    pub fn begin_round(&mut self, total: u64, possible: Option<u64>) {
        self.rounds += 1;
        if self.rounds == 1 && self.show {
            self.bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
            if self.bar.position() == 0 {
                self.bar.set_style(episode_style(0));
            }
            self.bar.enable_steady_tick(Duration::from_millis(250));
        }
        self.bar.set_length(total);
        if let Some(possible) = possible {
            self.bar.set_message(format!(" (round {}; at most {} possible)", self.rounds, HumanCount(possible)));
        }
    }

    /// Counts episodes that arrived and will be delivered later (once their round is in).
    pub fn arrived(&self, episodes: u64) {
        self.ahead.fetch_add(episodes, std::sync::atomic::Ordering::Relaxed);
        self.bar.inc(episodes);
    }

    /// Counts episodes delivered (those counted on arrival only once).
    pub fn inc(&self, episodes: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        let mut counted = 0;
        let _ = self.ahead.fetch_update(Relaxed, Relaxed, |ahead| {
            counted = ahead.min(episodes);
            Some(ahead - counted)
        });
        self.bar.inc(episodes - counted);
    }

    /// Counts a failed job's episodes, and says so above the bar.
    pub fn failed(&self, job: u64, error: &str, episodes: u64) {
        self.inc(episodes);
        self.bar.println(format!("job {job} failed: {error}"));
    }

    /// Says `line` above the bar; without a bar (no terminal), on stderr unless `--quiet`
    /// (then in the log at `info`): a wait is visible at the default log level.
    pub fn say(&self, line: String) {
        if !self.bar.is_hidden() {
            self.bar.println(line);
        } else if self.show && !std::io::stderr().is_terminal() {
            eprintln!("{line}");
        } else {
            tracing::info!("{line}");
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::plain_rate;

    #[test]
    fn rates_are_plain() {
        assert_eq!(plain_rate(12_345.678_9), "12,346");
        assert_eq!(plain_rate(42.123_4), "42.1");
        assert_eq!(plain_rate(0.5), "0.50");
    }
}
