//! Faults done to processes and files: pausing a process (SIGSTOP, as a long GC pause or a
//! frozen container does) and resuming it, and damaging a JetStream data file of a stopped
//! server (a truncated tail, a flipped bit), as a crash or a bad disk does.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Sends `signal` (e.g. `STOP`, `CONT`) to process `pid`.
pub fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill").args([&format!("-{signal}"), &pid.to_string()]).status().expect("run kill");
    assert!(status.success(), "kill -{signal} {pid} failed");
}

/// Pauses process `pid` until [`resume`].
pub fn pause(pid: u32) {
    signal(pid, "STOP");
}

/// Resumes a paused process.
pub fn resume(pid: u32) {
    signal(pid, "CONT");
}

/// The message blocks (`*.blk`) of stream `stream` under a server's store dir, largest first.
pub fn message_blocks(store: &Path, stream: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![store.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "blk") && path.components().any(|c| c.as_os_str() == stream)
            {
                found.push(path);
            }
        }
    }
    found.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map_or(0, |m| m.len())));
    found
}

/// Cuts the last `bytes` bytes off `file`.
pub fn truncate_tail(file: &Path, bytes: u64) {
    let len = std::fs::metadata(file).expect("the file exists").len();
    let f = std::fs::OpenOptions::new().write(true).open(file).expect("open for writing");
    f.set_len(len.saturating_sub(bytes)).expect("truncate");
}

/// Flips one bit in the middle of `file`.
pub fn flip_bit(file: &Path) {
    let mut bytes = std::fs::read(file).expect("read the file");
    assert!(!bytes.is_empty(), "{} is empty", file.display());
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
    std::fs::write(file, bytes).expect("write the file back");
}
