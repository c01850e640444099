//! Why a model could not be named, opened, asked or cached.

use std::path::PathBuf;

/// The forms a model spec can take, for messages.
pub(crate) const FORMS: &str =
    "cmd:PROGRAM ARGS…, http:URL, openai:MODEL or file:PREDICTIONS.jsonl";

/// Why a model could not be named, opened, asked or cached. Messages name the model (its spec
/// with any URL credentials scrubbed), the file and line, or the text id; never an API key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A spec without a `scheme:`.
    #[error("model spec {raw:?} has no scheme; expected {FORMS}")]
    NoScheme {
        /// The spec as given.
        raw: String,
    },
    /// A spec whose scheme is none of `cmd:`, `http:`, `openai:`, `file:`.
    #[error("model spec {raw:?}: unknown scheme `{scheme}:`; expected {FORMS}")]
    UnknownScheme {
        /// The spec as given.
        raw: String,
        /// The unknown scheme.
        scheme: String,
    },
    /// A spec of a known scheme that is malformed (nothing after the scheme, an unterminated
    /// quote, no model name).
    #[error("model spec {raw:?}: {problem}")]
    BadSpec {
        /// The spec as given.
        raw: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The adapter of this scheme was compiled out.
    #[error("model `{model}`: {scheme}: models need capkit-model-adapters' `{feature}` feature")]
    Unsupported {
        /// The model's spec.
        model: String,
        /// `http` or `openai`.
        scheme: &'static str,
        /// The cargo feature that enables it.
        feature: &'static str,
    },
    /// The model cannot be used as configured (an `https://` URL without the `tls` feature, an
    /// `openai:` model without a prompt template, a template without a `{text}` slot, …).
    #[error("model `{model}`: {problem}")]
    Config {
        /// The model's spec.
        model: String,
        /// What is wrong.
        problem: String,
    },
    /// A `cmd:` model's program could not be started.
    #[error("model `{model}`: cannot start `{program}`")]
    Start {
        /// The model's spec.
        model: String,
        /// The program.
        program: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A `file:` model's predictions could not be read.
    #[error("model `{model}`: {}", path.display())]
    ReadPredictions {
        /// The model's spec.
        model: String,
        /// The predictions file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line of a `file:` model's predictions is malformed or contradicts an earlier one.
    #[error("model `{model}`: {}:{line}: {problem}", path.display())]
    Predictions {
        /// The model's spec.
        model: String,
        /// The predictions file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// The predictions of a `file:` model give a decision on some lines and not on others.
    #[error(
        "model `{model}`: {with} of {total} predictions have a \"decision\"; give it on every line or none"
    )]
    PartialDecisions {
        /// The model's spec.
        model: String,
        /// Predictions with a decision.
        with: usize,
        /// All predictions.
        total: usize,
    },
    /// A model failed to answer: it crashed, went silent, broke the protocol, or its server
    /// failed. The message names the model and the text id (or output line) concerned.
    #[error("{0}")]
    Model(String),
    /// The prediction cache could not be read or written (a cache only ever saves calls: its
    /// callers may go on without it).
    #[error("{action} the prediction cache {}", path.display())]
    Cache {
        /// `reading`, `creating`, `opening`, `writing`.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The prediction cache's database refused an operation (another capkit's format, a full
    /// disk, a lock held past the busy timeout).
    #[error("{action} the prediction cache {}: {message}", path.display())]
    CacheStore {
        /// `opening`, `reading`, `writing`, `importing into`.
        action: &'static str,
        /// The database file.
        path: PathBuf,
        /// SQLite's message.
        message: String,
    },
    /// A cache command was pointed at a directory holding no prediction cache (they never create
    /// one).
    #[error("opening the prediction cache {}: there is no prediction cache there", path.display())]
    NoCache {
        /// The database file that is not there.
        path: PathBuf,
    },
}
