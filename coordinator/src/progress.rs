//! The progress bars of long commands, on stderr. Hidden when stderr is not a terminal, so logs
//! and CI output stay clean, and when the command was given `--quiet`.
//!
//! Rates and ETAs count only this run's work: a resumed `watch` starts its bar at what the
//! file already held, says so, and measures its rate from there (a stalled resume must not
//! show a high rate and "ETA 0s").

use std::time::{Duration, Instant};

use indicatif::{HumanCount, HumanDuration, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// A progress bar counting episodes, with episodes/s and ETA; hidden when stderr is not a
/// terminal (logs and CI output stay clean).
pub fn episode_bar(total: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(episode_style(0));
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

/// [`episode_bar`] when `show`, else a hidden bar (`--quiet`).
pub fn episodes(show: bool, total: u64) -> ProgressBar {
    if show {
        episode_bar(total)
    } else {
        ProgressBar::hidden()
    }
}

/// Starts `bar` at `already` episodes done before this run: shown as such, and left out of the
/// rate and the ETA.
pub fn resume_at(bar: &ProgressBar, already: u64) {
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
        "{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{human_pos}}/{{human_len}} episodes{already}  {{rate}}  ETA {{left}}"
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

/// Says `line` above `bar`, or to the log when the bar is hidden (`--quiet`, no terminal), so a
/// long wait is visible either way.
pub fn say(bar: &ProgressBar, line: String) {
    if bar.is_hidden() {
        tracing::info!("{line}");
    } else {
        bar.println(line);
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
