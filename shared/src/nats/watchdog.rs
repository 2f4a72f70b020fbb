//! Leaving a server that is cut off from its cluster.
//!
//! A server whose cluster routes are gone (a partition between the servers) still answers its
//! clients: their connections stay up and its pongs come back, so neither the client's pings
//! nor its reconnect logic ever move them. But it has lost the JetStream cluster: once it
//! notices (about twenty seconds, when it gives up on the metadata leader) it answers every
//! JetStream API request with "JetStream system temporarily unavailable" (code 10008), and the
//! pulls, publishes and acks of a worker or `watch` connected to it go nowhere while the other
//! servers carry on. So each connection to a cluster asks its server for the account's
//! JetStream info every [`PROBE_EVERY`]; after [`FAILURES`] answers in a row that JetStream is
//! unavailable (or no answer at all), it reconnects, to a server picked at random among the
//! others it knows of (a reconnect may land on the same server: the next probes then move it
//! again). A whole cluster without quorum answers the same everywhere: the pause between
//! forced reconnects doubles up to [`LONGEST_PAUSE`], so such a fleet does not churn.

use std::time::Duration;

use async_nats::connection::State;
use async_nats::Client;

/// How often a connection asks its server whether JetStream answers.
pub const PROBE_EVERY: Duration = Duration::from_secs(2);
/// How long a probe waits for its answer.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);
/// Probes in a row that find JetStream unavailable before the client moves: more than a
/// metadata leader election in a healthy cluster lasts (it answers the same for a few seconds).
pub const FAILURES: u32 = 3;
/// The longest pause between forced reconnects while every server says JetStream is away:
/// short, because a reconnect may land on the cut-off server again and stays this long.
const LONGEST_PAUSE: Duration = Duration::from_secs(10);
/// The JetStream API error of a server that lost its cluster (or the cluster its quorum).
const UNAVAILABLE: &str = "\"err_code\":10008";

/// Whether the connected server answers for JetStream, from one probe's outcome.
fn healthy(
    answer: &Result<Result<async_nats::Message, async_nats::RequestError>, tokio::time::error::Elapsed>,
) -> bool {
    match answer {
        Ok(Ok(message)) => !String::from_utf8_lossy(&message.payload).contains(UNAVAILABLE),
        // No responder on a server of a cluster: its JetStream is gone too.
        Ok(Err(e)) => e.kind() != async_nats::RequestErrorKind::NoResponders,
        Err(_elapsed) => false,
    }
}

/// Watches `client` (named `connection`) for the rest of the process when it is connected to a
/// cluster (its server knows of others); a lone server has nowhere else to send it.
pub(crate) fn spawn(client: &Client, connection: &str, servers_given: usize) {
    if servers_given < 2 && client.server_info().connect_urls.len() < 2 {
        return;
    }
    let (client, connection) = (client.clone(), connection.to_string());
    tokio::spawn(async move {
        let mut failures = 0;
        let mut pause = PROBE_EVERY;
        loop {
            tokio::time::sleep(PROBE_EVERY).await;
            if client.connection_state() != State::Connected {
                failures = 0;
                continue;
            }
            let answer = tokio::time::timeout(PROBE_TIMEOUT, client.request("$JS.API.INFO", "".into())).await;
            if healthy(&answer) {
                failures = 0;
                pause = PROBE_EVERY;
                continue;
            }
            failures += 1;
            if failures < FAILURES {
                continue;
            }
            let server = client.server_info();
            tracing::warn!(
                connection,
                server = %server.server_name,
                "the NATS server answers but its JetStream does not (cut off from its cluster?); \
                 moving to another server"
            );
            if client.force_reconnect().await.is_err() {
                return;
            }
            failures = 0;
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(LONGEST_PAUSE);
        }
    });
}
