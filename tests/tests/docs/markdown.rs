//! The fenced blocks of a Markdown file and the `<!-- doc-test: … -->` markers before them.
//!
//! A marker is an HTML comment on its own line directly above a fence (several marker lines
//! may stack); readers of the rendered page do not see it, readers of the source do. Its
//! directives, separated by `;`:
//!
//! | directive | meaning |
//! |---|---|
//! | `skip <why>: <text>` | not run; `<why>` is one of [`SKIP_REASONS`] |
//! | `seeds <n>` | the block runs on copies of `examples/*.toml` with `n` seeds per cell |
//! | `isolate <token>…` | each port number (a free port instead) or absolute path (a fresh directory instead) is replaced in the block, its `env` values and its output |
//! | `env <NAME>=<value>` | an environment variable for the block |
//! | `file <path>` | the block is not run but written to `<path>` in the work directory |
//! | `then <command>` | a shell command run after the block that must succeed (checks what the block made) |
//! | `exit <n>` | the block's last command exits with `n` (others with 0) |

use std::fmt;

/// Why a block may be skipped: what it needs that a test run does not have.
pub const SKIP_REASONS: [&str; 6] = [
    // A Kubernetes cluster (kubectl against a server, helm).
    "cluster",
    // A Docker engine.
    "docker",
    // A package or container registry (pip install, docker push).
    "registry",
    // It starts a service that runs until stopped, with nothing to check while it runs.
    "service",
    // It holds placeholders a person fills in (`<id>`, `GAME_ID`).
    "placeholder",
    // It is the test command itself.
    "recursive",
];

/// One fenced block.
#[derive(Clone, Debug)]
pub struct Block {
    /// 1-based line of the opening fence.
    pub line: usize,
    /// The info string's first word (`sh`, `console`, `toml`, …), possibly empty.
    pub lang: String,
    /// The lines between the fences.
    pub body: Vec<String>,
    /// The directives of the markers above it.
    pub directives: Vec<Directive>,
}

/// One directive of a marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Directive {
    /// Not run, for this reason.
    Skip { reason: String, text: String },
    /// Example sweeps scaled to this many seeds per cell.
    Seeds(u64),
    /// Ports and paths replaced by private ones.
    Isolate(Vec<String>),
    /// An environment variable.
    Env(String, String),
    /// Written to this path instead of run.
    File(String),
    /// A check run after the block.
    Then(String),
    /// The exit code of the block's last command.
    Exit(i32),
}

impl Block {
    /// Whether the block holds shell commands (`sh`, `bash`, `shell`, `console`).
    pub fn is_command(&self) -> bool {
        matches!(self.lang.as_str(), "sh" | "bash" | "shell" | "console")
    }

    /// The skip directive, if any.
    pub fn skip(&self) -> Option<(&str, &str)> {
        self.directives.iter().find_map(|d| match d {
            Directive::Skip { reason, text } => Some((reason.as_str(), text.as_str())),
            _ => None,
        })
    }
}

/// A marker that does not parse, or stands where no block follows.
#[derive(Debug)]
pub struct MarkerError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for MarkerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

const MARKER_OPEN: &str = "<!-- doc-test:";

/// Every fenced block of `text`, with its markers.
pub fn blocks(text: &str) -> Result<Vec<Block>, MarkerError> {
    let mut out = Vec::new();
    let mut pending: Vec<Directive> = Vec::new();
    let mut pending_line = 0;
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix(MARKER_OPEN) {
            let inner = rest.trim_end().strip_suffix("-->").ok_or_else(|| MarkerError {
                line: i + 1,
                message: "a doc-test marker must end with `-->` on the same line".into(),
            })?;
            for part in inner.split(';').map(str::trim).filter(|p| !p.is_empty()) {
                pending.push(directive(part).map_err(|message| MarkerError { line: i + 1, message })?);
            }
            pending_line = i + 1;
            continue;
        }
        let fence = fence_of(trimmed);
        if let Some((marks, info)) = fence {
            let mut body = Vec::new();
            let mut closed = false;
            for (_, inner) in lines.by_ref() {
                let t = inner.trim_start();
                if t.starts_with(&marks) && t[marks.len()..].trim().is_empty() {
                    closed = true;
                    break;
                }
                body.push(inner.to_string());
            }
            if !closed {
                return Err(MarkerError { line: i + 1, message: "a fenced block is never closed".into() });
            }
            let lang = info.split_whitespace().next().unwrap_or("").to_string();
            out.push(Block { line: i + 1, lang, body, directives: std::mem::take(&mut pending) });
            continue;
        }
        if !pending.is_empty() {
            return Err(MarkerError {
                line: pending_line,
                message: "a doc-test marker must stand directly above a fenced block".into(),
            });
        }
    }
    if !pending.is_empty() {
        return Err(MarkerError { line: pending_line, message: "a doc-test marker at the end of the file".into() });
    }
    Ok(out)
}

/// The fence characters and info string of an opening fence line.
fn fence_of(line: &str) -> Option<(String, &str)> {
    for ch in ['`', '~'] {
        let n = line.chars().take_while(|c| *c == ch).count();
        if n >= 3 {
            return Some((ch.to_string().repeat(n), line[n..].trim()));
        }
    }
    None
}

fn directive(part: &str) -> Result<Directive, String> {
    let (word, rest) = part.split_once(char::is_whitespace).map_or((part, ""), |(w, r)| (w, r.trim()));
    let need = |what: &str| if rest.is_empty() { Err(format!("`{word}` needs {what}")) } else { Ok(rest) };
    match word {
        "skip" => {
            let (reason, text) = rest.split_once(':').map_or((rest, ""), |(r, t)| (r.trim(), t.trim()));
            if !SKIP_REASONS.contains(&reason) {
                return Err(format!("skip reason {reason:?} is not one of {SKIP_REASONS:?}"));
            }
            if text.is_empty() {
                return Err("`skip <reason>: <text>` needs a text saying what the block needs".into());
            }
            Ok(Directive::Skip { reason: reason.to_string(), text: text.to_string() })
        }
        "seeds" => need("a number")?.parse().map(Directive::Seeds).map_err(|e| format!("seeds: {e}")),
        "isolate" => Ok(Directive::Isolate(need("ports or paths")?.split_whitespace().map(String::from).collect())),
        "env" => {
            let (k, v) = need("NAME=value")?.split_once('=').ok_or("`env` needs NAME=value")?;
            Ok(Directive::Env(k.trim().to_string(), v.trim().to_string()))
        }
        "file" => Ok(Directive::File(need("a path")?.to_string())),
        "then" => Ok(Directive::Then(need("a command")?.to_string())),
        "exit" => need("a number")?.parse().map(Directive::Exit).map_err(|e| format!("exit: {e}")),
        other => Err(format!("unknown doc-test directive {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_attach_to_the_next_block() {
        let text = "# t\n\n<!-- doc-test: seeds 20; then test -s a.csv -->\n```sh\nrun a\n```\n\n```toml\nx = 1\n```\n";
        let b = blocks(text).unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].line, b[0].lang.as_str(), b[0].body.as_slice()), (4, "sh", &["run a".to_string()][..]));
        assert_eq!(b[0].directives, vec![Directive::Seeds(20), Directive::Then("test -s a.csv".into())]);
        assert!(b[1].directives.is_empty() && !b[1].is_command());
    }

    #[test]
    fn bad_markers_are_errors() {
        assert!(blocks("<!-- doc-test: skip lazy: no -->\n```sh\nx\n```\n").is_err());
        assert!(blocks("<!-- doc-test: skip cluster -->\n```sh\nx\n```\n").is_err());
        assert!(blocks("<!-- doc-test: seeds 2 -->\n\ntext\n```sh\nx\n```\n").is_err());
        assert!(blocks("<!-- doc-test: frobnicate -->\n```sh\nx\n```\n").is_err());
        assert!(blocks("```sh\nnever closed\n").is_err());
    }

    #[test]
    fn fences_inside_longer_fences_are_content() {
        let b = blocks("````md\n```sh\nx\n```\n````\n").unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].body.len(), 3);
    }
}
