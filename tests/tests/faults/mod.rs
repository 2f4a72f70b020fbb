//! Real faults, each on real nats-servers and worker processes, each ending with the sweep's
//! records compared with `coordinator run`'s (none lost, none duplicated, none different):
//!
//! - `shutdown`: SIGTERM to a worker whose server is gone, idle or with a job in flight; ctrl-c
//!   and SIGTERM to `watch`.
//! - `lost`: what the servers lose (a purged jobs stream, a deleted result) is found by `watch`
//!   and played again; a results file cut after it was finished is completed.
//! - `pause`: a worker paused (SIGSTOP) past its ack wait while another serves, then resumed;
//!   the jobs stream's leader of a three-server cluster paused mid-sweep, then resumed.
//! - `network`: a worker cut off from the servers by a partition (a network namespace of the
//!   test's own and nftables), then a lossy, slow link (`tc tbf`); the jobs stream's leader of a
//!   three-server cluster cut off from the other two.
//! - `disk`: one server of three stopped, its stream data files truncated and a bit flipped,
//!   restarted.

use std::path::{Path, PathBuf};
use std::time::Duration;

use simfleet_tests::{CoordinatorProcess, WorkerProcess};

use crate::fleet::{assert_same_records, slow_sweep, Setup};

mod disk;
mod lost;
mod network;
mod pause;
mod shutdown;

/// Generous: the machine may be loaded.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(120);
/// The workers' ack wait and deliveries: a job held by a paused or cut-off worker comes back in
/// two seconds, and `watch` takes a job with no trace for lost after 2 × 2 + 5 s.
pub(crate) const WORKER_ENV: [(&str, &str); 2] =
    [("SIMFLEET_WORKER__ACK_WAIT_SECONDS", "2"), ("SIMFLEET_WORKER__MAX_DELIVER", "2")];

/// A sweep of `jobs` jobs of about 100 ms each, and where its watch writes.
pub(crate) fn sweep(name: &str, jobs: u64) -> (Setup, PathBuf) {
    let setup = Setup::new(slow_sweep(name, jobs, Duration::from_millis(100)));
    let out = setup.path("fleet.jsonl");
    (setup, out)
}

/// A worker process on `url` with [`WORKER_ENV`].
pub(crate) fn worker(url: &str) -> WorkerProcess {
    WorkerProcess::spawn(&["--nats-url", url, "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"], &WORKER_ENV)
}

/// `coordinator ARGS… --nats-url URL` in the background.
pub(crate) fn coordinator(args: &[&str], url: &str) -> CoordinatorProcess {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--nats-url", url]);
    CoordinatorProcess::spawn(&all, &[])
}

/// `coordinator submit SWEEP --watch --out OUT --quiet`.
pub(crate) fn submit_watch(url: &str, setup: &Setup, out: &Path) -> CoordinatorProcess {
    let sweep = setup.path("sweep.toml");
    coordinator(&["submit", sweep.to_str().unwrap(), "--watch", "--out", out.to_str().unwrap(), "--quiet"], url)
}

/// Waits until the server has given one of the sweep's jobs again (its first holder went quiet
/// past its ack wait).
pub(crate) async fn wait_for_a_redelivery(js: &async_nats::jetstream::Context, setup: &Setup) {
    use simfleet::nats::topology::{sweep_consumer, LimitsOwner, TopologyConfig};
    let jobs = js.get_stream(simfleet::names::JOBS_STREAM).await.unwrap();
    simfleet_tests::wait_until("a job redelivered", TIMEOUT, || async {
        let (mut c, _) =
            sweep_consumer(&jobs, &TopologyConfig::default(), &setup.sweep.id, LimitsOwner::Coordinator).await.ok()?;
        (c.info().await.ok()?.num_redelivered > 0).then_some(())
    })
    .await;
}

/// A JetStream context on a server other than `victim`: a client of a paused or cut-off server
/// cannot learn that the other two elected a new leader (it waits on its own server).
pub(crate) async fn admin_besides(
    cluster: &simfleet_tests::NatsCluster,
    victim: usize,
) -> async_nats::jetstream::Context {
    // A plain client, pinned there: `simfleet::nats::connect`'s watchdog would move it (to the
    // cut-off server, possibly) while the survivors elect their leaders.
    let url = cluster.node_url((victim + 1) % 3);
    let client = async_nats::connect(url.as_str()).await.expect("a surviving server answers");
    async_nats::jetstream::new(client)
}

/// Waits until `out` holds the records of at least `jobs` jobs.
pub(crate) async fn wait_for_jobs(setup: &Setup, out: &Path, jobs: u64, what: impl Fn() -> String) {
    let per_job = setup.sweep.job(0).unwrap().seeds.count;
    let written = async {
        while std::fs::read_to_string(out).map_or(0, |t| t.lines().count() as u64) < jobs * per_job {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    if tokio::time::timeout(TIMEOUT, written).await.is_err() {
        panic!("no records of {jobs} jobs after {TIMEOUT:?}\n{}", what());
    }
}

/// Waits for a `submit --watch` or `watch` to exit 0, then compares the records with the
/// embedded run's; returns its stdout.
pub(crate) async fn finish(
    mut watch: CoordinatorProcess,
    setup: &Setup,
    out: &Path,
    what: impl Fn() -> String,
) -> String {
    let status = watch.wait_exit(TIMEOUT).await;
    assert!(status.success(), "{status}: {}\n{}", watch.stderr().join("\n"), what());
    assert_same_records(setup, out).await;
    watch.stdout()
}
