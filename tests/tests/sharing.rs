//! One fleet, many sweeps, through the binaries on a real nats-server with two worker processes:
//! a high-priority sweep submitted behind a long low-priority one finishes within a few job
//! durations of its own play time; two sweeps of one class share the fleet equally, or 2:1 by
//! their shares; a sweep moved to a higher class mid-way takes the fleet; and every sweep's
//! records equal `coordinator run`'s, also with a worker killed and a class changed mid-way.
//!
//! Shares are read off the results stream: results are stored in the order jobs finish, so over
//! the stretch where both sweeps run, each sweep's count of results is its share of the fleet.

use std::time::{Duration, Instant};

use simfleet_tests::jobs::{episodes_for, slow_job};
use simfleet_tests::results::{collect_results, result_messages, result_order};
use simfleet_tests::{config_fixture, connect, CoordinatorProcess, NatsServer, WorkerProcess};

use crate::fleet::{assert_same_records, Setup};

const TIMEOUT: Duration = Duration::from_secs(240);

/// A sweep of `jobs` alike jobs (one cell: ten firefighters, episodes of at least 100 nights),
/// each about `job_time` long on this machine. One cell, so that a sweep's jobs cost the same
/// from its first to its last and counts of jobs measure shares of time. The tests' server
/// takes results of up to 16 MB (`large_payload.conf`): a 300 ms job of these episodes is about
/// 1.5 MB of records on a fast machine, over nats-server's default 1 MB.
fn uniform_sweep(name: &str, jobs: u64, job_time: Duration) -> String {
    let per_job = episodes_for(slow_job, job_time);
    let team = ["\"firefighter\""; 10].join(", ");
    format!(
        "name = {name:?}\nseeds = {{ start = 0, count = {} }}\nepisodes_per_job = {per_job}\n\n[[cells]]\n\
         game = \"bucket_brigade\"\nscenarios = [\"default?num_agents=10&min_nights=100\"]\n\
         [cells.policy_sets]\nfirefighters = [{team}]\n",
        per_job * jobs,
    )
}

/// A worker process playing one job at a time with one queued: three slots (playing, queued,
/// publishing), so shares of 1:1 and 2:1 are whole numbers of slots. A short ack wait, so the
/// jobs of a killed worker come back within seconds.
fn worker(url: &str) -> WorkerProcess {
    let args = ["--nats-url", url, "--metrics-listen", "127.0.0.1:0", "--concurrency", "1", "--prefetch", "1"];
    WorkerProcess::spawn(&args, &[("SIMFLEET_WORKER__ACK_WAIT_SECONDS", "2")])
}

/// `coordinator submit SWEEP --watch --out OUT [extra]`, running.
fn submit_and_watch(setup: &Setup, url: &str, extra: &[&str]) -> CoordinatorProcess {
    let (sweep, out) = (setup.path("sweep.toml"), setup.path("fleet.jsonl"));
    let mut args = vec!["submit", sweep.to_str().unwrap(), "--watch", "--out", out.to_str().unwrap(), "--quiet"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--nats-url", url]);
    CoordinatorProcess::spawn(&args, &[])
}

/// Waits for a `submit --watch` to exit 0.
async fn finished(mut c: CoordinatorProcess) {
    let status = c.wait_exit(TIMEOUT).await;
    assert_eq!(status.code(), Some(0), "{}", c.stderr().join("\n"));
}

/// Results of `a` and of `b` while both ran steadily, in the order the results were stored:
/// from the `EDGE`th result of the later starter to the `EDGE`th last of the earlier finisher.
/// The edges are transients of the workers, not of the rule: each lists the sweeps once a second
/// (one sees the second sweep before the other), and at the end a worker whose last job of the
/// first sweep is done plays only the second while the other still finishes the first.
fn overlap(order: &[String], a: &str, b: &str) -> (usize, usize) {
    const EDGE: usize = 6;
    let nth = |s: &str, n: usize| order.iter().enumerate().filter(|(_, x)| *x == s).nth(n).expect("enough results").0;
    let nth_last =
        |s: &str, n: usize| order.iter().enumerate().rev().filter(|(_, x)| *x == s).nth(n).expect("enough results").0;
    let (from, to) = (nth(a, EDGE).max(nth(b, EDGE)), nth_last(a, EDGE).min(nth_last(b, EDGE)));
    let window = &order[from..=to];
    (window.iter().filter(|x| *x == a).count(), window.iter().filter(|x| *x == b).count())
}

/// Two sweeps of 80 jobs submitted together, the first with `share_a`: their results while both
/// run, and their records checked against `coordinator run`.
async fn two_sweeps(tag: &str, share_a: &str) -> (usize, usize) {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let workers = [worker(&url), worker(&url)];
    let a = Setup::new(uniform_sweep(&format!("{tag}-a"), 80, Duration::from_millis(80)));
    let b = Setup::new(uniform_sweep(&format!("{tag}-b"), 80, Duration::from_millis(80)));
    let (run_a, run_b) = (submit_and_watch(&a, &url, &["--share", share_a]), submit_and_watch(&b, &url, &[]));
    // While both run, `status` shows each one's class, share and part of the fleet.
    let (_client, js) = connect(&url).await;
    collect_results(&js, &a.sweep.id, 10, TIMEOUT).await;
    collect_results(&js, &b.sweep.id, 10, TIMEOUT).await;
    let mut status = CoordinatorProcess::spawn(&["status", "--nats-url", &url], &[]);
    assert!(status.wait_exit(TIMEOUT).await.success(), "{:?}", status.stderr());
    let table = status.stdout();
    let mut fleet_share = 0.0;
    for (setup, share) in [(&a, share_a), (&b, "1")] {
        let row = table.lines().find(|l| l.contains(&setup.sweep.id)).unwrap_or_else(|| panic!("{table}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(&cells[2..4], ["normal", share], "{table}");
        fleet_share += cells[8].trim_end_matches('%').parse::<f64>().unwrap();
    }
    assert!((fleet_share - 100.0).abs() < 0.2, "the running sweeps hold every job in flight: {table}");
    finished(run_a).await;
    finished(run_b).await;
    let order = result_order(&js).await;
    assert_same_records(&a, &a.path("fleet.jsonl")).await;
    assert_same_records(&b, &b.path("fleet.jsonl")).await;
    drop(workers);
    let (na, nb) = overlap(&order, &a.sweep.id, &b.sweep.id);
    eprintln!("{tag}: {na}:{nb} results while both ran");
    // The workers list the sweeps once a second: the later one may start a second's jobs late.
    assert!(na + nb >= 60, "the sweeps ran side by side for {na} + {nb} jobs only: {order:?}");
    (na, nb)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sweeps_of_one_class_share_the_fleet_equally() {
    let (a, b) = two_sweeps("equal", "1").await;
    let ratio = a as f64 / b as f64;
    assert!((0.9..=1.1).contains(&ratio), "shares {a}:{b} (ratio {ratio:.3}) are not equal within 10%");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shares_of_two_to_one_give_two_to_one() {
    let (a, b) = two_sweeps("weighted", "2").await;
    let ratio = a as f64 / b as f64;
    assert!((1.8..=2.2).contains(&ratio), "shares {a}:{b} (ratio {ratio:.3}) are not 2:1 within 10%");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_high_priority_sweep_overtakes_a_long_low_priority_one() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let (_client, js) = connect(&url).await;
    let (mut first, second) = (worker(&url), worker(&url));
    let job = Duration::from_millis(300);
    let low = Setup::new(uniform_sweep("long-low", 60, job));
    let run_low = submit_and_watch(&low, &url, &["--priority", "low"]);
    // The low sweep holds the fleet; a job's duration as the fleet plays it now, from four of
    // its jobs on two workers.
    collect_results(&js, &low.sweep.id, 2, TIMEOUT).await;
    let clock = Instant::now();
    collect_results(&js, &low.sweep.id, 6, TIMEOUT).await;
    let d = clock.elapsed().as_secs_f64() * 2.0 / 4.0;
    let urgent = Setup::new(uniform_sweep("urgent", 4, job));
    let run_urgent = submit_and_watch(&urgent, &url, &["--priority", "high"]);
    // From the end of its publishing (submit says so before it watches).
    run_urgent.wait_for_stderr("published", TIMEOUT).await;
    let submitted = Instant::now();
    collect_results(&js, &urgent.sweep.id, 4, TIMEOUT).await;
    let took = submitted.elapsed();
    let low_done_then = result_messages(&js, &low.sweep.id).await;
    finished(run_urgent).await;
    // A crash while the low sweep goes on: its jobs come back after the ack wait, to a new worker.
    first.kill();
    let third = worker(&url);
    finished(run_low).await;
    // The urgent sweep's own play time is two jobs (four jobs, two workers). Its wait: the
    // jobs playing and queued when it came (two per worker), and the workers noticing it (their
    // one-second listing of the sweeps); a few jobs and seconds of slack for a loaded machine.
    // Behind the low sweep's queue it would have waited some 25 jobs more.
    let bound = Duration::from_secs_f64(2.0 * d + 6.0 * d + 4.0);
    eprintln!("urgent sweep: {took:?} from submit to its last result; a job {d:.3} s; bound {bound:?}");
    assert!(took <= bound, "the high-priority sweep took {took:?}: more than its play time and six jobs ({bound:?})");
    assert!(low_done_then <= 50, "the low sweep had {low_done_then} of 60 results when the urgent one finished");
    assert_same_records(&urgent, &urgent.path("fleet.jsonl")).await;
    assert_same_records(&low, &low.path("fleet.jsonl")).await;
    drop((second, third));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_class_change_mid_way_moves_the_fleet_and_loses_nothing() {
    let server = NatsServer::start_with_config(config_fixture("large_payload.conf"));
    let url = server.client_url();
    let (_client, js) = connect(&url).await;
    let workers = [worker(&url), worker(&url)];
    let a = Setup::new(uniform_sweep("moved-a", 30, Duration::from_millis(300)));
    let b = Setup::new(uniform_sweep("moved-b", 30, Duration::from_millis(300)));
    let (run_a, run_b) = (submit_and_watch(&a, &url, &[]), submit_and_watch(&b, &url, &[]));
    collect_results(&js, &a.sweep.id, 4, TIMEOUT).await;
    collect_results(&js, &b.sweep.id, 4, TIMEOUT).await;
    let mut priority = CoordinatorProcess::spawn(&["priority", &b.sweep.id, "high", "--nats-url", &url], &[]);
    assert!(priority.wait_exit(TIMEOUT).await.success(), "{:?}", priority.stderr());
    assert!(priority.stdout().contains("priority normal -> high"), "{}", priority.stdout());
    let changed_at = result_order(&js).await.len();
    finished(run_b).await;
    finished(run_a).await;
    let order = result_order(&js).await;
    // From the change until the moved sweep's last result, the other sweep finishes only the
    // jobs the workers held (three slots each) and those they took before their next listing of
    // the sweeps (a second: two or three jobs of 300 ms on two workers); a few more on a loaded
    // machine. Sharing equally, it would have finished as many as the moved sweep.
    let last_b = order.iter().rposition(|x| *x == b.sweep.id).unwrap();
    let after = &order[changed_at..=last_b];
    let (na, nb) =
        (after.iter().filter(|x| **x == a.sweep.id).count(), after.iter().filter(|x| **x == b.sweep.id).count());
    eprintln!("after the change: {na} of the normal sweep, {nb} of the high one");
    assert!(nb >= 18 && na <= 12, "after the change {na} of the normal sweep and {nb} of the high one: {order:?}");
    assert_same_records(&a, &a.path("fleet.jsonl")).await;
    assert_same_records(&b, &b.path("fleet.jsonl")).await;
    let mut status = CoordinatorProcess::spawn(&["status", &b.sweep.id, "--nats-url", &url], &[]);
    assert!(status.wait_exit(TIMEOUT).await.success());
    let row = status.stdout().lines().find(|l| l.contains(&b.sweep.id)).map(str::to_string).unwrap_or_default();
    assert!(row.contains("done") && row.contains("high"), "{}", status.stdout());
    drop(workers);
}
