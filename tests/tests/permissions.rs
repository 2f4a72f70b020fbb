//! Least privilege: a server with the shipped per-role permissions
//! (`deploy/k8s/base/permissions.conf`, through `tests/configs/permissions.conf`). The fleet
//! works under them end to end, each role doing exactly its part, and a worker's credentials
//! are refused everything else.

use std::time::Duration;

use async_nats::jetstream::{self, kv};
use futures::StreamExt;
use simfleet::names;
use simfleet::nats::topology::{ensure, sweep_consumer, LimitsOwner, TopologyConfig};
use simfleet::nats::{Auth, Credentials, Secret};
use simfleet_tests::jobs::{good_job, publish_job, unique_sweep};
use simfleet_tests::results::jobs_in_stream;
use simfleet_tests::{config_fixture, logs, CoordinatorProcess, NatsServer, WorkerProcess};

use crate::fleet::{assert_same_records, slow_sweep, Setup};

const TIMEOUT: Duration = Duration::from_secs(120);
/// The line the shared connection code logs for a refused operation.
const REFUSED: &str = "the NATS server refused an operation";

fn worker_env() -> Vec<(&'static str, &'static str)> {
    vec![("SIMFLEET_WORKER__AUTH__USER", "worker"), ("SIMFLEET_WORKER__AUTH__PASSWORD", "worker-s3cret")]
}

fn coordinator_env(user: &'static str, password: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![("SIMFLEET_COORDINATOR__AUTH__USER", user), ("SIMFLEET_COORDINATOR__AUTH__PASSWORD", password)]
}

/// Runs `coordinator <args>` to the end; its exit code, stdout and stderr.
async fn coordinator(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut c = CoordinatorProcess::spawn(args, env);
    let status = c.wait_exit(TIMEOUT).await;
    (status.code(), c.stdout(), c.stderr().join("\n"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fleet_works_under_the_shipped_permissions() {
    let server = NatsServer::start_with_config(config_fixture("permissions.conf"));
    let url = server.client_url();
    // A worker started before the topology exists waits for it, and says who creates it.
    let args = ["--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
    let worker = WorkerProcess::spawn(&args, &worker_env());
    worker.wait_for_log("the JetStream topology is not set up", TIMEOUT).await;
    // The coordinator's credentials may not create it: a clear error naming the fix.
    let coordinator_creds = coordinator_env("coordinator", "coordinator-s3cret");
    let (code, _, stderr) = coordinator(&["status", "--nats-url", &url], &coordinator_creds).await;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(REFUSED) && stderr.contains("$JS.API.STREAM.CREATE."), "{stderr}");
    assert!(stderr.contains("an admin creates it with `coordinator setup`"), "{stderr}");
    // The admin sets the topology up; the worker binds to it by itself.
    let (code, stdout, stderr) =
        coordinator(&["setup", "--nats-url", &url], &coordinator_env("admin", "admin-s3cret")).await;
    assert_eq!(code, Some(0), "{stderr}");
    for object in [names::JOBS_STREAM, names::RESULTS_STREAM, names::DLQ_STREAM, names::SWEEPS_BUCKET] {
        assert!(stdout.lines().any(|l| l.contains(object) && l.ends_with("created")), "{stdout}");
    }
    worker.wait_for_log("worker started", TIMEOUT).await;
    let second = WorkerProcess::spawn(&args, &worker_env());
    let mut stderrs = Vec::new();
    // The coordinator's credentials do all of a sweep's life: submit, watch, status, results.
    let setup = Setup::new(slow_sweep("least-privilege", 8, Duration::from_millis(40)));
    let (sweep, out, again) = (setup.path("sweep.toml"), setup.path("fleet.jsonl"), setup.path("again.csv"));
    let (sweep, out, again) = (sweep.to_str().unwrap(), out.to_str().unwrap(), again.to_str().unwrap());
    let submit = ["submit", sweep, "--watch", "--out", out, "--quiet", "--nats-url", &url];
    let (code, stdout, stderr) = coordinator(&submit, &coordinator_creds).await;
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    stderrs.push(stderr);
    assert_same_records(&setup, std::path::Path::new(out)).await;
    let id = setup.sweep.id.as_str();
    let (code, stdout, stderr) = coordinator(&["status", id, "--nats-url", &url], &coordinator_creds).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains(id) && stdout.contains("done"), "{stdout}");
    stderrs.push(stderr);
    // `priority` writes the sweep's entry.
    let (code, stdout, stderr) = coordinator(&["priority", id, "low", "--nats-url", &url], &coordinator_creds).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("priority normal -> low"), "{stdout}");
    stderrs.push(stderr);
    let (code, _, stderr) =
        coordinator(&["results", id, "--out", again, "--quiet", "--nats-url", &url], &coordinator_creds).await;
    assert_eq!(code, Some(0), "{stderr}");
    let rows = std::fs::read_to_string(again).unwrap().lines().count() - 1;
    assert_eq!(rows as u64, setup.sweep.episode_count());
    stderrs.push(stderr);
    // Cancel purges the queue and writes the bucket: a sweep nobody plays.
    for w in [&worker, &second] {
        stderrs.push(w.logs().join("\n"));
    }
    drop((worker, second));
    let idle = Setup::new(slow_sweep("least-privilege-cancel", 4, Duration::from_millis(10)));
    let idle_sweep = idle.path("sweep.toml");
    let (code, _, stderr) =
        coordinator(&["submit", idle_sweep.to_str().unwrap(), "--nats-url", &url], &coordinator_creds).await;
    assert_eq!(code, Some(0), "{stderr}");
    stderrs.push(stderr);
    // `--republish` reads the queue (message gets by subject) and the results: all four queued.
    let republish = ["submit", idle_sweep.to_str().unwrap(), "--republish", "--quiet", "--nats-url", &url];
    let (code, _, stderr) = coordinator(&republish, &coordinator_creds).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("0 published, 4 published before"), "{stderr}");
    stderrs.push(stderr);
    let (code, stdout, stderr) = coordinator(&["cancel", &idle.sweep.id, "--nats-url", &url], &coordinator_creds).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("4 queued job(s) removed"), "{stdout}");
    stderrs.push(stderr);
    // Nothing a role did after setup was refused: the permissions hold all that each needs.
    for text in stderrs {
        assert!(!text.contains(REFUSED), "{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workers_credentials_are_refused_everything_but_its_part() {
    logs::collect();
    let server = NatsServer::start_with_config(config_fixture("permissions.conf"));
    let url = server.client_url();
    // The admin's topology, a queued job and a sweep entry.
    let admin = async_nats::ConnectOptions::with_user_and_password("admin".into(), "admin-s3cret".into())
        .connect(&url)
        .await
        .unwrap();
    let admin = jetstream::new(admin);
    let topology = ensure(&admin, &TopologyConfig::default()).await.unwrap();
    let sweep = unique_sweep("refused");
    publish_job(&admin, &good_job(&sweep, 0, 5)).await;
    topology.sweeps.put(&sweep, "{}".into()).await.unwrap();
    // A client with the worker's credentials, through the worker's own connection code.
    let credentials = Credentials::UserPassword { user: "worker".into(), password: Secret::new("worker-s3cret") };
    let auth = Auth { credentials, ..Auth::default() };
    let name = format!("worker-credentials-{sweep}");
    let client = simfleet::nats::connect(&url, &auth, &name).await.unwrap();
    let mut js = jetstream::new(client);
    // A refusal is only an asynchronous -ERR: the operation itself times out.
    js.set_timeout(Duration::from_secs(2));
    let job = publish_job_result(&js, &sweep).await;
    let purge = js.get_stream(names::JOBS_STREAM).await.unwrap().purge().await.map(|_| ());
    let delete = js.delete_stream(names::RESULTS_STREAM).await.map(|_| ());
    let bucket: kv::Store = js.get_key_value(names::SWEEPS_BUCKET).await.unwrap();
    let write = bucket.put(&sweep, "{\"status\":\"cancelled\"}".into()).await.map(|_| ());
    let jobs = js.get_stream(names::JOBS_STREAM).await.unwrap();
    let greedy = async_nats::jetstream::consumer::pull::Config {
        durable_name: Some("greedy".into()),
        filter_subject: names::JOBS_FILTER.into(),
        ..Default::default()
    };
    let greedy = jobs.create_consumer(greedy).await.map(|_| ());
    for (what, outcome, subject) in [
        (
            "take every sweep's jobs",
            greedy.map_err(|e| e.to_string()),
            "$JS.API.CONSUMER.CREATE.SIMFLEET_JOBS.greedy.simfleet.jobs.>".into(),
        ),
        ("publish a job", job.map_err(|e| e.to_string()), format!("simfleet.jobs.bucket_brigade.{sweep}")),
        ("purge the jobs", purge.map_err(|e| e.to_string()), "$JS.API.STREAM.PURGE.SIMFLEET_JOBS".into()),
        ("delete the results", delete.map_err(|e| e.to_string()), "$JS.API.STREAM.DELETE.SIMFLEET_RESULTS".into()),
        ("write the bucket", write.map_err(|e| e.to_string()), format!("$KV.simfleet_sweeps.{sweep}")),
    ] {
        assert!(outcome.is_err(), "a worker's credentials could {what}");
        logs::wait_for(&[&name, REFUSED, &subject], Duration::from_secs(10)).await;
    }
    // And nothing changed.
    assert_eq!(jobs_in_stream(&admin).await, 1, "the queued job is still there");
    assert!(admin.get_stream(names::RESULTS_STREAM).await.is_ok(), "the results stream is still there");
    assert_eq!(topology.sweeps.get(&sweep).await.unwrap().as_deref(), Some(&b"{}"[..]), "the entry is unchanged");
    // What a worker does need is not refused: reading the entry, and the sweep's own consumer.
    assert_eq!(bucket.get(&sweep).await.unwrap().as_deref(), Some(&b"{}"[..]));
    js.set_timeout(Duration::from_secs(10));
    let (consumer, _) = sweep_consumer(&jobs, &TopologyConfig::default(), &sweep, LimitsOwner::Worker).await.unwrap();
    let mut batch = consumer.fetch().max_messages(1).messages().await.unwrap();
    let job = batch.next().await.expect("the queued job").unwrap();
    assert_eq!(simfleet::names::sweep_of_job_subject(&job.subject), Some(sweep.as_str()));
}

/// Publishes a job as the worker would have to, waiting for the stream's ack.
async fn publish_job_result(js: &jetstream::Context, sweep: &str) -> Result<(), async_nats::Error> {
    let job = good_job(sweep, 1, 5);
    let subject = names::job_subject(&job.game, sweep);
    let ack = js.publish(subject, simfleet::protocol::encode(&job).into()).await?;
    ack.await?;
    Ok(())
}
