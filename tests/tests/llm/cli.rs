//! The sweep with `llm` seats from the command line: `coordinator run` in-process, then
//! `coordinator submit --watch` on a fleet of one worker process; the same records (but for
//! latencies), carrying calls, tokens, fallbacks and the exchanges, and tokens per episode in
//! the summary.

use simfleet_tests::llm_server::{Behaviour, LlmServer};
use simfleet_tests::NatsServer;

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_seats_play_in_process_and_on_the_fleet_with_the_same_records() {
    let model = LlmServer::start(Behaviour::default());
    let dir = Dir::with_sweep(&sweep("llm-cli", &model.endpoint(), 6, ""));
    let run_out = dir.path("run.jsonl");
    let out = coordinator(&["run", &dir.sweep(), "--out", run_out.to_str().unwrap(), "--quiet"], &[]).await;
    assert_ok(&out);
    let run = records(&run_out);
    assert_eq!(run.len(), 12, "6 seeds of each of the two cells");
    let after_run = model.requests();
    assert!(after_run > 0);
    assert_eq!(total(&run, "calls"), after_run, "every call the server saw is in the records");
    for r in &run {
        let seats = llm_seats(r);
        assert_eq!(seats.len(), 1, "one llm seat: {r}");
        let s = seats[0];
        assert!(s["calls"].as_u64().unwrap() >= s["decisions"].as_u64().unwrap() && s["decisions"].as_u64() > Some(0));
        assert!(s["prompt_tokens"].as_u64() > Some(0) && s["completion_tokens"].as_u64() > Some(0), "{s}");
        assert!(s.get("fallbacks").is_some_and(|f| f.is_u64()), "{s}");
        assert_eq!(s["exchanges"].as_array().unwrap().len() as u64, s["calls"].as_u64().unwrap());
    }
    assert_eq!(total(&run, "fallbacks"), 0, "the stand-in answers what the game accepts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("tokens/episode"), "{stdout}");

    // The same sweep on the fleet: one worker process, `submit --watch`.
    let server = NatsServer::start();
    let url = server.client_url();
    let _worker = worker(&url, 8, &[]);
    let fleet_out = dir.path("fleet.jsonl");
    let out = coordinator(
        &["submit", &dir.sweep(), "--watch", "--out", fleet_out.to_str().unwrap(), "--quiet", "--nats-url", &url],
        &[],
    )
    .await;
    assert_ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("tokens/episode"));
    let mut fleet: Vec<String> = records(&fleet_out).into_iter().map(|r| without_latencies(r).to_string()).collect();
    let mut embedded: Vec<String> = run.into_iter().map(|r| without_latencies(r).to_string()).collect();
    fleet.sort();
    embedded.sort();
    assert!(fleet == embedded, "the fleet's records differ from the embedded run's");
    assert_eq!(model.requests(), 2 * after_run, "the fleet made the same calls again");

    // `summary` of the results file shows the tokens per episode too.
    let out = coordinator(&["summary", fleet_out.to_str().unwrap()], &[]).await;
    assert_ok(&out);
    let table = String::from_utf8_lossy(&out.stdout);
    let header = table.lines().next().unwrap();
    assert!(header.ends_with("tokens/episode"), "{table}");
    // The table's rows, up to the blank line before the model calls per cell.
    let rows = table.lines().skip(2).take_while(|l| !l.trim().is_empty());
    assert!(rows.clone().count() > 0, "{table}");
    assert!(rows.clone().all(|l| l.split_whitespace().last().unwrap().parse::<u64>().unwrap() > 0), "{table}");
    assert!(table.contains("model calls per cell with llm seats"), "{table}");
}
