//! The coordinator's connection settings for the fleet commands, layered like the worker's:
//! built-in defaults < `NATS_URL` < `--config FILE` < `SIMFLEET_COORDINATOR__*` environment <
//! flags. Keys: `nats_url` (one server or a comma-separated list), `metrics_listen`,
//! `stream_replicas` (of the streams and KV bucket it creates), the sweeps' consumers' limits
//! `ack_wait_seconds`, `max_deliver` and `max_ack_pending` (the worker's keys, with the same
//! defaults: a coordinator that creates the consumer creates it with the deployment's limits),
//! and the worker's `[auth]` table (user/password, token, nkey seed or creds file, each inline
//! or `*_file`, plus `tls_ca_file`, `tls_cert_file` and `tls_key_file`), all read by
//! `simfleet::nats`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use simfleet::nats::{Auth, AuthConfig, ConfigError, TopologyConfig};

/// The environment prefix: `SIMFLEET_COORDINATOR__NATS_URL`, `SIMFLEET_COORDINATOR__AUTH__TOKEN`.
pub const ENV_PREFIX: &str = "SIMFLEET_COORDINATOR";

/// What the flags say (stage one's top layer).
#[derive(Clone, Debug, Default)]
pub struct FleetFlags {
    /// `--config FILE`.
    pub config: Option<PathBuf>,
    /// `--nats-url`.
    pub nats_url: Option<String>,
    /// `--metrics-listen`.
    pub metrics_listen: Option<String>,
}

/// Every key the fleet commands' `--config` file accepts, with what it sets: the one source of
/// the `--config` help (a test checks it against the keys the file is read with).
pub const CONFIG_KEYS: &[(&str, &str)] = &[
    ("nats_url", "the server URL, or a cluster's servers comma-separated"),
    ("metrics_listen", "the address `watch` serves simfleet_sweep_jobs on"),
    ("stream_replicas", "replicas of the streams and KV bucket: 1 (default), or 3 on a three-server cluster"),
    ("ack_wait_seconds", "the sweeps' consumers: how long a delivered job may go unacknowledged"),
    ("max_deliver", "the sweeps' consumers: deliveries of a job before it goes to the DLQ"),
    ("max_ack_pending", "the sweeps' consumers: jobs of one sweep in flight fleet-wide, at most"),
    (
        "auth",
        "a table, as the worker's: user + password, token, nkey_seed or creds_file (each also as \
         *_file); tls_ca_file, tls_cert_file, tls_key_file",
    ),
];

/// The `--config` help of the fleet commands: every key of [`CONFIG_KEYS`].
pub fn config_help() -> String {
    let keys: Vec<String> = CONFIG_KEYS.iter().map(|(k, what)| format!("`{k}` ({what})")).collect();
    format!("A TOML file with {}; the same keys as the worker's configuration file.", keys.join("; "))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    nats_url: String,
    metrics_listen: Option<String>,
    stream_replicas: usize,
    ack_wait_seconds: u64,
    max_deliver: i64,
    max_ack_pending: i64,
    #[serde(default)]
    auth: AuthConfig,
}

/// Resolved settings of the fleet commands.
#[derive(Clone, Debug)]
pub struct FleetSettings {
    /// NATS server URL(s), comma-separated.
    pub nats_url: String,
    /// Where `watch` serves `/metrics` (`simfleet_sweep_jobs`), if anywhere.
    pub metrics_listen: Option<SocketAddr>,
    /// Replicas of the streams and the KV bucket: what `setup` (and, on a server without
    /// permissions, the first fleet command) creates them with, and what every fleet command
    /// checks them against.
    pub stream_replicas: usize,
    /// The sweeps' consumers: ack wait, deliveries before the DLQ, a sweep's jobs in flight fleet-wide.
    /// What the coordinator (or `setup`) creates it with; workers configured otherwise change it.
    pub consumer_limits: (Duration, i64, i64),
    /// Credentials and TLS.
    pub auth: Auth,
}

impl FleetSettings {
    /// Settings for an open server at `nats_url` (what tests use).
    pub fn new(nats_url: impl Into<String>) -> FleetSettings {
        let d = TopologyConfig::default();
        FleetSettings {
            nats_url: nats_url.into(),
            metrics_listen: None,
            stream_replicas: 1,
            consumer_limits: (d.ack_wait, d.max_deliver, d.max_ack_pending),
            auth: Auth::default(),
        }
    }

    /// The topology the fleet commands create and check: `stream_replicas` and the configured
    /// limits of the sweeps' consumers (the same keys as the workers').
    pub fn topology_config(&self) -> TopologyConfig {
        let (ack_wait, max_deliver, max_ack_pending) = self.consumer_limits;
        TopologyConfig {
            replicas: self.stream_replicas,
            ack_wait,
            max_deliver,
            max_ack_pending,
            ..TopologyConfig::default()
        }
    }

    /// Loads the layers. `env` is the process environment (a parameter for tests).
    pub fn load(flags: &FleetFlags, env: &HashMap<String, String>) -> Result<FleetSettings, ConfigError> {
        let nats_url = env.get("NATS_URL").cloned().unwrap_or_else(|| simfleet::nats::DEFAULT_NATS_URL.to_string());
        let d = TopologyConfig::default();
        let mut builder = config::Config::builder()
            .set_default("nats_url", nats_url)?
            .set_default("stream_replicas", 1u64)?
            .set_default("ack_wait_seconds", d.ack_wait.as_secs())?
            .set_default("max_deliver", d.max_deliver)?
            .set_default("max_ack_pending", d.max_ack_pending)?;
        if let Some(file) = &flags.config {
            builder = builder.add_source(file_source(file)?);
        }
        let env_map: config::Map<String, String> = env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let raw: RawConfig = builder
            .add_source(
                config::Environment::with_prefix(ENV_PREFIX)
                    .prefix_separator("__")
                    .separator("__")
                    .source(Some(env_map)),
            )
            .set_override_option("nats_url", flags.nats_url.clone())?
            .set_override_option("metrics_listen", flags.metrics_listen.clone())?
            .build()?
            .try_deserialize()?;
        simfleet::nats::parse_servers(&raw.nats_url)?;
        let metrics_listen = raw
            .metrics_listen
            .map(|a| {
                a.parse().map_err(|e| {
                    ConfigError::new("metrics_listen", format!("{a:?} is not an address like 127.0.0.1:9465: {e}"))
                })
            })
            .transpose()?;
        Ok(FleetSettings {
            nats_url: raw.nats_url,
            metrics_listen,
            stream_replicas: simfleet::nats::check_replicas(raw.stream_replicas)?,
            consumer_limits: (
                Duration::from_secs(positive("ack_wait_seconds", raw.ack_wait_seconds)?),
                positive("max_deliver", raw.max_deliver)?,
                positive("max_ack_pending", raw.max_ack_pending)?,
            ),
            auth: raw.auth.resolve()?,
        })
    }
}

fn positive<T: PartialOrd + Default + std::fmt::Display>(key: &str, value: T) -> Result<T, ConfigError> {
    if value > T::default() {
        Ok(value)
    } else {
        Err(ConfigError::new(key, format!("must be positive, got {value}")))
    }
}

fn file_source(path: &Path) -> Result<config::File<config::FileSourceFile, config::FileFormat>, ConfigError> {
    if !path.is_file() {
        return Err(ConfigError::new("--config", format!("{} is not a readable file", path.display())));
    }
    Ok(config::File::from(path).format(config::FileFormat::Toml).required(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// The keys the file is read with, from serde's own refusal of an unknown one.
    fn accepted_keys() -> Vec<String> {
        let e = toml::from_str::<RawConfig>("not_a_key = 1").unwrap_err().to_string();
        let list = e.split("expected one of").nth(1).unwrap_or_else(|| panic!("serde lists the fields: {e}"));
        list.split('`').skip(1).step_by(2).map(String::from).collect()
    }

    #[test]
    fn the_config_help_lists_every_key_the_file_accepts() {
        let documented: Vec<String> = CONFIG_KEYS.iter().map(|(k, _)| k.to_string()).collect();
        assert_eq!(documented, accepted_keys(), "CONFIG_KEYS, in the order of RawConfig");
        let help = config_help();
        assert!(CONFIG_KEYS.iter().all(|(k, _)| help.contains(&format!("`{k}`"))), "{help}");
    }

    #[test]
    fn layers_override_in_order() {
        let flags = FleetFlags::default();
        assert_eq!(FleetSettings::load(&flags, &env(&[])).unwrap().nats_url, "nats://127.0.0.1:4222");
        let e = env(&[("NATS_URL", "nats://a:1")]);
        assert_eq!(FleetSettings::load(&flags, &e).unwrap().nats_url, "nats://a:1");
        let e = env(&[("NATS_URL", "nats://a:1"), ("SIMFLEET_COORDINATOR__NATS_URL", "nats://b:2")]);
        assert_eq!(FleetSettings::load(&flags, &e).unwrap().nats_url, "nats://b:2");
        let flags = FleetFlags { nats_url: Some("nats://c:3".into()), ..FleetFlags::default() };
        assert_eq!(FleetSettings::load(&flags, &e).unwrap().nats_url, "nats://c:3");
    }

    #[test]
    fn a_server_list_and_replicas_load_from_the_environment() {
        let e = env(&[
            ("SIMFLEET_COORDINATOR__NATS_URL", "nats://a:4222,nats://b:4222,nats://c:4222"),
            ("SIMFLEET_COORDINATOR__STREAM_REPLICAS", "3"),
        ]);
        let s = FleetSettings::load(&FleetFlags::default(), &e).unwrap();
        assert_eq!(
            (s.nats_url.as_str(), s.topology_config().replicas),
            ("nats://a:4222,nats://b:4222,nats://c:4222", 3)
        );
        let e = env(&[("SIMFLEET_COORDINATOR__STREAM_REPLICAS", "7")]);
        assert_eq!(FleetSettings::load(&FleetFlags::default(), &e).unwrap_err().key(), Some("stream_replicas"));
        let flags = FleetFlags { nats_url: Some("nats://a:4222,ftp://b".into()), ..FleetFlags::default() };
        assert_eq!(FleetSettings::load(&flags, &env(&[])).unwrap_err().key(), Some("nats_url"));
    }

    #[test]
    fn the_consumer_limits_are_the_workers_keys() {
        let s = FleetSettings::load(&FleetFlags::default(), &env(&[])).unwrap();
        assert_eq!(s.topology_config(), TopologyConfig::default());
        let e =
            env(&[("SIMFLEET_COORDINATOR__MAX_ACK_PENDING", "2400"), ("SIMFLEET_COORDINATOR__ACK_WAIT_SECONDS", "9")]);
        let cfg = FleetSettings::load(&FleetFlags::default(), &e).unwrap().topology_config();
        assert_eq!((cfg.ack_wait, cfg.max_deliver, cfg.max_ack_pending), (Duration::from_secs(9), 5, 2400));
        let e = env(&[("SIMFLEET_COORDINATOR__MAX_DELIVER", "0")]);
        assert_eq!(FleetSettings::load(&FleetFlags::default(), &e).unwrap_err().key(), Some("max_deliver"));
    }

    #[test]
    fn bad_values_name_their_key() {
        let flags = FleetFlags { metrics_listen: Some("nowhere".into()), ..FleetFlags::default() };
        let e = FleetSettings::load(&flags, &env(&[])).unwrap_err();
        assert_eq!(e.key(), Some("metrics_listen"), "{e}");
        let e = FleetSettings::load(&FleetFlags::default(), &env(&[("SIMFLEET_COORDINATOR__AUTH__USER", "u")]))
            .unwrap_err();
        assert_eq!(e.key(), Some("auth.password"), "{e}");
    }
}
