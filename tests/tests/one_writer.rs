//! One writer per results file, through the `coordinator` binary, on every format `watch` can
//! resume (JSON Lines, CSV, MessagePack): a second `watch` or `results` on a file another
//! process writes fails at once naming it, and the lock goes with a killed process; a file whose
//! last record was cut mid-write resumes and says what it cut; a row broken mid-file is refused
//! with the file and the row, and the file is left as it was.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use coordinator::fleet::{self, Fleet, FleetSettings};
use coordinator::records::for_each_row;
use indicatif::ProgressBar;
use simfleet_tests::{test_settings, wait_until, CoordinatorProcess, NatsServer, RunningWorker};

use crate::fleet::{slow_sweep, Setup};

const TIMEOUT: Duration = Duration::from_secs(120);
/// How soon a refused second writer must have exited: at once, not after waiting for the lock.
const AT_ONCE: Duration = Duration::from_secs(20);
const RESUMABLE: [&str; 3] = ["jsonl", "csv", "msgpack"];

/// Runs `coordinator <args>` to the end within `timeout`; its exit code and stderr.
async fn coordinator(args: &[&str], timeout: Duration) -> (Option<i32>, String) {
    let mut c = CoordinatorProcess::spawn(args, &[]);
    let status = c.wait_exit(timeout).await;
    (status.code(), c.stderr().join("\n"))
}

/// Every row of a results file, as text, sorted: what two files of one sweep must share.
fn rows(path: &Path) -> Vec<String> {
    let mut rows = Vec::new();
    let cut = for_each_row(path, |_, row| rows.push(format!("{row:?}"))).unwrap();
    assert_eq!(cut, None, "{} ends with a partial row", path.display());
    rows.sort();
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_writer_of_a_results_file_fails_at_once_naming_it() {
    let server = NatsServer::start();
    let url = server.client_url();
    // A sweep nobody plays: its watch runs until it is killed.
    let setup = Setup::new(slow_sweep("held", 2, Duration::from_millis(10)));
    let f = Fleet::connect(&FleetSettings::new(&url)).await.unwrap();
    fleet::submit::submit(&f, &setup.sweep, &setup.text, &ProgressBar::hidden()).await.unwrap();
    let id = setup.sweep.id.as_str();
    for format in RESUMABLE {
        let out = setup.path(&format!("held.{format}"));
        let out_arg = out.to_str().unwrap();
        let mut first = CoordinatorProcess::spawn(&["watch", id, "--out", out_arg, "--quiet", "--nats-url", &url], &[]);
        // The file appears once the lock is held.
        wait_until("the first watch to lock its file", TIMEOUT, || async { out.exists().then_some(()) }).await;
        for command in ["watch", "results"] {
            let (code, stderr) =
                coordinator(&[command, id, "--out", out_arg, "--quiet", "--nats-url", &url], AT_ONCE).await;
            assert_eq!(code, Some(2), "a second {command} on {format}: {stderr}");
            assert!(stderr.contains(out_arg) && stderr.contains("another process"), "{command}: {stderr}");
        }
        assert!(!first.has_exited(), "the first watch still runs");
        // A killed writer's lock goes with it: `results` can write the file now.
        first.kill();
        first.wait_exit(TIMEOUT).await;
        let (code, stderr) =
            coordinator(&["results", id, "--out", out_arg, "--quiet", "--nats-url", &url], TIMEOUT).await;
        assert_eq!(code, Some(0), "{format}: {stderr}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_last_record_resumes_and_other_corruption_is_refused_with_file_and_row() {
    let server = NatsServer::start();
    let url = server.client_url();
    let setup = Setup::new(slow_sweep("cut", 4, Duration::from_millis(20)));
    let f = Fleet::connect(&FleetSettings::new(&url)).await.unwrap();
    let worker = RunningWorker::start(test_settings(&url)).await;
    fleet::submit::submit(&f, &setup.sweep, &setup.text, &ProgressBar::hidden()).await.unwrap();
    let full_jsonl = setup.path("full.jsonl");
    let report = fleet::watch::watch(&f, &setup.sweep.id, &full_jsonl, false).await.unwrap();
    assert_eq!(report.jobs_done, 4);
    worker.stop().await.unwrap();
    let id = setup.sweep.id.as_str();
    let want = rows(&full_jsonl);
    for format in RESUMABLE {
        let full = setup.path(&format!("full.{format}"));
        if format != "jsonl" {
            fleet::results::export(&f, id, &full, false).await.unwrap();
        }
        let bytes = std::fs::read(&full).unwrap();
        // The last record cut mid-write: the next watch cuts the rest of it and writes it again.
        let cut = setup.path(&format!("cut.{format}"));
        std::fs::write(&cut, &bytes[..bytes.len() - 5]).unwrap();
        let cut_arg = cut.to_str().unwrap();
        let (code, stderr) =
            coordinator(&["watch", id, "--out", cut_arg, "--quiet", "--nats-url", &url], TIMEOUT).await;
        assert_eq!(code, Some(0), "{format}: {stderr}");
        assert!(stderr.contains(cut_arg) && stderr.contains("a last record cut mid-write"), "{format}: {stderr}");
        assert_eq!(rows(&cut), want, "{format}: the resumed file holds every record once");
        // A row broken mid-file is not a cut write: refused, naming file and row, file untouched.
        let broken = broken_copy(&full, &setup.path(&format!("broken.{format}")));
        let before = std::fs::read(&broken.0).unwrap();
        let broken_arg = broken.0.to_str().unwrap();
        let (code, stderr) =
            coordinator(&["watch", id, "--out", broken_arg, "--quiet", "--nats-url", &url], TIMEOUT).await;
        assert_eq!(code, Some(2), "{format}: {stderr}");
        let row = format!("row {} does not parse", broken.1);
        assert!(stderr.contains(broken_arg) && stderr.contains(&row), "{format}: wanted {row:?} in {stderr}");
        assert_eq!(std::fs::read(&broken.0).unwrap(), before, "{format}: the refused file was changed");
    }
}

/// A copy of `full` at `to` with a foreign record inserted before its middle row; the copy and
/// the 1-based row number a reader stops at.
fn broken_copy(full: &Path, to: &Path) -> (PathBuf, u64) {
    let mut offsets = Vec::new();
    for_each_row(full, |offset, _| offsets.push(offset)).unwrap();
    let middle = offsets.len() / 2;
    let at = offsets[middle] as usize;
    let bytes = std::fs::read(full).unwrap();
    let garbage: &[u8] = if to.extension().is_some_and(|e| e == "msgpack") { b"\xc1" } else { b"{not a row\n" };
    let mut out = std::fs::File::create(to).unwrap();
    out.write_all(&bytes[..at]).unwrap();
    out.write_all(garbage).unwrap();
    out.write_all(&bytes[at..]).unwrap();
    // Rows count from 1 (a CSV file's header is not a row).
    (to.to_path_buf(), middle as u64 + 1)
}
