//! Test support for simfleet's integration tests: a real nats-server per test, the real worker
//! (in-process or as a process), job publishing, result collection, waiting with timeouts.
//!
//! # Layout
//!
//! - [`nats_server`]: [`NatsServer`] (`start`, `start_with_config`, `restart`, `client_url`).
//! - [`nats_cluster`]: [`NatsCluster`], three servers clustered on loopback; stream leaders.
//! - [`agents`]: the WebAssembly test agents, built from `tests/agents/` on first use.
//! - [`coordinator_process`]: [`CoordinatorProcess`], the `coordinator` binary with its stderr.
//! - [`tls`]: a CA and certificates made at test time; [`logs`]: this process's log lines.
//! - [`running_worker`]: [`RunningWorker`], `worker::run` in a task; [`test_settings`].
//! - [`worker_process`]: [`WorkerProcess`], the `worker` binary, and both binaries' paths (built
//!   on first use).
//! - [`jobs`]: job builders and publishing; [`results`]: reading results and queue depth.
//! - [`prometheus`]: a real Prometheus scraping given targets, queried over its HTTP API.
//! - [`scrape`]: HTTP GET and Prometheus text lookups; [`wait`]: conditions with timeouts.
//! - [`faults`]: pausing processes (SIGSTOP), damaging a server's data files; [`netlab`]: a
//!   network namespace and veth pair with nftables and `tc` for partitions, loss, slow links.
//! - [`llm_server`]: a stand-in OpenAI-compatible model server over HTTP or HTTPS;
//!   [`connect_proxy`]: an HTTP `CONNECT` proxy.

pub mod agents;
pub mod connect_proxy;
pub mod coordinator_process;
pub mod faults;
pub mod jobs;
pub mod llm_server;
pub mod logs;
pub mod nats_cluster;
pub mod nats_server;
pub mod netlab;
pub mod prometheus;
pub mod results;
pub mod running_worker;
pub mod scrape;
pub mod tls;
pub mod wait;
pub mod worker_process;

pub use coordinator_process::{coordinator_output, CoordinatorProcess};
pub use nats_cluster::NatsCluster;
pub use nats_server::{config_fixture, NatsServer};
pub use running_worker::{connect, test_settings, RunningWorker};
pub use wait::{wait_until, within};
pub use worker_process::{coordinator_binary, worker_binary, WorkerProcess};
