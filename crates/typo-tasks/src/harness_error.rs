//! The harness's error type: selection, JSONL, and summary refusals.
//!
//! Every message is upstream's text (urlinsane `aitypo`) without its `aitypo: ` package prefix,
//! so a caller can add its own (the `capkit` binary prints `capkit: `).

use std::io;

use crate::quote::{go_quote, go_quote_slice};

/// Why the harness refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// `select` was given task ids the registry does not have.
    #[error("unknown task(s): {}; have: {}", .unknown.join(", "), .have.join(", "))]
    UnknownTasks {
        /// The unknown ids, sorted (repeats kept, as upstream).
        unknown: Vec<String>,
        /// Every id the registry has, sorted.
        have: Vec<String>,
    },
    /// `select` was given arguments that name no task at all (blank or only commas).
    #[error("{} names no task; pass none to select all of: {}", go_quote_slice(.args), .have.join(", "))]
    BlankSelection {
        /// The arguments as given.
        args: Vec<String>,
        /// Every id the registry has, sorted.
        have: Vec<String>,
    },
    /// An example holds a variant that is not valid UTF-8, so JSONL cannot carry it.
    #[error(
        "{task}/{} has a field or variant that is not valid UTF-8 and cannot survive JSONL; \
         filter with Representable, or drop this task from the corpus",
        go_quote(.input)
    )]
    NotRepresentable {
        /// The example's task id.
        task: String,
        /// The example's input.
        input: String,
    },
    /// Writing an example failed.
    #[error("writing example {task}/{input}: {source}")]
    Write {
        /// The example's task id.
        task: String,
        /// The example's input.
        input: String,
        /// The underlying I/O error.
        source: io::Error,
    },
    /// Reading a JSONL corpus failed below the JSON level.
    #[error("reading corpus: {source}")]
    Read {
        /// The underlying I/O error.
        source: io::Error,
    },
    /// A JSONL line is longer than [`crate::MAX_LINE_BYTES`].
    #[error("reading corpus: line {line}: token too long (the longest line allowed is 8 MiB)")]
    LineTooLong {
        /// The 1-based physical line number.
        line: usize,
    },
    /// A predictions line is not a usable prediction (the message names the field or column).
    #[error("{message}")]
    BadPrediction {
        /// What is wrong.
        message: String,
    },
    /// A JSONL line is not a valid example.
    #[error("line {line}: {message} at column {column}")]
    Json {
        /// The 1-based physical line number.
        line: usize,
        /// The 1-based column (byte) within the line, after trimming.
        column: usize,
        /// What was wrong, naming the field when one was being read.
        message: String,
    },
    /// Results name tasks the registry does not have: summarising them would mislabel their needs.
    #[error(
        "results name task(s) the registry does not have: {}; their Needs would default to nothing \
         and a memorised table would be reported as a learned rule — score against the registry \
         the corpus was built from (have: {})",
        .missing.join(", "),
        .have.join(", ")
    )]
    UnregisteredResults {
        /// The missing ids, sorted and unique.
        missing: Vec<String>,
        /// Every id the registry has, sorted.
        have: Vec<String>,
    },
}
