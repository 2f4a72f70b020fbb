//! `worker::run` in-process, as `main` calls it, with a stop switch: most tests need a worker,
//! not a process.

use async_nats::jetstream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use worker::{Settings, WorkerError};

/// A worker running in this process.
#[derive(Debug)]
pub struct RunningWorker {
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), WorkerError>>,
}

/// Settings for a test worker against `url`: 2 slots, short drain, ids that say "test".
pub fn test_settings(url: &str) -> Settings {
    Settings {
        nats_url: url.to_string(),
        worker_id: "test-worker".to_string(),
        concurrency: 2,
        fetch_batch: 2,
        drain_timeout: std::time::Duration::from_secs(5),
        ..Settings::default()
    }
}

/// Connects to the test server and sets up the topology, so jobs can be published before a
/// worker runs.
pub async fn connect(url: &str) -> (async_nats::Client, jetstream::Context) {
    let client = async_nats::connect(url).await.expect("connect to the test server");
    let js = jetstream::new(client.clone());
    simfleet::nats::topology::ensure(&js, &simfleet::nats::TopologyConfig::default()).await.expect("topology");
    (client, js)
}

impl RunningWorker {
    /// Connects with `settings` and spawns [`worker::run`].
    pub async fn start(settings: Settings) -> RunningWorker {
        let client = worker::connect(&settings).await.expect("the worker connects");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(worker::run(client, settings, async {
            let _ = stopped.await;
        }));
        RunningWorker { stop: Some(stop), task }
    }

    /// Signals shutdown and waits for the drain.
    pub async fn stop(mut self) -> Result<(), WorkerError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        (&mut self.task).await.expect("the worker task does not panic")
    }
}

impl Drop for RunningWorker {
    fn drop(&mut self) {
        self.task.abort();
    }
}
