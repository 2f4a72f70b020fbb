//! Metric names, histogram buckets and the Prometheus recorder (docs/metrics.md), and
//! the log subscriber.
//!
//! Every name is a `pub const` (or a function of the game for the per-game histograms) so the
//! dashboards and tests can be checked against this one module. Histograms get explicit
//! buckets per metric name (`Matcher::Full`): without them the exporter renders summaries,
//! which cannot be summed across workers. Defaults come from each game's
//! `GameKind::info().buckets`; `[buckets.<game>]` in the config overrides them. Every metric
//! has `# HELP` text ([`describe`], [`help`]): `promtool check metrics` is clean. Recording per
//! job lives in `job_metrics`; per model call in `llm_metrics`.

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
/// Counter `{sweep}`: episodes played, by sweep (the Fleet dashboard's episodes per sweep,
/// stacked). One series per sweep a worker has played.
pub const SWEEP_EPISODES_TOTAL: &str = "simfleet_sweep_episodes_total";
/// Counter `{game}`: jobs delivered more than once.
pub const JOB_REDELIVERIES_TOTAL: &str = "simfleet_job_redeliveries_total";
/// Gauge: jobs being played right now (at most the concurrency).
pub const JOBS_IN_FLIGHT: &str = "simfleet_jobs_in_flight";
/// Gauge `{version, concurrency, llm_concurrency}`, always 1.
pub const WORKER_INFO: &str = "simfleet_worker_info";

/// Counter `{game, model, endpoint}`: chat-completions calls made by `llm` seats (`endpoint`
/// is the endpoint's host and port, never its path or credentials).
pub const LLM_CALLS_TOTAL: &str = "simfleet_llm_calls_total";
/// Counter `{game, model, endpoint, kind}`: failed calls by kind (`connect`, `tls`, `timeout`,
/// `rate_limited`, `http_4xx`, `http_5xx`, `malformed`) and answers the game refused
/// (`invalid_output`).
pub const LLM_FAILURES_TOTAL: &str = "simfleet_llm_failures_total";
/// Counter `{game, model, endpoint}`: calls that repeat an earlier call of the same decision
/// (after a failure, a 429 or a refused answer).
pub const LLM_RETRIES_TOTAL: &str = "simfleet_llm_retries_total";
/// Counter `{game, model, endpoint}`: decisions handed to the seat's fallback policy.
pub const LLM_FALLBACKS_TOTAL: &str = "simfleet_llm_fallbacks_total";
/// Counter `{game, model, endpoint}`: prompt (input) tokens the endpoint reported.
pub const LLM_PROMPT_TOKENS_TOTAL: &str = "simfleet_llm_prompt_tokens_total";
/// Counter `{game, model, endpoint}`: completion (output) tokens the endpoint reported.
pub const LLM_COMPLETION_TOKENS_TOTAL: &str = "simfleet_llm_completion_tokens_total";
/// Histogram `{game, model, endpoint}`: latency of one call, seconds.
pub const LLM_CALL_DURATION_SECONDS: &str = "simfleet_llm_call_duration_seconds";
/// Gauge: model calls waiting for an answer right now.
pub const LLM_CALLS_IN_FLIGHT: &str = "simfleet_llm_calls_in_flight";
/// Gauge: episodes with `llm` seats being played right now (at most `llm_concurrency`).
pub const LLM_EPISODES_IN_FLIGHT: &str = "simfleet_llm_episodes_in_flight";
/// Gauge `{model, kind}`: the configured price of 1000 tokens in dollars (`kind` is `prompt`
/// or `completion`), for the dashboards' cost estimate.
pub const LLM_TOKEN_PRICE_DOLLARS: &str = "simfleet_llm_token_price_dollars";

/// The `game` label of jobs whose game is not one this build knows (the raw string would be
/// unbounded free text).
pub const UNKNOWN_GAME_LABEL: &str = "unknown";

/// Buckets of [`JOB_DURATION_SECONDS`]: a job is sized to take well under a second, but `llm`
/// seats and big CogsGuard maps take minutes.
pub const JOB_DURATION_BUCKETS: &[f64] =
    &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0];

/// Buckets of [`LLM_CALL_DURATION_SECONDS`]: from a local model's tens of milliseconds to a
/// hosted model's long answers and the per-call timeout.
pub const LLM_CALL_DURATION_BUCKETS: &[f64] = &[0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0];

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
    all.insert(LLM_CALL_DURATION_SECONDS.to_string(), LLM_CALL_DURATION_BUCKETS.to_vec());
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
    describe();
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

/// The `# HELP` text of every metric the worker serves (the per-game histogram names
/// included), by name; `None` for a name that is not ours.
pub fn help(name: &str) -> Option<String> {
    let fixed = match name {
        EPISODES_TOTAL => "Episodes played, by game, scenario, policy set and outcome.",
        JOB_DURATION_SECONDS => "Wall time of one job (all its episodes), in seconds.",
        JOBS_TOTAL => "Jobs answered, by game and status (ok or error, with the error kind).",
        SWEEP_EPISODES_TOTAL => "Episodes played, by sweep.",
        JOB_REDELIVERIES_TOTAL => "Jobs delivered to a worker more than once (a crashed or too slow worker).",
        JOBS_IN_FLIGHT => "Jobs being played right now: at most the concurrency, plus jobs with llm seats.",
        WORKER_INFO => "Always 1; labels give the worker's version, concurrency and llm concurrency.",
        LLM_CALLS_TOTAL => "Chat-completions calls made by llm seats, by game, model and endpoint host.",
        LLM_FAILURES_TOTAL => {
            "Failed llm calls by kind (transport failures, 429s) and answers the game refused (invalid_output)."
        }
        LLM_RETRIES_TOTAL => "llm calls that repeat an earlier call of the same decision.",
        LLM_FALLBACKS_TOTAL => "llm decisions handed to the seat's fallback policy after the attempts were spent.",
        LLM_PROMPT_TOKENS_TOTAL => "Prompt (input) tokens reported by the model endpoints.",
        LLM_COMPLETION_TOKENS_TOTAL => "Completion (output) tokens reported by the model endpoints.",
        LLM_CALL_DURATION_SECONDS => "Latency of one chat-completions call, in seconds.",
        LLM_CALLS_IN_FLIGHT => "Model calls waiting for an answer right now.",
        LLM_EPISODES_IN_FLIGHT => "Episodes with llm seats being played right now (at most llm_concurrency).",
        LLM_TOKEN_PRICE_DOLLARS => {
            "Configured price of 1000 tokens in dollars, by model and kind (prompt or completion)."
        }
        _ => "",
    };
    if !fixed.is_empty() {
        return Some(fixed.to_string());
    }
    let game = GameKind::ALL.into_iter().find(|g| name.starts_with(&format!("simfleet_{}_", g.as_str())))?;
    let what = if name == team_reward_metric(game) {
        "Team reward per episode, by scenario and policy set"
    } else if name == episode_length_metric(game) {
        "Episode length (the game's steps), by scenario and policy set"
    } else if name == agent_reward_metric(game) {
        "Reward of each seat per episode, by scenario and seat policy"
    } else {
        return None;
    };
    Some(format!("{what} ({}).", game.as_str()))
}

/// Registers the help text of every metric the recorder renders (the per-episode histograms
/// render their own, [`crate::histograms`]).
pub fn describe() {
    for name in [EPISODES_TOTAL, JOBS_TOTAL, SWEEP_EPISODES_TOTAL, JOB_REDELIVERIES_TOTAL, LLM_CALLS_TOTAL]
        .into_iter()
        .chain([LLM_FAILURES_TOTAL])
        .chain([LLM_RETRIES_TOTAL, LLM_FALLBACKS_TOTAL, LLM_PROMPT_TOKENS_TOTAL, LLM_COMPLETION_TOKENS_TOTAL])
    {
        metrics::describe_counter!(name, help(name).unwrap_or_default());
    }
    for name in [JOBS_IN_FLIGHT, WORKER_INFO, LLM_CALLS_IN_FLIGHT, LLM_EPISODES_IN_FLIGHT, LLM_TOKEN_PRICE_DOLLARS] {
        metrics::describe_gauge!(name, help(name).unwrap_or_default());
    }
    for name in [JOB_DURATION_SECONDS, LLM_CALL_DURATION_SECONDS] {
        metrics::describe_histogram!(name, metrics::Unit::Seconds, help(name).unwrap_or_default());
    }
}

/// Announces a starting worker: sets [`WORKER_INFO`] to 1 with this build's version and
/// concurrencies, registers the series that stay at zero in a healthy fleet (redeliveries,
/// jobs, calls and episodes in flight) so dashboards and `rate()` see a 0 rather than no data,
/// and publishes the configured token prices.
pub fn register_worker(concurrency: usize, llm_concurrency: usize, prices: &[crate::settings::LlmPrice]) {
    metrics::gauge!(WORKER_INFO, "version" => env!("CARGO_PKG_VERSION"), "concurrency" => concurrency.to_string(),
        "llm_concurrency" => llm_concurrency.to_string())
    .set(1.0);
    metrics::gauge!(JOBS_IN_FLIGHT).set(0.0);
    metrics::gauge!(LLM_CALLS_IN_FLIGHT).set(0.0);
    metrics::gauge!(LLM_EPISODES_IN_FLIGHT).set(0.0);
    for game in GameKind::ALL {
        metrics::counter!(JOB_REDELIVERIES_TOTAL, "game" => game.as_str()).increment(0);
    }
    for p in prices {
        for (kind, price) in [("prompt", p.prompt_per_1k), ("completion", p.completion_per_1k)] {
            metrics::gauge!(LLM_TOKEN_PRICE_DOLLARS, "model" => p.model.clone(), "kind" => kind).set(price);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_has_buckets_for_its_three_histograms() {
        let all = histogram_buckets(&BTreeMap::new());
        assert_eq!(all.len(), 2 + 3 * GameKind::ALL.len());
        assert!(all.values().all(|b| !b.is_empty()));
        assert!(all.contains_key("simfleet_bucket_brigade_episode_team_reward"));
    }

    #[test]
    fn every_metric_has_help_text() {
        let names =
            [EPISODES_TOTAL, JOB_DURATION_SECONDS, JOBS_TOTAL, JOB_REDELIVERIES_TOTAL, JOBS_IN_FLIGHT, WORKER_INFO];
        assert!(help(SWEEP_EPISODES_TOTAL).is_some());
        for name in names.into_iter().chain(histogram_buckets(&BTreeMap::new()).keys().map(String::as_str)) {
            assert!(help(name).is_some_and(|h| h.len() > 10), "{name}");
        }
        assert_eq!(help("simfleet_nothing"), None);
        assert_eq!(
            help("simfleet_trolley_episode_team_reward").unwrap(),
            "Team reward per episode, by scenario and policy set (trolley)."
        );
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
