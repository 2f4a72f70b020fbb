//! The one integration test binary. Every test starts its own real nats-server (see
//! `simfleet_tests::NatsServer`); the first test that runs the `worker` or `coordinator` binary
//! builds them (`simfleet_tests::worker_process`).

// The fleet end to end: submit and watch against the embedded run, crashes, restarts, resubmits.
mod fleet;
// collect = "summary": summary tables equal the records' tables, embedded and on a fleet.
mod summaries;
// Resubmission at any delay: after the duplicate window, after a killed submit, --republish, a cancel mid-publish.
mod resubmit;
// One writer per results file; a cut last record resumes, other corruption is refused.
mod one_writer;
// Priorities and fair share between sweeps on one fleet.
mod sharing;
// Results over the server's max_payload: sent in parts, put together by `watch` (also when it
// reads one again for a cut file), up to a 14 MB result on a server with default settings.
mod payload;
// KEDA's trigger against a real server's /jsz: every sweep's backlog.
mod keda;
// The sweeps' consumers' limits: the deployment's, whoever creates them; workers set their own.
mod consumer_limits;
// Every dashboard panel against a real Prometheus scraping a real worker and coordinator.
mod dashboards;
// Bad messages on the jobs subject, cancelled sweeps, exactly one result per job.
mod worker;
// The topology: idempotent get-or-create, concurrent starts, mismatches.
mod topology;
// Credentials: wrong ones fail clearly with a non-zero exit, right ones work (user/password,
// token, nkey).
mod auth;
// TLS with a CA made at test time: right CA, wrong CA, client certificates.
mod tls;
// The shipped per-role permissions: the fleet works under them; a worker is refused the rest.
mod permissions;
// A three-server JetStream cluster: a leader killed, a rolling restart, a server down.
mod cluster;
// A three-server cluster losing its quorum: everyone waits, says so, and finishes.
mod cluster_quorum;
// SIGTERM: drain, give back, exit 0, lose nothing.
mod shutdown;
// Real faults: servers gone, losses found by watch, SIGSTOP, partitions and lossy links,
// damaged data files; shutdown bounded whatever the servers do.
mod faults;
// nats-server restarted mid-run: the worker carries on, nothing lost.
mod restart;
// /metrics, /healthz, /readyz of the worker binary.
mod metrics;
// The worker binary's configuration errors.
mod config;
// The trolley arena's HTTP server (no nats-server): full games, every error, races, deadlines.
mod arena;
// The coordinator's command line: `list`, tables in the sweep's order, closed pipes, errors,
// per-command `--help`, `summary --out --sweep`.
mod cli;
// `coordinator compare` and the report's "At a glance" section from the command line.
mod compare;
// README.md and docs/: every command block runs, shown output is checked, contracts match the code.
mod docs;
// Stopping sweeps ([stop]): each cell stops when decided, the same for any thread count.
mod stop;
// What a stopping sweep's outputs say: summary columns, compare and report decisions.
mod stop_outputs;
// Several results files and directories of shards read as one table by the analysis commands.
mod shards;
// llm seats end to end against a stand-in model server: CLI, fleet, HTTPS, proxies, failures,
// calls in flight, replays, promtool.
mod llm;

// `wasm:` seats: ports byte for byte, adversarial entries, modules through the object store.
mod wasm;
