//! What can go wrong with a job ([`JobError`], typed, on the wire), the version check, and
//! bytes that do not decode.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};

/// What went wrong with a job. Its `kind` is also the `error_kind` metric label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobErrorKind {
    /// The message is not a job at all.
    Undecodable,
    /// The job speaks another protocol version.
    UnsupportedVersion,
    /// The game id is not one this build knows.
    UnknownGame,
    /// A scenario field, policy spec or parameter is invalid.
    InvalidJob,
    /// The engine panicked (a bug; the worker survives it).
    EnginePanic,
    /// The sweep was cancelled.
    Cancelled,
    /// An outside seat's policy failed: a `python:` policy raised, gave no action within its
    /// timeout, or its host process died. The error names the seat and the class.
    PolicyError,
}

impl JobErrorKind {
    /// Every kind.
    pub const ALL: [JobErrorKind; 7] = [
        JobErrorKind::Undecodable,
        JobErrorKind::UnsupportedVersion,
        JobErrorKind::UnknownGame,
        JobErrorKind::InvalidJob,
        JobErrorKind::EnginePanic,
        JobErrorKind::Cancelled,
        JobErrorKind::PolicyError,
    ];

    /// The snake_case name (the metric label).
    pub const fn as_str(self) -> &'static str {
        match self {
            JobErrorKind::Undecodable => "undecodable",
            JobErrorKind::UnsupportedVersion => "unsupported_version",
            JobErrorKind::UnknownGame => "unknown_game",
            JobErrorKind::InvalidJob => "invalid_job",
            JobErrorKind::EnginePanic => "engine_panic",
            JobErrorKind::Cancelled => "cancelled",
            JobErrorKind::PolicyError => "policy_error",
        }
    }
}

impl fmt::Display for JobErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A typed job failure. Displayed as `invalid <field> = <value>: <reason>` when it names a field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobError {
    /// The kind.
    pub kind: JobErrorKind,
    /// The field at fault: `scenario.<field>`, `policy_set[<seat>].<param>`, `game`, ….
    pub field: Option<String>,
    /// The offending value as written.
    pub value: Option<String>,
    /// The reason, for a person.
    pub message: String,
}

impl JobError {
    /// An error of `kind` with no field.
    pub fn new(kind: JobErrorKind, message: impl Into<String>) -> JobError {
        JobError { kind, field: None, value: None, message: message.into() }
    }

    /// An `invalid_job` naming `field = value` and the reason.
    pub fn invalid(field: impl Into<String>, value: impl fmt::Display, reason: impl Into<String>) -> JobError {
        JobError {
            kind: JobErrorKind::InvalidJob,
            field: Some(field.into()),
            value: Some(value.to_string()),
            message: reason.into(),
        }
    }
}

/// Checks that a job speaks this build's [`PROTOCOL_VERSION`]; otherwise the `unsupported_version`
/// error to answer it with. The worker checks the envelope before decoding the rest, `run_job`
/// checks the job again: both call this.
pub fn check_version(version: u32) -> Result<(), JobError> {
    if (MIN_PROTOCOL_VERSION..=PROTOCOL_VERSION).contains(&version) {
        return Ok(());
    }
    Err(JobError {
        kind: JobErrorKind::UnsupportedVersion,
        field: Some("protocol_version".into()),
        value: Some(version.to_string()),
        message: format!("this worker speaks protocol versions {MIN_PROTOCOL_VERSION} to {PROTOCOL_VERSION}"),
    })
}

impl fmt::Display for JobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.field, &self.value) {
            (Some(field), Some(value)) if self.kind == JobErrorKind::PolicyError => {
                write!(f, "policy_error in {field} = {value}: {}", self.message)
            }
            (Some(field), Some(value)) => write!(f, "invalid {field} = {value}: {}", self.message),
            (Some(field), None) => write!(f, "invalid {field}: {}", self.message),
            _ => write!(f, "{}: {}", self.kind, self.message),
        }
    }
}

impl std::error::Error for JobError {}

/// Why bytes do not decode.
#[derive(Debug, thiserror::Error)]
#[error("undecodable message: {0}")]
pub struct DecodeError(#[from] rmp_serde::decode::Error);
