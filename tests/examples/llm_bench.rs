//! How many model calls one worker keeps in flight: the stand-in model server answering every
//! call after `--delay-ms` (250), a nats-server of its own, the release `worker` binary with
//! `--concurrency 2 --llm-concurrency N` (256), and a deception sweep whose four seats are all
//! `llm`. After a warm-up it measures, over `--seconds` (30): calls per second answered, the
//! calls in flight at once (peak and mean, as the server saw them) and the worker's CPU use
//! (user + system time from /proc over wall time), and prints them with the load average.
//!
//! ```sh
//! scripts/bench-llm            # builds the release binaries, then runs this
//! cargo run --release -p simfleet-tests --example llm_bench -- --llm-concurrency 256 --seconds 30
//! ```

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use coordinator::fleet::{self, Fleet, FleetSettings};
use coordinator::sweep::Sweep;
use indicatif::ProgressBar;
use simfleet_tests::llm_server::{Behaviour, LlmServer};
use simfleet_tests::{NatsServer, WorkerProcess};

struct Args {
    delay_ms: u64,
    llm_concurrency: usize,
    seconds: u64,
    warmup: u64,
}

fn args() -> Args {
    let mut a = Args { delay_ms: 250, llm_concurrency: 256, seconds: 30, warmup: 5 };
    let raw: Vec<String> = std::env::args().skip(1).collect();
    for pair in raw.chunks(2) {
        let v = || pair.get(1).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{} needs a number", pair[0]));
        match pair[0].as_str() {
            "--delay-ms" => a.delay_ms = v(),
            "--llm-concurrency" => a.llm_concurrency = v() as usize,
            "--seconds" => a.seconds = v(),
            "--warmup" => a.warmup = v(),
            other => panic!("unknown flag {other} (--delay-ms, --llm-concurrency, --seconds, --warmup)"),
        }
    }
    a
}

/// User plus system CPU seconds of process `pid` (from /proc/<pid>/stat).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("read /proc/<pid>/stat");
    let after = &stat[stat.rfind(')').expect("a comm field") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0 // USER_HZ is 100 on Linux
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let a = args();
    let model = LlmServer::start(Behaviour { delay: Duration::from_millis(a.delay_ms), ..Behaviour::default() });
    let server = NatsServer::start();
    let url = server.client_url();
    let worker = WorkerProcess::spawn(
        &[
            "--nats-url",
            &url,
            "--metrics-listen",
            "127.0.0.1:0",
            "--concurrency",
            "2",
            "--llm-concurrency",
            &a.llm_concurrency.to_string(),
        ],
        &[],
    );
    worker.wait_for_log("worker started", Duration::from_secs(60)).await;

    // Enough work for the whole measurement: every seat an llm seat, 8 episodes per job.
    let llm = format!("\"llm?model=stand-in&endpoint={}&max_retries=0\"", model.endpoint());
    let text = format!(
        "name = \"llm-bench\"\nseeds = {{ start = 0, count = 20000 }}\nepisodes_per_job = 8\n\n[[cells]]\n\
         game = \"deception\"\nscenarios = [\"quick_4p1i\"]\n[cells.policy_sets]\nall_llm = [{llm}, {llm}, {llm}, {llm}]\n"
    );
    let sweep = Sweep::parse(&text, "llm-bench.toml").expect("the bench sweep parses");
    let fleet = Fleet::connect(&FleetSettings::new(&url)).await.expect("connect");
    fleet::submit::submit(&fleet, &sweep, &text, &ProgressBar::hidden()).await.expect("submit");

    let c = model.counters();
    tokio::time::sleep(Duration::from_secs(a.warmup)).await;
    c.peak_in_flight.store(c.in_flight.load(Ordering::SeqCst), Ordering::SeqCst);
    let (calls0, cpu0, t0) = (c.requests.load(Ordering::SeqCst), cpu_seconds(worker.pid()), Instant::now());
    let mut in_flight_sum = 0u64;
    let mut samples = 0u64;
    while t0.elapsed() < Duration::from_secs(a.seconds) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        in_flight_sum += c.in_flight.load(Ordering::SeqCst);
        samples += 1;
    }
    let wall = t0.elapsed().as_secs_f64();
    let calls = c.requests.load(Ordering::SeqCst) - calls0;
    let cpu = cpu_seconds(worker.pid()) - cpu0;
    println!("llm_bench: delay {} ms, worker --concurrency 2 --llm-concurrency {}", a.delay_ms, a.llm_concurrency);
    println!("  calls/s            {:.0}", calls as f64 / wall);
    println!(
        "  in flight          peak {}, mean {:.0}",
        c.peak_in_flight.load(Ordering::SeqCst),
        in_flight_sum as f64 / samples.max(1) as f64
    );
    println!(
        "  worker CPU         {:.2} cores ({:.0}% of 2), {:.1} µs per call",
        cpu / wall,
        50.0 * cpu / wall,
        1e6 * cpu / calls.max(1) as f64
    );
    println!(
        "  answered           {} calls in {:.1} s, {} connections",
        calls,
        wall,
        c.connections.load(Ordering::SeqCst)
    );
    println!("  load average       {}", load_average());
}
