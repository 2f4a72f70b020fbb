//! Metric names, histogram buckets and the Prometheus recorder (docs/metrics.md), and
//! the log subscriber.
//!
//! Every name is a `pub const` (or a function of the game for the per-game histograms) so the
//! dashboards and tests can be checked against this one module. Histograms get explicit
//! buckets per metric name (`Matcher::Full`): without them the exporter renders summaries,
//! which cannot be summed across workers. Defaults come from each game's
//! `GameKind::info().buckets`; `[buckets.<game>]` in the config overrides them. Recording per
//! job lives in `job_metrics`.

use std::collections::BTreeMap;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use serde::Deserialize;
use simfleet::GameKind;

use crate::settings::ConfigError;
use crate::WorkerError;

/// Counter `{game, scenario, policy_set, outcome}`: episodes played.
pub const EPISODES_TOTAL: &str = "simfleet_episodes_total";
/// Histogram `{game}`: wall time of one job, seconds (through the recorder; the per-episode
/// histograms are [`crate::histograms`]).
pub const JOB_DURATION_SECONDS: &str = "simfleet_job_duration_seconds";
/// Counter `{game, status, error_kind}`: jobs answered (`error_kind` on errors only).
pub const JOBS_TOTAL: &str = "simfleet_jobs_total";
/// Counter `{game}`: jobs delivered more than once.
pub const JOB_REDELIVERIES_TOTAL: &str = "simfleet_job_redeliveries_total";
/// Gauge: jobs being played right now (at most the concurrency).
pub const JOBS_IN_FLIGHT: &str = "simfleet_jobs_in_flight";
/// Gauge `{version, concurrency}`, always 1.
pub const WORKER_INFO: &str = "simfleet_worker_info";

/// The `game` label of jobs whose game is not one this build knows (the raw string would be
/// unbounded free text).
pub const UNKNOWN_GAME_LABEL: &str = "unknown";

/// Buckets of [`JOB_DURATION_SECONDS`]: a job is sized to take well under a second, but `llm`
/// seats and big CogsGuard maps take minutes.
pub const JOB_DURATION_BUCKETS: &[f64] =
    &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0];

/// `simfleet_<game>_episode_team_reward` (histogram `{scenario, policy_set}`).
pub fn team_reward_metric(game: GameKind) -> String {
    format!("simfleet_{}_episode_team_reward", game.as_str())
}

/// `simfleet_<game>_episode_length` (histogram `{scenario, policy_set}`).
pub fn episode_length_metric(game: GameKind) -> String {
    format!("simfleet_{}_episode_length", game.as_str())
}

/// `simfleet_<game>_agent_reward` (histogram `{scenario, policy}`).
pub fn agent_reward_metric(game: GameKind) -> String {
    format!("simfleet_{}_agent_reward", game.as_str())
}

/// `[buckets.<game>]` as written in the config.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameBuckets {
    team_reward: Option<Vec<f64>>,
    length: Option<Vec<f64>>,
    agent_reward: Option<Vec<f64>>,
}

/// Checks `[buckets.<game>]` tables and keys them by full metric name.
pub(crate) fn resolve_bucket_overrides(
    raw: &BTreeMap<String, GameBuckets>,
) -> Result<BTreeMap<String, Vec<f64>>, ConfigError> {
    let mut out = BTreeMap::new();
    for (game, b) in raw {
        let kind: GameKind = game
            .parse()
            .map_err(|e: simfleet::games::UnknownGame| ConfigError::new(format!("buckets.{game}"), e.to_string()))?;
        let entries = [
            ("team_reward", &b.team_reward, team_reward_metric(kind)),
            ("length", &b.length, episode_length_metric(kind)),
            ("agent_reward", &b.agent_reward, agent_reward_metric(kind)),
        ];
        for (key, values, metric) in entries {
            let Some(values) = values else { continue };
            let ok =
                !values.is_empty() && values.iter().all(|v| v.is_finite()) && values.windows(2).all(|w| w[0] < w[1]);
            if !ok {
                return Err(ConfigError::new(
                    format!("buckets.{game}.{key}"),
                    "must be a non-empty list of finite, strictly increasing numbers",
                ));
            }
            out.insert(metric, values.clone());
        }
    }
    Ok(out)
}

/// Every histogram's buckets: the games' defaults, then the overrides.
pub fn histogram_buckets(overrides: &BTreeMap<String, Vec<f64>>) -> BTreeMap<String, Vec<f64>> {
    let mut all = BTreeMap::new();
    all.insert(JOB_DURATION_SECONDS.to_string(), JOB_DURATION_BUCKETS.to_vec());
    for game in GameKind::ALL {
        let b = &game.info().buckets;
        all.insert(team_reward_metric(game), b.team_reward.to_vec());
        all.insert(episode_length_metric(game), b.length.to_vec());
        all.insert(agent_reward_metric(game), b.agent_reward.to_vec());
    }
    all.extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
    all
}

/// A Prometheus builder with every histogram's buckets set.
pub fn prometheus_builder(overrides: &BTreeMap<String, Vec<f64>>) -> Result<PrometheusBuilder, WorkerError> {
    let mut builder = PrometheusBuilder::new();
    for (name, buckets) in histogram_buckets(overrides) {
        builder = builder
            .set_buckets_for_metric(Matcher::Full(name.clone()), &buckets)
            .map_err(|e| WorkerError::Metrics(format!("{name}: {e}")))?;
    }
    Ok(builder)
}

/// Installs the process-wide recorder, sets the buckets of the per-episode histograms
/// ([`crate::histograms`]) and returns the handle `/metrics` renders (with [`render`]). Call
/// once per process (`main` does), before any job; a second call fails because the `metrics`
/// facade has one global recorder.
pub fn install(overrides: &BTreeMap<String, Vec<f64>>) -> Result<PrometheusHandle, WorkerError> {
    let handle = prometheus_builder(overrides)?.install_recorder().map_err(|e| WorkerError::Metrics(e.to_string()))?;
    if !crate::histograms::init(histogram_buckets(overrides)) {
        return Err(WorkerError::Metrics("histograms were recorded before their buckets were set".into()));
    }
    Ok(handle)
}

/// The whole `/metrics` exposition: the recorder's metrics, then the per-episode histograms.
pub fn render(handle: &PrometheusHandle) -> String {
    let mut text = handle.render();
    crate::histograms::global().render_into(&mut text);
    text
}

/// Installs the global tracing subscriber: human-readable lines (coloured on a terminal) or,
/// with `--log-format json`, one JSON object per line for Kubernetes log pipelines. The level
/// comes from `RUST_LOG` (default `info`). Logs go to stderr; nothing secret is ever a field.
/// Call once, from `main`.
pub fn init_logging(format: crate::LogFormat) {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;

    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        crate::LogFormat::Json => builder.json().flatten_event(true).with_current_span(false).init(),
        crate::LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
    }
}

/// Announces a starting worker: sets [`WORKER_INFO`] to 1 with this build's version and
/// concurrency, and registers the series that stay at zero in a healthy fleet (redeliveries,
/// jobs in flight) so dashboards and `rate()` see a 0 rather than no data.
pub fn register_worker(concurrency: usize) {
    metrics::gauge!(WORKER_INFO, "version" => env!("CARGO_PKG_VERSION"), "concurrency" => concurrency.to_string())
        .set(1.0);
    metrics::gauge!(JOBS_IN_FLIGHT).set(0.0);
    for game in GameKind::ALL {
        metrics::counter!(JOB_REDELIVERIES_TOTAL, "game" => game.as_str()).increment(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_has_buckets_for_its_three_histograms() {
        let all = histogram_buckets(&BTreeMap::new());
        assert_eq!(all.len(), 1 + 3 * GameKind::ALL.len());
        assert!(all.values().all(|b| !b.is_empty()));
        assert!(all.contains_key("simfleet_bucket_brigade_episode_team_reward"));
    }

    #[test]
    fn rendering_uses_histograms_not_summaries() {
        let recorder = prometheus_builder(&BTreeMap::new()).unwrap().build_recorder();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, || {
            metrics::histogram!(JOB_DURATION_SECONDS, "game" => "bucket_brigade").record(0.2);
        });
        let text = handle.render();
        assert!(text.contains("simfleet_job_duration_seconds_bucket{game=\"bucket_brigade\",le=\"0.25\"} 1"), "{text}");
    }
}
