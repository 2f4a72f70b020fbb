//! Running one Markdown file's blocks in order, as a person pasting them at the repository root
//! would, and collecting what failed.
//!
//! Each document gets a work directory of its own: `examples/` copied there (scaled by a `seeds`
//! marker), `deploy/`, `dashboards/`, `docs/` and `scripts/` linked, and files made by one block
//! seen by the next. Each block runs in its own `bash` (shell variables and aliases do not
//! carry over; files do) with `PATH` starting with the suite's one debug build: `coordinator`,
//! `worker`, `nats-server`, and a `cargo` that maps `cargo run`/`cargo build` of the workspace
//! binaries, `--release` or not, onto that build instead of compiling (any other `cargo` command
//! fails). Background processes (`cmd &`) are stopped when their block ends.
//!
//! `sh` blocks must exit 0; their output is not shown in the doc, so it is not compared.
//! `console` blocks are `$ command` lines, each followed by the output the doc shows, which is
//! compared (see [`super::expected`]).

use std::collections::HashMap;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use simfleet_tests::nats_server::nats_server_binary;
use simfleet_tests::worker_process::{coordinator_binary, worker_binary};

use super::expected;
use super::markdown::{self, Block, Directive};

/// The longest a block may run.
const BLOCK_TIMEOUT: Duration = Duration::from_secs(300);

/// What `cargo` means inside a doc block: the suite's debug build, never a compile.
const CARGO_SHIM: &str = r#"#!/usr/bin/env bash
# The docs test's cargo: `cargo run`/`cargo build` of the workspace binaries use the debug build
# the test suite already made (release or not); anything else is not run by the docs test.
set -euo pipefail
sub=${1:-}; shift || true
pkgs=(); args=()
while [ $# -gt 0 ]; do
    case "$1" in
        -q|--quiet|--release|--locked) shift ;;
        -p|--package) pkgs+=("$2"); shift 2 ;;
        --) shift; args=("$@"); break ;;
        *) echo "docs test: cargo $sub: unsupported argument $1" >&2; exit 97 ;;
    esac
done
bin() {
    case "$1" in
        simfleet-coordinator) echo coordinator ;;
        simfleet-worker) echo worker ;;
        *) echo "docs test: no binary for package $1" >&2; exit 97 ;;
    esac
}
case "$sub" in
    build) for p in "${pkgs[@]}"; do command -v "$(bin "$p")" > /dev/null; done ;;
    run) [ "${#pkgs[@]}" -eq 1 ] || { echo "docs test: cargo run needs one -p" >&2; exit 97; }
         exec "$(bin "${pkgs[0]}")" "${args[@]}" ;;
    *) echo "docs test: cargo $sub is not run by the docs test" >&2; exit 97 ;;
esac
"#;

/// What every block's script starts with: aliases work as typed, and whatever a block started
/// in the background stops with it.
const PROLOGUE: &str = "shopt -s expand_aliases\ntrap 'kill $(jobs -p) 2>/dev/null || true; wait || true' EXIT\n";

/// Folders of the repository linked into the work directory.
const LINKED: [&str; 4] = ["deploy", "dashboards", "docs", "scripts"];

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is inside the repository").to_path_buf()
}

/// The outcome of one document.
#[derive(Debug, Default)]
pub struct DocReport {
    /// One line per block: where, what, and whether it ran.
    pub lines: Vec<String>,
    /// What failed, each with the block's line, the command and the output.
    pub failures: Vec<String>,
}

impl DocReport {
    /// Panics with every failure, after printing the per-block lines.
    pub fn assert_ok(&self, doc: &str) {
        println!("{}", self.lines.join("\n"));
        assert!(
            self.failures.is_empty(),
            "{doc}: {} failure(s)\n\n{}",
            self.failures.len(),
            self.failures.join("\n\n")
        );
    }
}

/// Runs every command block of `doc` (a path relative to the repository root).
pub fn run_doc(doc: &str) -> DocReport {
    let text = fs::read_to_string(repo().join(doc)).unwrap_or_else(|e| panic!("cannot read {doc}: {e}"));
    let mut report = DocReport::default();
    report.failures.extend(super::links::broken(doc, &text));
    let blocks = match markdown::blocks(&text) {
        Ok(b) => b,
        Err(e) => {
            report.failures.push(format!("{doc}: {e}"));
            return report;
        }
    };
    let session = Session::new();
    let mut isolated = HashMap::new();
    for block in &blocks {
        let at = format!("{doc}:{}", block.line);
        let (line, failure) = session.run(block, &mut isolated, &at);
        report.lines.push(format!("{at:<24} {:<8} {line}", block.lang));
        report.failures.extend(failure.map(|f| format!("{at}: {f}")));
    }
    report
}

/// A work directory and the environment blocks run in.
struct Session {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
}

impl Session {
    fn new() -> Session {
        let dir = tempfile::tempdir().expect("a temp dir");
        let bin = dir.path().join(".doc-test/bin");
        fs::create_dir_all(&bin).expect("the shim dir");
        let link = |from: &Path, name: &str| {
            std::os::unix::fs::symlink(from, bin.join(name)).unwrap_or_else(|e| panic!("link {name}: {e}"));
        };
        link(&coordinator_binary(), "coordinator");
        link(&worker_binary(), "worker");
        link(&nats_server_binary(), "nats-server");
        let cargo = bin.join("cargo");
        fs::write(&cargo, CARGO_SHIM).expect("the cargo shim");
        Command::new("chmod").arg("+x").arg(&cargo).status().expect("chmod");
        for name in LINKED {
            std::os::unix::fs::symlink(repo().join(name), dir.path().join(name)).expect("link a repository folder");
        }
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
        // What a person's shell would not have: the test's own settings of the binaries.
        let env = std::env::vars()
            .filter(|(k, _)| !(k == "NATS_URL" || k == "RUST_LOG" || k.starts_with("SIMFLEET_") || k == "PATH"))
            .chain([("PATH".into(), path), ("NO_COLOR".into(), "1".into()), ("TERM".into(), "dumb".into())])
            .collect();
        Session { dir, env }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs (or skips, or writes) one block: the report line, and a failure if any.
    fn run(&self, block: &Block, isolated: &mut HashMap<String, String>, at: &str) -> (String, Option<String>) {
        if let Some((reason, text)) = block.skip() {
            return (format!("skipped ({reason}: {text})"), None);
        }
        let mut seeds = None;
        let mut env = Vec::new();
        let mut then = Vec::new();
        let mut file = None;
        let mut exit = 0;
        for d in &block.directives {
            match d {
                Directive::Seeds(n) => seeds = Some(*n),
                Directive::Isolate(tokens) => {
                    for t in tokens {
                        let fresh = self.isolated_value(t, isolated.len());
                        isolated.entry(t.clone()).or_insert(fresh);
                    }
                }
                Directive::Env(k, v) => env.push((k.clone(), v.clone())),
                Directive::Then(c) => then.push(c.clone()),
                Directive::File(p) => file = Some(p.clone()),
                Directive::Exit(n) => exit = *n,
                Directive::Skip { .. } => unreachable!("handled above"),
            }
        }
        let sub = |s: &str| isolated.iter().fold(s.to_string(), |acc, (k, v)| replace_token(&acc, k, v));
        let body: Vec<String> = block.body.iter().map(|l| sub(l)).collect();
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.clone(), sub(v))).collect();
        if let Err(e) = self.write_examples(seeds) {
            return ("not run".into(), Some(e));
        }
        let mut line = String::new();
        let mut failure = None;
        if let Some(path) = file {
            let target = self.path().join(&path);
            if let Some(parent) = target.parent() {
                fs::create_dir_all(parent).expect("the file's folder");
            }
            fs::write(&target, body.join("\n") + "\n").expect("write the block's file");
            line.push_str(&format!("written to {path}"));
        } else if !block.is_command() {
            return ("not a command".into(), None);
        } else if block.lang == "console" {
            line.push_str("ran, output checked");
            failure = self.run_console(&body, &env, exit, at);
        } else {
            line.push_str("ran");
            failure = self.run_script(&body.join("\n"), &env, exit, at).err();
        }
        if let Some(n) = seeds {
            line.push_str(&format!(" (examples at {n} seeds per cell)"));
        }
        if !isolated.is_empty() && block.directives.iter().any(|d| matches!(d, Directive::Isolate(_))) {
            line.push_str(" (isolated ports and paths)");
        }
        for check in &then {
            line.push_str(&format!("; then `{check}`"));
            if failure.is_none() {
                failure = self.run_script(&sub(check), &env, 0, &format!("{at}-then")).err();
            }
        }
        (line, failure)
    }

    /// A free port for a number, a fresh directory for a path.
    fn isolated_value(&self, token: &str, n: usize) -> String {
        if token.bytes().all(|b| b.is_ascii_digit()) {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
            listener.local_addr().expect("its address").port().to_string()
        } else {
            self.path().join(format!(".doc-test/isolated/{n}")).display().to_string()
        }
    }

    /// Copies `examples/*.toml` into the work directory, with `seeds` seeds per cell if given.
    fn write_examples(&self, seeds: Option<u64>) -> Result<(), String> {
        let dir = self.path().join("examples");
        fs::create_dir_all(&dir).expect("examples dir");
        for entry in fs::read_dir(repo().join("examples")).expect("examples/") {
            let path = entry.expect("an examples entry").path();
            // Sweep files only: examples/python/ is the Python example's folder.
            if path.extension().and_then(|e| e.to_str()) != Some("toml") {
                continue;
            }
            let mut text = fs::read_to_string(&path).expect("an example");
            if let Some(n) = seeds {
                text =
                    scale_seeds(&text, n).ok_or_else(|| format!("{} has no `seeds = {{ … }}` line", path.display()))?;
            }
            fs::write(dir.join(path.file_name().expect("a file name")), text).expect("write an example");
        }
        Ok(())
    }

    /// Runs `script` with bash in the work directory; `Err` names what went wrong.
    fn run_script(&self, script: &str, env: &[(String, String)], exit: i32, tag: &str) -> Result<String, String> {
        let name = tag.replace(['/', ':', '.'], "_");
        let file = self.path().join(format!(".doc-test/{name}.sh"));
        let out = self.path().join(format!(".doc-test/{name}.out"));
        let strict = if exit == 0 { "set -eo pipefail\n" } else { "" };
        fs::write(&file, format!("{PROLOGUE}{strict}{script}\n")).expect("write the script");
        let code = self.bash(&file, &out, env)?;
        let output = fs::read_to_string(&out).unwrap_or_default();
        if code != exit {
            return Err(format!(
                "exit code {code}, expected {exit}\n--- script\n{script}\n--- output\n{}",
                tail(&output)
            ));
        }
        Ok(output)
    }

    /// Runs a console block: each `$ command` with its output captured, then compared.
    fn run_console(&self, body: &[String], env: &[(String, String)], exit: i32, at: &str) -> Option<String> {
        let commands = match console_commands(body) {
            Ok(c) => c,
            Err(e) => return Some(e),
        };
        let tag = at.replace(['/', ':', '.'], "_");
        let mut script = String::new();
        for (i, (command, _)) in commands.iter().enumerate() {
            script.push_str(&format!(
                "{{ {command}\n}} > .doc-test/{tag}.{i}.out 2>&1; echo $? > .doc-test/{tag}.{i}.rc\n"
            ));
        }
        let file = self.path().join(format!(".doc-test/{tag}.sh"));
        fs::write(&file, format!("{PROLOGUE}{script}")).expect("write the script");
        if let Err(e) = self.bash(&file, &self.path().join(format!(".doc-test/{tag}.out")), env) {
            return Some(e);
        }
        let last = commands.len().saturating_sub(1);
        for (i, (command, expected)) in commands.iter().enumerate() {
            let read = |ext: &str| fs::read_to_string(self.path().join(format!(".doc-test/{tag}.{i}.{ext}")));
            let output = read("out").unwrap_or_default();
            let code: i32 = read("rc").ok().and_then(|s| s.trim().parse().ok()).unwrap_or(-1);
            let want = if i == last { exit } else { 0 };
            if code != want {
                return Some(format!("`{command}` exited {code}, expected {want}\n--- output\n{}", tail(&output)));
            }
            if !expected.is_empty() && !expected::matches(expected, &output) {
                // A listing of every game is the one doc output a new game changes.
                let hint = if command.contains("coordinator list") {
                    " (`coordinator list` shows every game: a new game adds its lines to the doc)"
                } else {
                    ""
                };
                return Some(format!(
                    "`{command}` printed other output than the doc shows{hint}\n--- doc\n{}\n--- printed\n{}",
                    expected.join("\n"),
                    tail(&output)
                ));
            }
        }
        None
    }

    /// Runs a bash script file in its own process group, output to `out`; its exit code.
    fn bash(&self, file: &Path, out: &Path, env: &[(String, String)]) -> Result<i32, String> {
        let log = fs::File::create(out).expect("the output file");
        let mut child = Command::new("bash")
            .arg(file)
            .current_dir(self.path())
            .env_clear()
            .envs(self.env.iter().cloned())
            .envs(env.iter().cloned())
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("a second handle"))
            .stderr(log)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot run bash: {e}"))?;
        let group = format!("-{}", child.id());
        let deadline = Instant::now() + BLOCK_TIMEOUT;
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                break Some(status);
            }
            if Instant::now() > deadline {
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // Whatever is left of the group (a background process that outlived its block).
        let _ = Command::new("kill").args(["-KILL", "--", &group]).stderr(Stdio::null()).status();
        match status {
            Some(s) => Ok(s.code().unwrap_or(-1)),
            None => {
                let _ = child.wait();
                Err(format!(
                    "did not finish within {BLOCK_TIMEOUT:?}\n--- output\n{}",
                    tail(&fs::read_to_string(out).unwrap_or_default())
                ))
            }
        }
    }
}

/// The `$ command` lines of a console block (a trailing `\` continues a command on the next
/// line), each with the output lines that follow it.
fn console_commands(body: &[String]) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut lines = body.iter();
    while let Some(line) = lines.next() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            let mut command = cmd.to_string();
            while command.ends_with('\\') {
                let Some(next) = lines.next() else { break };
                command.push('\n');
                command.push_str(next);
            }
            out.push((command, Vec::new()));
        } else {
            match out.last_mut() {
                Some((_, expected)) => expected.push(line.clone()),
                None => return Err(format!("a console block must start with `$ `, not {line:?}")),
            }
        }
    }
    Ok(out)
}

/// `text` with the `count` of its `seeds = { start = …, count = … }` line set to `n`.
pub fn scale_seeds(text: &str, n: u64) -> Option<String> {
    let mut found = false;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let Some(rest) = line.strip_prefix("seeds = {") else { return line.to_string() };
            let Some(at) = rest.find("count = ") else { return line.to_string() };
            let digits = rest[at + 8..].chars().take_while(|c| c.is_ascii_digit()).count();
            found = digits > 0;
            format!("seeds = {{{}count = {n}{}", &rest[..at], &rest[at + 8 + digits..])
        })
        .collect();
    found.then(|| lines.join("\n") + "\n")
}

/// Replaces `token` in `text` where it stands alone (not inside a longer word or number).
fn replace_token(text: &str, token: &str, value: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(token) {
        let before = if at > 0 { rest[..at].chars().last() } else { out.chars().last() };
        let after = rest[at + token.len()..].chars().next();
        out.push_str(&rest[..at]);
        if word(before) || word(after) {
            out.push_str(token);
        } else {
            out.push_str(value);
        }
        rest = &rest[at + token.len()..];
    }
    out.push_str(rest);
    out
}

/// The last lines of a long output.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let skip = lines.len().saturating_sub(60);
    let mut out = if skip > 0 { format!("[{skip} lines before]\n") } else { String::new() };
    out.push_str(&lines[skip..].join("\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_scaled_on_their_line_only() {
        let text = "name = \"x\"\nseeds = { start = 0, count = 1000 }\ncount = 5\n";
        assert_eq!(scale_seeds(text, 20).unwrap(), "name = \"x\"\nseeds = { start = 0, count = 20 }\ncount = 5\n");
        assert_eq!(scale_seeds("name = \"x\"\n", 20), None);
    }

    #[test]
    fn tokens_are_replaced_where_they_stand_alone() {
        let t = "nats-server -p 4222 -sd /tmp/simfleet-nats & url nats://127.0.0.1:4222 14222 /tmp/simfleet-nats-2";
        let t = replace_token(&replace_token(t, "4222", "5000"), "/tmp/simfleet-nats", "/w/0");
        assert_eq!(t, "nats-server -p 5000 -sd /w/0 & url nats://127.0.0.1:5000 14222 /tmp/simfleet-nats-2");
    }

    #[test]
    fn console_blocks_pair_commands_with_output() {
        let body: Vec<String> = ["$ a \\", "  --b", "out 1", "$ c"].iter().map(|s| s.to_string()).collect();
        let c = console_commands(&body).unwrap();
        assert_eq!(c, vec![("a \\\n  --b".to_string(), vec!["out 1".to_string()]), ("c".to_string(), vec![])]);
        assert!(console_commands(&["out".to_string()]).is_err());
    }
}
