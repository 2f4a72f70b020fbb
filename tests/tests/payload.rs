//! `coordinator submit` against a nats-server with the default 1 MB `max_payload`: a sweep whose
//! records-mode results would be over it (trolley `trio_3p` at its default 2,777 episodes per
//! job, ≈ 1.9 MB) is refused before anything is published, naming the cell and the episodes per
//! job that would fit; with that many, a real worker plays and publishes every job.

use std::time::Duration;

use simfleet_tests::results::jobs_in_stream;
use simfleet_tests::{connect, CoordinatorProcess, NatsServer, WorkerProcess};

use crate::fleet::{assert_same_records, Setup};

const TIMEOUT: Duration = Duration::from_secs(180);

/// Two jobs of trolley `trio_3p` (three persuadable seats), `per_job` episodes each when given,
/// else the game's default; and a Bucket Brigade cell whose results fit.
fn sweep(per_job: Option<u64>) -> String {
    let (seeds, per_job) = match per_job {
        Some(n) => (2 * n, format!("episodes_per_job = {n}\n")),
        None => (2 * 2777, String::new()),
    };
    format!(
        "name = \"payload\"\nseeds = {{ start = 0, count = {seeds} }}\n\n\
         [[cells]]\ngame = \"trolley\"\nscenarios = [\"trio_3p\"]\n{per_job}\
         [cells.policy_sets]\npersuadables = [\"persuadable\", \"persuadable\", \"persuadable\"]\n\n\
         [[cells]]\ngame = \"bucket_brigade\"\nscenarios = [\"default\"]\nepisodes_per_job = 1000\n\
         [cells.policy_sets]\nrandom = [\"random\", \"random\", \"random\", \"random\"]\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_whose_results_would_not_fit_is_refused_before_publishing() {
    let server = NatsServer::start();
    let url = server.client_url();
    let (_client, js) = connect(&url).await;

    let too_big = Setup::new(sweep(None));
    let file = too_big.path("sweep.toml");
    let mut submit = CoordinatorProcess::spawn(&["submit", file.to_str().unwrap(), "--quiet", "--nats-url", &url], &[]);
    let status = submit.wait_exit(TIMEOUT).await;
    let stderr = submit.stderr().join("\n");
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("max_payload of 1048576 bytes"), "{stderr}");
    assert!(stderr.contains("cell 1 (trolley trio_3p × persuadables): 2777 episodes per job"), "{stderr}");
    assert!(!stderr.contains("cell 2"), "the Bucket Brigade cell fits: {stderr}");
    assert!(stderr.contains("Nothing was published."), "{stderr}");
    assert_eq!(jobs_in_stream(&js).await, 0, "a refused sweep publishes no job");

    // What the refusal suggests, through a real worker: every job played and published.
    let fitting: u64 = stderr
        .split("episodes_per_job = ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the refusal names the episodes per job that fit: {stderr}"));
    assert!((1000..2777).contains(&fitting), "{fitting} episodes of ≈ 690 bytes in 1 MB");
    let fits = Setup::new(sweep(Some(fitting)));
    let _worker = WorkerProcess::spawn(&["--nats-url", &url, "--metrics-listen", "127.0.0.1:0"], &[]);
    let (file, out) = (fits.path("sweep.toml"), fits.path("fleet.jsonl"));
    let args = ["submit", file.to_str().unwrap(), "--watch", "--out", out.to_str().unwrap(), "--quiet"];
    let mut run = CoordinatorProcess::spawn(&[&args[..], &["--nats-url", &url]].concat(), &[]);
    let status = run.wait_exit(TIMEOUT).await;
    assert_eq!(status.code(), Some(0), "no job failed: {}\n{}", run.stdout(), run.stderr().join("\n"));
    assert_same_records(&fits, &out).await;
}
