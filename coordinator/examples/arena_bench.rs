//! Throughput of the trolley arena on loopback: starts the arena in-process, then `--clients`
//! threads, each one agent with its own keep-alive connection, play full games through the
//! HTTP API only (poll open-actions, argue, decide), `--agents` to a game, `--games-each` games
//! one after another. Prints requests per second over the timed part (setup excluded).
//!
//! ```text
//! cargo run --release -p simfleet-coordinator --example arena_bench -- --clients 50
//! ```

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context};
use clap::Parser;
use coordinator::arena::{self, ArenaConfig, RateLimits};
use serde_json::{json, Value};

/// Arena throughput on loopback.
#[derive(Parser)]
struct Args {
    /// Concurrent clients, each one agent (a multiple of --agents).
    #[arg(long, default_value_t = 50)]
    clients: usize,
    /// Agents per game (3..=16).
    #[arg(long, default_value_t = 5)]
    agents: usize,
    /// Games each client plays, one after another (20 keeps the default run over a second).
    #[arg(long, default_value_t = 20)]
    games_each: usize,
    /// Server worker threads [default: one per core].
    #[arg(long)]
    server_threads: Option<usize>,
}

/// One agent's seat in one game.
struct Seat {
    game: String,
    agent_id: String,
    token: String,
}

/// A blocking client with its own connection pool.
struct Client {
    agent: ureq::Agent,
    base: String,
}

impl Client {
    fn new(base: &str) -> Client {
        Client {
            agent: ureq::Agent::config_builder().http_status_as_error(false).build().new_agent(),
            base: base.into(),
        }
    }

    /// Sends a request; fails on anything but `expect`.
    fn call(&self, path: &str, body: Option<(&Value, Option<&str>)>, expect: u16) -> anyhow::Result<Value> {
        let url = format!("{}{path}", self.base);
        let response = match body {
            None => self.agent.get(&url).call(),
            Some((body, token)) => {
                let mut req = self.agent.post(&url);
                if let Some(t) = token {
                    req = req.header("authorization", &format!("Bearer {t}"));
                }
                req.send_json(body)
            }
        }
        .with_context(|| format!("request {path}"))?;
        let status = response.status().as_u16();
        let value: Value = response.into_body().read_json().with_context(|| format!("answer of {path}"))?;
        ensure!(status == expect, "{path}: {status} {value}");
        Ok(value)
    }
}

/// Requests and actions one client made.
#[derive(Default)]
struct Count {
    requests: u64,
    actions: u64,
}

/// Plays `seats`' games one after another, as one agent.
fn play(base: &str, seats: &[Seat], start: &Barrier) -> anyhow::Result<Count> {
    let client = Client::new(base);
    client.call("/health", None, 200)?;
    start.wait();
    let mut count = Count::default();
    for seat in seats {
        let open_path = format!("/api/games/{}/open-actions?agent_id={}", seat.game, seat.agent_id);
        loop {
            let open = client.call(&open_path, None, 200)?;
            count.requests += 1;
            if open["game_status"] == "game_completed" {
                break;
            }
            let (round, number) = (open["round_id"].as_str().unwrap_or(""), open["round_number"].as_u64().unwrap_or(0));
            let action = open["allowed_actions"][0].as_str();
            let (what, body, status) = match action {
                Some("argue") => {
                    ("arguments", json!({ "agent_id": seat.agent_id, "text": "Pull the lever: count us." }), 201)
                }
                Some("decide") => {
                    let decision = if number % 2 == 0 { "save_minority" } else { "save_majority" };
                    ("decision", json!({ "agent_id": seat.agent_id, "decision": decision }), 200)
                }
                // Others are still acting: poll again at once (the bench measures the server).
                _ => continue,
            };
            let path = format!("/api/games/{}/rounds/{round}/{what}", seat.game);
            client.call(&path, Some((&body, Some(&seat.token))), status)?;
            count.requests += 1;
            count.actions += 1;
        }
    }
    Ok(count)
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    ensure!((3..=16).contains(&args.agents), "--agents must be 3..=16");
    ensure!(args.clients > 0 && args.clients % args.agents == 0, "--clients must be a multiple of --agents");
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = args.server_threads {
        rt.worker_threads(n);
    }
    let rt = rt.enable_all().build()?;
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let base = format!("http://{}", listener.local_addr()?);
    let games = args.clients / args.agents * args.games_each;
    // Every simulated client is on 127.0.0.1: the per-address limits would measure themselves.
    let unlimited = RateLimits { games_per_minute: 0, registrations_per_minute: 0 };
    let config = ArenaConfig { admin_token: None, max_games: games.max(1), rate_limits: unlimited };
    rt.spawn(arena::serve(listener, config, std::future::pending()));

    // Setup, not timed: every game created, its agents registered and started.
    let setup = Client::new(&base);
    let mut seats: Vec<Vec<Seat>> = (0..args.clients).map(|_| Vec::new()).collect();
    let no_clocks =
        json!({ "phase_deadline_seconds": null, "decision_deadline_seconds": null, "round_pause_seconds": 0 });
    for g in 0..games {
        let game =
            setup.call("/api/games", Some((&no_clocks, None)), 201)?["game_id"].as_str().unwrap_or("").to_string();
        let group = g % (args.clients / args.agents);
        for a in 0..args.agents {
            let path = format!("/api/games/{game}/agents/register");
            let r = setup.call(&path, Some((&json!({ "display_name": format!("agent {a}") }), None)), 201)?;
            let (agent_id, token) =
                (r["agent_id"].as_str().unwrap_or("").into(), r["token"].as_str().unwrap_or("").into());
            seats[group * args.agents + a].push(Seat { game: game.clone(), agent_id, token });
        }
        setup.call(&format!("/api/games/{game}/start"), Some((&json!({}), None)), 200)?;
    }

    let start = Arc::new(Barrier::new(args.clients + 1));
    let base = Arc::new(base);
    let handles: Vec<_> = seats
        .into_iter()
        .map(|mine| {
            let (base, start) = (base.clone(), start.clone());
            thread::spawn(move || play(&base, &mine, &start))
        })
        .collect();
    start.wait();
    let began = Instant::now();
    let mut total = Count::default();
    for h in handles {
        let c = h.join().map_err(|_| anyhow::anyhow!("a client panicked"))??;
        total.requests += c.requests;
        total.actions += c.actions;
    }
    let elapsed = began.elapsed().max(Duration::from_millis(1)).as_secs_f64();
    println!(
        "{} clients, {} games of {} agents played to game_completed in {elapsed:.2} s",
        args.clients, games, args.agents
    );
    println!("requests: {} total, {:.0} requests/s", total.requests, total.requests as f64 / elapsed);
    println!("  of which actions (arguments, decisions): {}, {:.0}/s", total.actions, total.actions as f64 / elapsed);
    println!("  polls (open-actions): {}", total.requests - total.actions);
    Ok(())
}
