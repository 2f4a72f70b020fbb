//! The progress bars of long commands, on stderr. Hidden when stderr is not a terminal, so logs
//! and CI output stay clean, and when the command was given `--quiet`.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar counting episodes, with episodes/s and ETA; hidden when stderr is not a
/// terminal (logs and CI output stay clean).
pub fn episode_bar(total: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} episodes  {per_sec}  ETA {eta}",
        )
        .expect("the template is valid"),
    );
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

/// A bar counting the jobs `submit` publishes, with jobs/s.
pub fn publish_bar(show: bool, total: u64) -> ProgressBar {
    let bar = if show { ProgressBar::new(total) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{spinner} publishing {wide_bar} {human_pos}/{human_len} jobs  {per_sec}")
            .expect("the template is valid"),
    );
    bar
}
