//! Errors of mutation, evaluation, case files and LLM clients.

use std::path::PathBuf;

use chat_client::ClientError;
use profile_types::{ConfidenceError, FailureKind};

/// Everything that can go wrong while mutating, evaluating or reading cases.
///
/// The three reply errors mirror upstream's classes: `JSONDecodeError` ([`Error::ReplyNotJson`]),
/// the "expected a JSON array" `ValueError` ([`Error::ReplyNotArray`]) and Pydantic's
/// `ValidationError` for the first bad element ([`Error::InvalidElement`]).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The LLM reply is not JSON (code fences, prose, an empty string...).
    #[error("LLM reply is not JSON: {message} at line {line} column {column}")]
    ReplyNotJson {
        /// 1-based line of the problem in the reply.
        line: usize,
        /// 1-based column (in characters) of the problem.
        column: usize,
        /// What the parser expected.
        message: &'static str,
    },
    /// The LLM reply is JSON but not an array.
    #[error("LLM reply is JSON but not an array: got {found}")]
    ReplyNotArray {
        /// The Python type name of what was found (`dict`, `NoneType`, `int`, `str`...).
        found: &'static str,
    },
    /// An element of the reply array is not a valid extraction. Nothing was applied.
    #[error("LLM reply element {index}{}: {problem}", key.map(|k| format!(", key `{k}`")).unwrap_or_default())]
    InvalidElement {
        /// 0-based position of the first invalid element.
        index: usize,
        /// The offending key (`path`, `value`, `confidence`, `inference`), or `None` when the
        /// element is not an object.
        key: Option<&'static str>,
        /// Why it is invalid.
        problem: String,
    },
    /// The LLM client failed; no reply to judge.
    #[error("LLM client failed: {0}")]
    Client(ClientError),
    /// A confidence outside `[-1, 1]`.
    #[error(transparent)]
    Confidence(#[from] ConfidenceError),
    /// A custom mutator failed.
    #[error("mutator failed: {0}")]
    Mutator(String),
    /// A text given to [`parse_json`](crate::parse_json) is not standard JSON.
    #[error("not JSON: {0}")]
    Json(String),
    /// A dataset line could not be read as a case.
    #[error("case line {line}: {message}")]
    Case {
        /// 1-based line in the JSONL file.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error (shown in the message, so not also chained as a source).
        cause: std::io::Error,
    },
}

// Not `#[from]`: that would also chain the client error as a source, and the message already
// shows it (printing the chain would repeat it).
impl From<ClientError> for Error {
    fn from(e: ClientError) -> Self {
        Error::Client(e)
    }
}

impl Error {
    /// The dataset failure class of this error: provider failures are told apart from bad replies.
    pub fn kind(&self) -> FailureKind {
        match self {
            Error::Client(_) => FailureKind::Client,
            Error::ReplyNotJson { .. }
            | Error::ReplyNotArray { .. }
            | Error::InvalidElement { .. } => FailureKind::Reply,
            Error::Case { .. } | Error::Io { .. } | Error::Json(_) => FailureKind::Case,
            Error::Confidence(_) | Error::Mutator(_) => FailureKind::Mutator,
        }
    }
}
