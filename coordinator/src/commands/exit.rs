//! How the binary ends when things go wrong: the error's message, each cause once, and a quiet
//! exit when whoever reads stdout has gone (`coordinator status | head`).

use std::io::ErrorKind;

/// The exit code when stdout was closed under us: success, as `head` asked for no more (the
/// convention of ripgrep and others; a shell reports the pipeline's status by its last command
/// anyway).
pub const CLOSED_STDOUT: u8 = 0;

/// `error`'s chain joined with `: `, leaving out a cause whose text the message before it holds
/// already (an error that prints its source, as `cannot open f: No such file (os error 2)`
/// does, would otherwise name the OS error twice).
pub fn message(error: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// Whether `error` comes from writing to a closed pipe.
pub fn is_closed_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == ErrorKind::BrokenPipe))
}

/// Makes a write to a closed stdout end the process quietly (exit [`CLOSED_STDOUT`]) rather
/// than panic: Rust ignores SIGPIPE, so `print!` to a pipe whose reader has gone panics with
/// "failed printing to stdout: Broken pipe". Every other panic goes to the default hook.
pub fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let text = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if text.starts_with("failed printing to stdout") && text.contains("Broken pipe") {
            std::process::exit(i32::from(CLOSED_STDOUT));
        }
        default(info);
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_the_message_holds_is_left_out() {
        let io = std::io::Error::new(ErrorKind::NotFound, "No such file or directory (os error 2)");
        #[derive(Debug, thiserror::Error)]
        #[error("cannot open a.csv: {0}")]
        struct Open(#[source] std::io::Error);
        let e = anyhow::Error::new(Open(io)).context("summary");
        assert_eq!(message(&e), "summary: cannot open a.csv: No such file or directory (os error 2)");
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(message(&plain), "outer: inner");
    }

    #[test]
    fn a_closed_pipe_is_recognised_through_context() {
        let e = anyhow::Error::new(std::io::Error::from(ErrorKind::BrokenPipe)).context("writing the table");
        assert!(is_closed_pipe(&e));
        assert!(!is_closed_pipe(&anyhow::anyhow!("Broken pipe")));
    }
}
