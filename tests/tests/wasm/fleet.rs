//! A sweep with `wasm:` seats on the fleet, as a new user runs it: a nats-server with default
//! settings, two worker processes that have no copy of any module (they run elsewhere and get
//! each one from the JetStream object store), `coordinator submit --watch`, one worker killed
//! mid-way. The records are `coordinator run`'s, byte for byte; the adversarial entries lose
//! their games and no worker dies; refused modules publish nothing.

use std::time::Duration;

use simfleet_tests::results::{jobs_in_stream, result_messages};
use simfleet_tests::wait::wait_until;
use simfleet_tests::worker_process::WorkerProcess;
use simfleet_tests::{coordinator_output, CoordinatorProcess, NatsServer};

use super::{agents_in, ok, rows, sweep_dir};

const SWEEP: &str = r#"name = "wasm-fleet"
seeds = { start = 0, count = 300 }
episodes_per_job = 15
[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
port = ["wasm:bb_archetype.wasm?label=ff", "free_rider", "hero", "coordinator"]
spin = ["wasm:spin.wasm?fuel=3000000", "firefighter", "hero", "coordinator"]
bomb = ["wasm:bomb.wasm", "firefighter", "hero", "coordinator"]
trap = ["wasm:trap.wasm", "firefighter", "hero", "coordinator"]
illegal = ["wasm:illegal.wasm", "firefighter", "hero", "coordinator"]
"#;

/// The peak resident memory of process `pid`, in KiB (`VmHWM`).
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wasm_seats_on_the_fleet_give_the_records_of_run_with_a_worker_killed() {
    let dir = sweep_dir(&["bb_archetype", "spin", "bomb", "trap", "illegal"], SWEEP);
    let (sweep_path, out_path) = (dir.path().join("s.toml"), dir.path().join("fleet.jsonl"));
    let run_out = dir.path().join("run.jsonl");
    let run = coordinator_output(&["run", sweep_path.to_str().unwrap(), "--out", run_out.to_str().unwrap(), "--quiet"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let run_stdout = String::from_utf8(run.stdout).unwrap();

    let server = NatsServer::start();
    let url = server.client_url();
    // A job names a module by its hash only: the workers can get it from the server alone.
    let args = ["--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
    let spawn = || WorkerProcess::spawn(&args, &[("SIMFLEET_WORKER__ACK_WAIT_SECONDS", "2")]);
    let mut victim = spawn();
    let survivor = spawn();
    let mut watch = CoordinatorProcess::spawn(
        &["submit", sweep_path.to_str().unwrap(), "--watch", "--out", out_path.to_str().unwrap(), "--nats-url", &url],
        &[("SIMFLEET_COORDINATOR__ACK_WAIT_SECONDS", "2")],
    );
    let sweep = coordinator::sweep::Sweep::load(&sweep_path).unwrap();
    let js = async_nats::jetstream::new(async_nats::connect(&url).await.unwrap());
    wait_until("a fifth of the results", Duration::from_secs(120), || {
        let js = js.clone();
        let id = sweep.id.clone();
        async move {
            (js.get_stream("SIMFLEET_RESULTS").await.is_ok() && result_messages(&js, &id).await >= 20).then_some(())
        }
    })
    .await;
    victim.kill();
    let status = watch.wait_exit(Duration::from_secs(240)).await;
    assert!(status.success(), "submit --watch: {status}\n{}", watch.stderr().join("\n"));

    let mut run = rows(&dir.path().join("run.jsonl"));
    let mut fleet = rows(&out_path);
    let key = |r: &serde_json::Value| (r["job"].as_u64(), r["seed"].as_u64());
    run.sort_by_key(key);
    fleet.sort_by_key(key);
    assert_eq!(fleet.len(), 1500, "every episode once");
    assert!(run == fleet, "the fleet's records are run's");
    // The faults table, counted as the results were collected, is run's; and so is a resumed
    // watch's, which finds every result in its file and counts them from there.
    let table = wasm_table(&run_stdout);
    assert!(table.contains("spin[0] wasm:spin: 300 episodes, 300 faulted (out_of_fuel 300)"), "{table}");
    assert_eq!(wasm_table(&watch.stdout()), table);
    let resumed = coordinator_output(&["watch", &sweep.id, "--out", out_path.to_str().unwrap(), "--nats-url", &url]);
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let resumed = String::from_utf8_lossy(&resumed.stdout);
    assert!(resumed.contains("100 found in the file at start"), "the watch resumed:\n{resumed}");
    assert_eq!(wasm_table(&resumed), table);
    // Every adversary lost its decisions to the fallback, and the survivor is alive, its memory
    // bounded (the bomb is capped at 16 MiB an instance).
    for set in ["spin", "bomb", "trap", "illegal"] {
        assert!(fleet.iter().filter(|r| r["policy_set"] == set).all(|r| r["stats"].get("outside").is_some()), "{set}");
    }
    let peak = peak_rss_kib(survivor.pid());
    eprintln!("the surviving worker's peak resident memory: {} MiB", peak / 1024);
    assert!(peak < 200 * 1024, "peak RSS {peak} KiB");
    let addr = survivor.metrics_addr(Duration::from_secs(5)).await;
    let (code, _) = simfleet_tests::scrape::http_get(addr, "/healthz").await.unwrap();
    assert_eq!(code, 200, "the survivor answers /healthz");

    // A module with a forbidden import is refused by submit: nothing is published.
    agents_in(dir.path(), &["forbidden"]);
    let refused = SWEEP.replace("wasm:illegal.wasm", "wasm:forbidden.wasm").replace("wasm-fleet", "refused");
    std::fs::write(dir.path().join("refused.toml"), refused).unwrap();
    let out = coordinator_output(&["submit", dir.path().join("refused.toml").to_str().unwrap(), "--nats-url", &url]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("forbidden.wasm") && stderr.contains("env.clock_ms"), "{stderr}");
    assert_eq!(jobs_in_stream(&js).await, 0, "nothing was published");
}

/// The table of `wasm:` entries a command printed last.
fn wasm_table(stdout: &str) -> String {
    stdout[stdout.find("wasm entries").unwrap_or_else(|| panic!("no wasm table in:\n{stdout}"))..].to_string()
}

/// Whether `submit --watch` printed its end (the wasm entries' table comes after the summary).
fn watch_done(watch: &CoordinatorProcess) -> bool {
    watch.stdout().contains("wasm entries")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wasm_seats_play_under_the_shipped_permissions() {
    let sweep = "name = \"wasm-perms\"\nseeds = { start = 0, count = 60 }\nepisodes_per_job = 20\n[[cells]]\n\
        game = \"bucket_brigade\"\nscenarios = [\"default\"]\n[cells.policy_sets]\n\
        port = [\"wasm:bb_archetype.wasm\", \"free_rider\", \"hero\", \"coordinator\"]\n\
        trap = [\"wasm:trap.wasm\", \"free_rider\", \"hero\", \"coordinator\"]\n";
    let dir = sweep_dir(&["bb_archetype", "trap"], sweep);
    ok(dir.path(), &["run", "s.toml", "--out", "run.jsonl", "--quiet"]);
    let server = NatsServer::start_with_config(simfleet_tests::config_fixture("permissions.conf"));
    let url = server.client_url();
    let admin =
        [("SIMFLEET_COORDINATOR__AUTH__USER", "admin"), ("SIMFLEET_COORDINATOR__AUTH__PASSWORD", "admin-s3cret")];
    let mut setup = CoordinatorProcess::spawn(&["setup", "--nats-url", &url], &admin);
    assert!(setup.wait_exit(Duration::from_secs(60)).await.success(), "{}", setup.stderr().join("\n"));
    let worker_env = [("SIMFLEET_WORKER__AUTH__USER", "worker"), ("SIMFLEET_WORKER__AUTH__PASSWORD", "worker-s3cret")];
    let args = ["--nats-url", url.as_str(), "--metrics-listen", "127.0.0.1:0", "--concurrency", "1"];
    let worker = WorkerProcess::spawn(&args, &worker_env);
    let out = dir.path().join("fleet.jsonl");
    let coordinator = [
        ("SIMFLEET_COORDINATOR__AUTH__USER", "coordinator"),
        ("SIMFLEET_COORDINATOR__AUTH__PASSWORD", "coordinator-s3cret"),
    ];
    let s = dir.path().join("s.toml");
    let mut watch = CoordinatorProcess::spawn(
        &["submit", s.to_str().unwrap(), "--watch", "--out", out.to_str().unwrap(), "--nats-url", &url],
        &coordinator,
    );
    let done =
        simfleet_tests::wait::wait_until_or_none(Duration::from_secs(90), || watch_done(&watch).then_some(())).await;
    let logs = worker.logs().join("\n");
    assert!(!logs.contains("refused an operation"), "the worker was refused something:\n{logs}");
    assert!(done.is_some(), "the watch did not end:\n{}\n{logs}", watch.stderr().join("\n"));
    let status = watch.wait_exit(Duration::from_secs(10)).await;
    assert!(status.success(), "{}\n{logs}", watch.stderr().join("\n"));
    let mut run = rows(&dir.path().join("run.jsonl"));
    let mut fleet = rows(&out);
    let key = |r: &serde_json::Value| (r["job"].as_u64(), r["seed"].as_u64());
    run.sort_by_key(key);
    fleet.sort_by_key(key);
    assert_eq!(fleet.len(), 120);
    assert!(run == fleet, "the fleet's records are run's");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_whose_module_is_missing_or_not_its_hash_gets_a_typed_error() {
    use simfleet::JobErrorKind;
    use simfleet_tests::jobs::{bb_job, good_job, publish_job, unique_sweep};
    use simfleet_tests::results::collect_results;
    use simfleet_tests::{connect, test_settings, RunningWorker};

    let server = NatsServer::start();
    let (_client, js) = connect(&server.client_url()).await;
    let sweep = unique_sweep("modules");
    let bytes = std::fs::read(simfleet_tests::agents::agent("illegal")).unwrap();
    // Stored under a name that is not its hash: a worker must not play it.
    let wrong = "ab".repeat(32);
    simfleet::nats::modules::put(&js, &[(wrong.as_str(), bytes.as_slice())], 1).await.unwrap();
    let seats = |hash: &str| vec![format!("wasm:{hash}"), "hero".into(), "hero".into(), "hero".into()];
    publish_job(&js, &bb_job(&sweep, 0, "default", "missing", seats(&"cd".repeat(32)), 3)).await;
    publish_job(&js, &bb_job(&sweep, 1, "default", "mislabelled", seats(&wrong), 3)).await;
    publish_job(&js, &good_job(&sweep, 2, 3)).await;
    let _worker = RunningWorker::start(test_settings(&server.client_url())).await;
    let results = collect_results(&js, &sweep, 3, Duration::from_secs(60)).await;
    let error = |i: u64| results[&i].error.clone().unwrap_or_else(|| panic!("job {i} was played"));
    assert_eq!(error(0).kind, JobErrorKind::InvalidJob);
    assert!(error(0).message.contains("not in the object store"), "{}", error(0).message);
    assert_eq!(error(1).kind, JobErrorKind::InvalidJob);
    assert!(error(1).message.contains("SHA-256"), "{}", error(1).message);
    assert_eq!(results[&2].error, None, "the worker goes on");
}
