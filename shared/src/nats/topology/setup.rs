//! The admin's `coordinator setup`: creates every object of the topology that is missing and
//! changes the replicas of those that exist with others than `stream_replicas` (JetStream
//! moves a stream between one and three replicas in place: the data stays, the new replicas
//! catch up, clients carry on). Everything else about an existing object is only checked, as
//! [`super::ensure`] does: retention cannot change in place.
//!
//! Two changes carry a topology of earlier versions forward: the fleet-wide consumer
//! `simfleet-workers` is removed (each sweep has its own consumer now, and a work queue refuses
//! overlapping ones), and the DLQ stream's subjects widen from that consumer's advisories to
//! every consumer's of the jobs stream.

use std::fmt;

use async_nats::jetstream::Context;

use super::{
    dlq_stream_config, failed, jobs_stream_config, results_stream_config, stream, sweeps_bucket, sweeps_stream_name,
    Mode, TopologyConfig, TopologyError,
};
use crate::names;

/// What setup did to one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetupAction {
    /// It did not exist: created with the configured replicas.
    Created,
    /// It existed with the configured replicas: left alone.
    Kept,
    /// It existed with other replicas: changed to the configured ones.
    Replicas {
        /// Replicas before.
        from: usize,
        /// Replicas now.
        to: usize,
    },
    /// It existed with the subjects of an earlier version: changed to this version's.
    Subjects,
    /// An object of an earlier version that this one replaces: removed.
    Removed,
}

impl fmt::Display for SetupAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupAction::Created => f.write_str("created"),
            SetupAction::Kept => f.write_str("kept"),
            SetupAction::Replicas { from, to } => write!(f, "replicas {from} -> {to}"),
            SetupAction::Subjects => f.write_str("subjects changed"),
            SetupAction::Removed => f.write_str("removed"),
        }
    }
}

/// One object and what setup did to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupStep {
    /// `stream`, `consumer` or `KV bucket`.
    pub what: &'static str,
    /// Its name.
    pub name: String,
    /// What was done.
    pub action: SetupAction,
}

/// What setup did to each object, across attempts: an attempt interrupted by an outage is run
/// again, and finds what the first one did already done.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetupReport {
    /// One step per object, in setup order.
    pub steps: Vec<SetupStep>,
}

impl SetupReport {
    /// Records a step; an object an earlier attempt created or changed keeps that action.
    fn record(&mut self, step: SetupStep) {
        match self.steps.iter_mut().find(|s| s.what == step.what && s.name == step.name) {
            Some(earlier) if earlier.action == SetupAction::Kept => *earlier = step,
            Some(_) => {}
            None => self.steps.push(step),
        }
    }
}

/// Creates what is missing and sets every stream's (and the bucket's) replicas to
/// `cfg.replicas`, recording each object in `report` as it is done. Needs the admin's
/// permissions. Idempotent: after an error, run it again with the same report.
pub async fn setup(js: &Context, cfg: &TopologyConfig, report: &mut SetupReport) -> Result<(), TopologyError> {
    let mut jobs = None;
    for config in [jobs_stream_config(cfg), results_stream_config(cfg), dlq_stream_config(cfg)] {
        let name = config.name.clone();
        let moved = set_subjects(js, &config).await?;
        let (s, created) = stream(js, config, Mode::Create).await?;
        let action = if created { SetupAction::Created } else { set_replicas(js, &name, cfg.replicas).await? };
        let action = if moved && action == SetupAction::Kept { SetupAction::Subjects } else { action };
        report.record(SetupStep { what: "stream", name: name.clone(), action });
        if name == names::JOBS_STREAM {
            jobs = Some(s);
        }
    }
    let jobs = jobs.expect("the jobs stream is set up first");
    if jobs.consumer_info(LEGACY_CONSUMER).await.is_ok() {
        jobs.delete_consumer(LEGACY_CONSUMER).await.map_err(|e| failed("consumer", LEGACY_CONSUMER, e))?;
        tracing::info!(consumer = LEGACY_CONSUMER, "removed the fleet-wide consumer of earlier versions");
        report.record(SetupStep { what: "consumer", name: LEGACY_CONSUMER.to_string(), action: SetupAction::Removed });
    }
    let (_, created) = sweeps_bucket(js, cfg, Mode::Create).await?;
    let action =
        if created { SetupAction::Created } else { set_replicas(js, &sweeps_stream_name(), cfg.replicas).await? };
    report.record(SetupStep { what: "KV bucket", name: names::SWEEPS_BUCKET.to_string(), action });
    Ok(())
}

/// The one consumer all workers shared before each sweep had its own.
pub const LEGACY_CONSUMER: &str = "simfleet-workers";

/// Gives an existing stream this version's subjects (only the DLQ's changed); true when it did.
async fn set_subjects(js: &Context, want: &async_nats::jetstream::stream::Config) -> Result<bool, TopologyError> {
    let Ok(mut found) = js.get_stream(&want.name).await else { return Ok(false) };
    let mut config = found.info().await.map_err(|e| failed("stream", &want.name, e))?.config.clone();
    if config.subjects == want.subjects || config.retention != want.retention {
        return Ok(false);
    }
    let from = std::mem::replace(&mut config.subjects, want.subjects.clone());
    js.update_stream(&config).await.map_err(|e| failed("stream", &want.name, e))?;
    tracing::info!(stream = want.name, ?from, to = ?want.subjects, "changed the stream's subjects");
    Ok(true)
}

/// Changes a stream's replicas to `want` if they differ.
async fn set_replicas(js: &Context, stream: &str, want: usize) -> Result<SetupAction, TopologyError> {
    let mut info = js.get_stream(stream).await.map_err(|e| failed("stream", stream, e))?;
    let mut config = info.info().await.map_err(|e| failed("stream", stream, e))?.config.clone();
    let have = config.num_replicas.max(1);
    if have == want {
        return Ok(SetupAction::Kept);
    }
    config.num_replicas = want;
    js.update_stream(&config).await.map_err(|e| {
        let mut e = failed("stream", stream, format!("cannot change its replicas from {have} to {want}: {e}"));
        e.kind = super::TopologyErrorKind::Other;
        e
    })?;
    tracing::info!(stream, from = have, to = want, "changed the stream's replicas");
    Ok(SetupAction::Replicas { from: have, to: want })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retried_setup_reports_what_the_first_attempt_did() {
        let step = |action| SetupStep { what: "stream", name: "S".into(), action };
        let mut report = SetupReport::default();
        report.record(step(SetupAction::Replicas { from: 1, to: 3 }));
        report.record(step(SetupAction::Kept));
        assert_eq!(report.steps, [step(SetupAction::Replicas { from: 1, to: 3 })]);
        let mut report = SetupReport::default();
        report.record(step(SetupAction::Kept));
        report.record(step(SetupAction::Created));
        assert_eq!(report.steps, [step(SetupAction::Created)]);
    }
}
