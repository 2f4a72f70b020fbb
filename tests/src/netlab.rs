//! Network faults made for real: a network namespace of the test's own, joined to this one by a
//! veth pair, where a worker runs (`ip netns exec`), and a relay on this side that carries its
//! connections to a nats-server on loopback. nftables rules inside the namespace cut it off
//! (a partition: packets dropped, connections left hanging, as a switch failure does) or drop a
//! share of its packets; `tc tbf` makes its link slow. (This kernel has no `netem`: loss is
//! nftables' `numgen`, delay is the token bucket's queue.)
//!
//! Needs root, `ip` (iproute2), `nft` (nftables) and `tc`; [`Netlab::create`] says what is
//! missing so the test can say it is skipped. Everything is removed on drop: deleting the
//! namespace deletes the veth pair, its rules and its queue.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use tokio::net::{TcpListener, TcpStream};

/// Namespaces made by this process so far (each gets its own /30 and interface names).
static MADE: AtomicU32 = AtomicU32::new(0);

/// A namespace joined to this one by a veth pair.
pub struct Netlab {
    name: String,
    inside: String,
    /// This side's address on the pair (what the namespace reaches).
    pub host_addr: String,
}

fn run(args: &[&str], stdin: Option<&str>) -> Result<(), String> {
    let mut cmd = Command::new(args[0]);
    cmd.args(&args[1..]).stdout(Stdio::null()).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = cmd.spawn().map_err(|e| format!("cannot run {}: {e}", args[0]))?;
    if let Some(text) = stdin {
        use std::io::Write as _;
        child.stdin.take().expect("piped").write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

impl Netlab {
    /// A fresh namespace `sf<pid>-<n>` with `lo` up and a veth pair to this namespace; `Err`
    /// says why it cannot be made here (not root, no iproute2 or nftables).
    pub fn create() -> Result<Netlab, String> {
        for tool in ["ip", "nft", "tc"] {
            if Command::new(tool).arg("-V").stdout(Stdio::null()).stderr(Stdio::null()).status().is_err() {
                return Err(format!("`{tool}` is not installed (scripts/test installs iproute2 and nftables)"));
            }
        }
        let n = MADE.fetch_add(1, Ordering::SeqCst);
        let pid = std::process::id() % 100_000;
        let name = format!("sf{pid}-{n}");
        let (outside, inside) = (format!("sfh{pid}x{n}"), format!("sfn{pid}x{n}"));
        // 10.231.0.0/16, one /30 per namespace of this process.
        let (a, b) = (((n * 4) >> 8) & 0xff, (n * 4) & 0xff);
        let host_addr = format!("10.231.{a}.{}", b + 1);
        let ns_addr = format!("10.231.{a}.{}", b + 2);
        run(&["ip", "netns", "add", &name], None).map_err(|e| format!("cannot make a network namespace: {e}"))?;
        let lab = Netlab { name: name.clone(), inside: inside.clone(), host_addr: host_addr.clone() };
        let ns = |args: &[&str]| -> Result<(), String> {
            let mut all = vec!["ip", "netns", "exec", name.as_str()];
            all.extend_from_slice(args);
            run(&all, None)
        };
        run(&["ip", "link", "add", &outside, "type", "veth", "peer", "name", &inside], None)?;
        run(&["ip", "link", "set", &inside, "netns", &name], None)?;
        run(&["ip", "addr", "add", &format!("{host_addr}/30"), "dev", &outside], None)?;
        run(&["ip", "link", "set", &outside, "up"], None)?;
        ns(&["ip", "addr", "add", &format!("{ns_addr}/30"), "dev", &inside])?;
        ns(&["ip", "link", "set", &inside, "up"])?;
        ns(&["ip", "link", "set", "lo", "up"])?;
        Ok(lab)
    }

    /// The namespace's name (for `ip netns exec`).
    pub fn name(&self) -> &str {
        &self.name
    }

    fn nft(&self, script: &str) -> Result<(), String> {
        run(&["ip", "netns", "exec", &self.name, "nft", "-f", "-"], Some(script))
    }

    /// Replaces the namespace's filter with `rule` on every packet in and out (but `lo`'s).
    fn filter(&self, rule: &str) {
        let _ = self.nft("delete table inet sflab\n");
        let script = format!(
            "table inet sflab {{\n chain i {{\n  type filter hook input priority 0; policy accept;\n  iifname \"lo\" accept\n  {rule}\n }}\n \
             chain o {{\n  type filter hook output priority 0; policy accept;\n  oifname \"lo\" accept\n  {rule}\n }}\n}}\n"
        );
        self.nft(&script).expect("nft rules");
    }

    /// Cuts the namespace off: every packet in or out is dropped, connections hang.
    pub fn partition(&self) {
        self.filter("drop");
    }

    /// Drops `percent` % of the packets in and out at random.
    pub fn lossy(&self, percent: u32) {
        self.filter(&format!("numgen random mod 100 < {percent} drop"));
    }

    /// Removes the packet filter.
    pub fn heal(&self) {
        let _ = self.nft("delete table inet sflab\n");
    }

    /// Makes the namespace's side of the link slow: `rate` (tc units, e.g. `2mbit`), packets
    /// queued up to `latency` (e.g. `300ms`) before they are dropped.
    pub fn slow(&self, rate: &str, latency: &str) {
        run(
            &[
                "ip",
                "netns",
                "exec",
                &self.name,
                "tc",
                "qdisc",
                "replace",
                "dev",
                &self.inside,
                "root",
                "tbf",
                "rate",
                rate,
                "burst",
                "32kbit",
                "latency",
                latency,
            ],
            None,
        )
        .expect("tc tbf");
    }

    /// A relay on this side of the pair carrying connections to `target` (e.g. a nats-server on
    /// loopback); returns the URL the namespace connects to.
    pub async fn relay(&self, target: std::net::SocketAddr) -> String {
        let listener = TcpListener::bind((self.host_addr.as_str(), 0)).await.expect("bind the relay");
        let addr = listener.local_addr().expect("the relay's address");
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        format!("nats://{addr}")
    }
}

impl Drop for Netlab {
    fn drop(&mut self) {
        // The veth pair, the rules and the queue go with the namespace.
        let _ = run(&["ip", "netns", "del", &self.name], None);
    }
}

/// One process cut off from some of its peers on loopback: the process is moved into a cgroup
/// (v2) of the test's own, and nftables drops its packets to and from the given ports (e.g. a
/// nats-server's cluster routes: `own` its route port, `peers` the others'), whichever side
/// opened the connection. Undone on drop (rules deleted, the process moved back).
pub struct ProcessCut {
    pid: u32,
    mount: std::path::PathBuf,
    cgroup: std::path::PathBuf,
    table: String,
}

impl ProcessCut {
    /// Cuts process `pid` off on `own` (ports it listens on) and `peers` (ports it connects
    /// to); `Err` says why it cannot be done here (no cgroup v2, not root, no nftables).
    pub fn create(pid: u32, own: &[u16], peers: &[u16]) -> Result<ProcessCut, String> {
        let mounts = std::fs::read_to_string("/proc/mounts").map_err(|e| e.to_string())?;
        let mount = mounts
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f.len() > 2 && f[2] == "cgroup2").then(|| std::path::PathBuf::from(f[1]))
            })
            .next()
            .ok_or("no cgroup v2 hierarchy is mounted")?;
        // nftables names a cgroup by its path under /sys/fs/cgroup.
        let under = mount
            .strip_prefix("/sys/fs/cgroup")
            .map_err(|_| format!("cgroup v2 is mounted at {}, not under /sys/fs/cgroup", mount.display()))?
            .to_path_buf();
        let n = MADE.fetch_add(1, Ordering::SeqCst);
        let name = format!("sfcut{}-{n}", std::process::id());
        let cgroup = mount.join(&name);
        std::fs::create_dir(&cgroup).map_err(|e| format!("cannot make cgroup {}: {e}", cgroup.display()))?;
        let cut = ProcessCut { pid, mount, cgroup, table: name.replace('-', "_") };
        std::fs::write(cut.cgroup.join("cgroup.procs"), pid.to_string()).map_err(|e| e.to_string())?;
        let path = under.join(&name);
        let set = |ports: &[u16]| ports.iter().map(u16::to_string).collect::<Vec<_>>().join(", ");
        // A socket keeps the cgroup it was made in: connections the process dialed before the
        // move (routes to the peers it opened itself) are not matched by the cgroup rule, so
        // they are cut by their exact ports; without this the cut is one-sided, depending on
        // which server dialed which when the cluster formed.
        let dialed = established(pid, peers)?;
        let dialed = match dialed.is_empty() {
            true => String::new(),
            false => {
                let pairs = dialed.iter().map(|(l, p)| format!("{l} . {p}")).collect::<Vec<_>>().join(", ");
                let back = dialed.iter().map(|(l, p)| format!("{p} . {l}")).collect::<Vec<_>>().join(", ");
                format!("tcp sport . tcp dport {{ {pairs} }} drop\n  tcp sport . tcp dport {{ {back} }} drop\n  ")
            }
        };
        let (own, peers) = (set(own), set(peers));
        // Level 1: a child of the hierarchy's root, wherever that is mounted.
        let of = format!("socket cgroupv2 level 1 {:?}", path.display().to_string());
        let script = format!(
            "table inet {t} {{\n chain o {{\n  type filter hook output priority 0; policy accept;\n  \
             {dialed}{of} tcp dport {{ {peers} }} drop\n  {of} tcp sport {{ {own} }} drop\n  tcp dport {{ {own} }} drop\n }}\n \
             chain i {{\n  type filter hook input priority 0; policy accept;\n  \
             {dialed}{of} tcp sport {{ {peers} }} drop\n  tcp sport {{ {own} }} drop\n }}\n}}\n",
            t = cut.table
        );
        run(&["nft", "-f", "-"], Some(&script))?;
        Ok(cut)
    }
}

/// The established TCP connections of process `pid` to one of `ports` (on loopback), as (its
/// local port, the remote port), read from `ss`.
fn established(pid: u32, ports: &[u16]) -> Result<Vec<(u16, u16)>, String> {
    let out = std::process::Command::new("ss")
        .args(["-tnpH", "state", "established"])
        .output()
        .map_err(|e| format!("cannot run ss: {e}"))?;
    let owner = format!("pid={pid},");
    let port = |addr: &str| addr.rsplit(':').next().and_then(|p| p.parse::<u16>().ok());
    let mut found = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.contains(&owner)) {
        let f: Vec<&str> = line.split_whitespace().collect();
        // Recv-Q Send-Q Local Peer Process
        if let (Some(local), Some(remote)) = (f.get(2).and_then(|a| port(a)), f.get(3).and_then(|a| port(a))) {
            if ports.contains(&remote) {
                found.push((local, remote));
            }
        }
    }
    Ok(found)
}

impl Drop for ProcessCut {
    fn drop(&mut self) {
        let _ = run(&["nft", "delete", "table", "inet", &self.table], None);
        let _ = std::fs::write(self.mount.join("cgroup.procs"), self.pid.to_string());
        let _ = std::fs::remove_dir(&self.cgroup);
    }
}
