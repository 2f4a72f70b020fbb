//! A three-server JetStream cluster on loopback (`simfleet_tests::NatsCluster`) with the
//! topology on three replicas, playing sweeps through the faults a cluster must survive: the
//! server leading the jobs stream killed with `kill -9` and restarted, a rolling restart of all
//! three servers one at a time (SIGTERM, as a StatefulSet update does), and a sweep submitted
//! while one server is down. Each scenario runs twice (two sweeps, different servers hit), each
//! sweep mid-flight when the fault comes, and every sweep's records are compared with
//! `coordinator run` of it: none lost, none duplicated, none different.
//!
//! Everything a user touches is the real binaries: `coordinator setup`, `coordinator submit
//! --watch` with the comma-separated server list, and worker processes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use async_nats::jetstream::{self, Context};
use simfleet::names;
use simfleet::nats::topology::{ensure, TopologyConfig};
use simfleet::nats::Auth;
use simfleet_tests::nats_cluster::{stream_leader, wait_new_leader, wait_stream_healthy};
use simfleet_tests::{CoordinatorProcess, NatsCluster, WorkerProcess};

use crate::fleet::{assert_same_records, slow_sweep, Setup};

/// Generous: leader elections take seconds, and the machine may be loaded.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(120);
/// Results of slow jobs outgrow the default 1 MB.
const EXTRA_CONFIG: &str = "max_payload: 16MB";

/// The cluster, an admin connection, and two workers.
pub(crate) struct ClusterFleet {
    pub(crate) cluster: NatsCluster,
    pub(crate) admin: Context,
    pub(crate) workers: Vec<WorkerProcess>,
}

/// Every stream of the topology, the KV bucket's included.
pub(crate) fn streams() -> [String; 4] {
    [
        names::JOBS_STREAM.to_string(),
        names::RESULTS_STREAM.to_string(),
        names::DLQ_STREAM.to_string(),
        format!("KV_{}", names::SWEEPS_BUCKET),
    ]
}

impl ClusterFleet {
    /// Three servers; the topology made with one replica (a short ack wait, so a job whose ack
    /// was lost in a failover comes back in seconds); a worker configured for three replicas,
    /// which says the topology has one; `coordinator setup` with three replicas, which moves
    /// every stream to three; then two workers.
    pub(crate) async fn start() -> ClusterFleet {
        let cluster = NatsCluster::start(EXTRA_CONFIG).await;
        let url = cluster.url();
        let client = simfleet::nats::connect(&url, &Auth::default(), "test-admin").await.expect("the admin connects");
        let admin = jetstream::new(client);
        let r1 = TopologyConfig { ack_wait: Duration::from_secs(3), ..TopologyConfig::default() };
        ensure(&admin, &r1).await.expect("a one-replica topology");
        let env = [("SIMFLEET_WORKER__STREAM_REPLICAS", "3"), ("SIMFLEET_WORKER__ACK_WAIT_SECONDS", "3")];
        let args = ["--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
        // A worker configured for three replicas says the topology has one, and works anyway.
        let mut early = WorkerProcess::spawn(&args, &env);
        early.wait_for_log("has 1 replica(s) but stream_replicas = 3", TIMEOUT).await;
        early.wait_for_log("worker started", TIMEOUT).await;
        // (Stopped before setup moves the consumer, which strands a pull waiting on the old
        // one until the client gives up on it: seconds the tests need not spend.)
        early.terminate();
        assert!(early.wait_exit(TIMEOUT).await.success());
        let mut setup = CoordinatorProcess::spawn(
            &["setup", "--nats-url", &url],
            &[("SIMFLEET_COORDINATOR__STREAM_REPLICAS", "3")],
        );
        assert!(setup.wait_exit(TIMEOUT).await.success(), "{:?}", setup.stderr());
        let table = setup.stdout();
        for stream in [names::JOBS_STREAM, names::RESULTS_STREAM, names::DLQ_STREAM, names::SWEEPS_BUCKET] {
            assert!(table.lines().any(|l| l.contains(stream) && l.contains("replicas 1 -> 3")), "{table}");
        }
        for stream in streams() {
            wait_stream_healthy(&admin, &stream, 3).await;
        }
        let mut jobs = admin.get_stream(names::JOBS_STREAM).await.unwrap();
        assert_eq!(jobs.info().await.unwrap().config.num_replicas, 3);
        let fleet = ClusterFleet { cluster, admin, workers: Vec::new() };
        let workers = vec![WorkerProcess::spawn(&args, &env), WorkerProcess::spawn(&args, &env)];
        for w in &workers {
            w.wait_for_log("worker started", TIMEOUT).await;
        }
        ClusterFleet { workers, ..fleet }
    }

    /// Waits until every stream has a leader and three current replicas again.
    pub(crate) async fn wait_healthy(&self) {
        self.cluster.wait_meta_leader().await;
        for stream in streams() {
            wait_stream_healthy(&self.admin, &stream, 3).await;
        }
    }

    /// `coordinator submit SWEEP --watch --out OUT` against every server, in the background.
    pub(crate) fn submit(&self, setup: &Setup, out: &Path) -> CoordinatorProcess {
        let url = self.cluster.url();
        let sweep = setup.path("sweep.toml");
        CoordinatorProcess::spawn(
            &[
                "submit",
                sweep.to_str().unwrap(),
                "--watch",
                "--out",
                out.to_str().unwrap(),
                "--quiet",
                "--nats-url",
                &url,
            ],
            &[("SIMFLEET_COORDINATOR__STREAM_REPLICAS", "3")],
        )
    }
}

/// A sweep of `jobs` jobs of about 150 ms each, and where its watch writes.
pub(crate) fn sweep(name: &str, jobs: u64) -> (Setup, PathBuf) {
    let setup = Setup::new(slow_sweep(name, jobs, Duration::from_millis(150)));
    let out = setup.path("fleet.jsonl");
    (setup, out)
}

/// Waits until `out` holds the records of at least `jobs` jobs of `setup` (mid-flight); on a
/// timeout, fails with what the coordinator and the workers said.
pub(crate) async fn wait_for_jobs(
    fleet: &ClusterFleet,
    submit: &CoordinatorProcess,
    setup: &Setup,
    out: &Path,
    jobs: u64,
) {
    let per_job = setup.sweep.job(0).unwrap().seeds.count;
    let written = async {
        loop {
            let lines = std::fs::read_to_string(out).map_or(0, |t| t.lines().count() as u64);
            if lines >= jobs * per_job {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    if tokio::time::timeout(TIMEOUT, written).await.is_err() {
        let workers: Vec<String> = fleet.workers.iter().map(|w| w.logs().join("\n")).collect();
        panic!(
            "no records of {jobs} jobs after {TIMEOUT:?}\ncoordinator:\n{}\nworkers:\n{}\nservers:\n{}",
            submit.stderr().join("\n"),
            workers.join("\n---\n"),
            fleet.cluster.logs()
        );
    }
}

/// Waits for the `submit --watch` to finish, then compares its records with the embedded run.
pub(crate) async fn finish(mut submit: CoordinatorProcess, setup: &Setup, out: &Path, cluster: &NatsCluster) {
    let status = submit.wait_exit(TIMEOUT).await;
    assert!(status.success(), "{status}: {}\n{}", submit.stderr().join("\n"), cluster.logs());
    assert_same_records(setup, out).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_jobs_leader_loses_and_duplicates_nothing() {
    let mut fleet = ClusterFleet::start().await;
    for round in 0..2 {
        let (setup, out) = sweep(&format!("kill-leader-{round}"), 12);
        let submit = fleet.submit(&setup, &out);
        wait_for_jobs(&fleet, &submit, &setup, &out, 2).await;
        let leader = stream_leader(&fleet.admin, names::JOBS_STREAM).await.expect("the jobs stream has a leader");
        let victim = fleet.cluster.index_of(&leader);
        fleet.cluster.kill(victim);
        wait_new_leader(&fleet.admin, names::JOBS_STREAM, &leader).await;
        fleet.cluster.start_again(victim);
        finish(submit, &setup, &out, &fleet.cluster).await;
        fleet.wait_healthy().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_of_all_three_loses_and_duplicates_nothing() {
    let mut fleet = ClusterFleet::start().await;
    for round in 0..2 {
        let (setup, out) = sweep(&format!("rolling-{round}"), 16);
        let submit = fleet.submit(&setup, &out);
        wait_for_jobs(&fleet, &submit, &setup, &out, 2).await;
        // As a StatefulSet update does: the highest ordinal first, each back and caught up
        // before the next goes.
        for i in (0..3).rev() {
            fleet.cluster.terminate(i);
            fleet.cluster.start_again(i);
            fleet.wait_healthy().await;
        }
        finish(submit, &setup, &out, &fleet.cluster).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submitting_while_a_server_is_down_loses_and_duplicates_nothing() {
    let mut fleet = ClusterFleet::start().await;
    for round in 0..2 {
        // A different server each round; its address stays in the list the coordinator gets.
        let down = round;
        fleet.cluster.kill(down);
        fleet.cluster.wait_meta_leader().await;
        let (setup, out) = sweep(&format!("one-down-{round}"), 12);
        let submit = fleet.submit(&setup, &out);
        wait_for_jobs(&fleet, &submit, &setup, &out, 2).await;
        fleet.cluster.start_again(down);
        finish(submit, &setup, &out, &fleet.cluster).await;
        fleet.wait_healthy().await;
    }
}
