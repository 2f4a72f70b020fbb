//! A three-server cluster losing its quorum (two servers down) with a sweep mid-flight: the
//! watching coordinator, a coordinator submitting another sweep meanwhile, and the workers all
//! wait and say so in words a person understands; once the servers are back both sweeps
//! complete with exactly `coordinator run`'s records. Twice, with a different pair down.

use simfleet::nats::outage::WAITING;

use crate::cluster::{finish, sweep, wait_for_jobs, ClusterFleet, TIMEOUT};

/// The start of [`WAITING`], what every waiting client logs.
fn waiting() -> &'static str {
    &WAITING[..40]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn losing_quorum_makes_everyone_wait_and_say_so_then_the_sweeps_complete() {
    let mut fleet = ClusterFleet::start().await;
    for (round, down) in [(0, [0, 1]), (1, [1, 2])] {
        let (first, first_out) = sweep(&format!("quorum-{round}"), 12);
        let watching = fleet.submit(&first, &first_out);
        wait_for_jobs(&fleet, &watching, &first, &first_out, 2).await;
        for i in down {
            fleet.cluster.kill(i);
        }
        // A sweep submitted while there is no quorum waits too.
        let (second, second_out) = sweep(&format!("quorum-late-{round}"), 4);
        let submitting = fleet.submit(&second, &second_out);
        let line = submitting.wait_for_stderr(waiting(), TIMEOUT).await;
        assert!(line.contains("fewer than a majority of the NATS servers are up"), "{line}");
        watching.wait_for_stderr(waiting(), TIMEOUT).await;
        for w in &fleet.workers {
            w.wait_for_log(waiting(), TIMEOUT).await;
        }
        for i in down {
            fleet.cluster.start_again(i);
        }
        finish(watching, &first, &first_out, &fleet.cluster).await;
        finish(submitting, &second, &second_out, &fleet.cluster).await;
        fleet.wait_healthy().await;
    }
}
