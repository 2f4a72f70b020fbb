//! `coordinator setup`: the admin's command. Creates the JetStream topology (the jobs, results
//! and DLQ streams, the sweeps KV bucket) with `stream_replicas` replicas, or changes the
//! replicas of an existing one, carries a topology of earlier versions forward (removes the
//! fleet-wide consumer, widens the DLQ's subjects), then prints every object with its replicas
//! and current leader. The command itself is `commands::setup`.
//!
//! Under the permissions of `deploy/k8s/base/permissions.conf` only the admin user may do
//! this: workers only bind, and the coordinator's user finds what setup made. Run it once
//! after installing, and again after changing `stream_replicas` (e.g. one server to three).

use anyhow::Context as _;
use async_nats::jetstream::{self, stream::Stream};
use simfleet::names;
use simfleet::nats::outage::{wait_out, wait_out_if};
use simfleet::nats::topology::{self, SetupAction, SetupReport, SetupStep, TopologyError};

use super::{FleetSettings, CONNECTION_NAME};

/// One object as it stands after setup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectState {
    /// What setup did.
    pub step: SetupStep,
    /// Replicas now (a consumer's follow its stream's).
    pub replicas: usize,
    /// The server leading it, when the server runs in a cluster.
    pub leader: Option<String>,
}

/// Sets the topology up on the servers of `settings` and returns every object's state.
pub async fn setup(settings: &FleetSettings) -> anyhow::Result<Vec<ObjectState>> {
    let client = simfleet::nats::connect(&settings.nats_url, &settings.auth, CONNECTION_NAME).await?;
    let js = jetstream::new(client);
    let cfg = settings.topology_config();
    // An attempt an outage interrupts is run again; the report remembers what it did.
    let report = std::sync::Mutex::new(SetupReport::default());
    wait_out_if("setting up the JetStream topology", TopologyError::is_transient, || async {
        let mut r = report.lock().expect("one attempt at a time").clone();
        let outcome = topology::setup(&js, &cfg, &mut r).await;
        *report.lock().expect("one attempt at a time") = r;
        outcome
    })
    .await?;
    let steps = report.into_inner().expect("no attempt panicked").steps;
    let mut states = Vec::new();
    for step in steps {
        // Right after a change of replicas the objects elect leaders: wait for them to answer.
        let (replicas, leader) = wait_out("reading the topology after setup", || state(&js, &step)).await?;
        states.push(ObjectState { step, replicas, leader });
    }
    Ok(states)
}

/// An object's replicas and leader: a consumer's leader, the replicas of its stream.
async fn state(js: &jetstream::Context, step: &SetupStep) -> anyhow::Result<(usize, Option<String>)> {
    let stream = match step.what {
        "consumer" => names::JOBS_STREAM.to_string(),
        "KV bucket" => format!("KV_{}", step.name),
        _ => step.name.clone(),
    };
    let mut s: Stream = js.get_stream(&stream).await.with_context(|| format!("reading stream {stream}"))?;
    let info = s.info().await.with_context(|| format!("reading stream {stream}"))?;
    let replicas = info.config.num_replicas.max(1);
    let mut leader = info.cluster.as_ref().and_then(|c| c.leader.clone());
    if step.what == "consumer" && step.action != SetupAction::Removed {
        let info = s.consumer_info(&step.name).await.with_context(|| format!("reading consumer {}", step.name))?;
        leader = info.cluster.as_ref().and_then(|c| c.leader.clone());
    }
    Ok((replicas, leader))
}

/// The states as a table (one row per object: its kind, name, replicas, leader and what setup
/// did).
pub fn table(states: &[ObjectState]) -> String {
    use crate::table::Align::{Left as L, Right as R};
    let rows: Vec<[String; 5]> = states
        .iter()
        .map(|s| {
            [
                s.step.what.to_string(),
                s.step.name.clone(),
                s.replicas.to_string(),
                s.leader.clone().unwrap_or_else(|| "-".into()),
                s.step.action.to_string(),
            ]
        })
        .collect();
    crate::table::render(&["object", "name", "replicas", "leader", "setup"], &[L, L, R, L, L], &rows)
}
