//! What can go wrong reading a document to render.

/// A document that cannot be rendered, with the place in it that is wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The JSON is none of the documents this crate renders.
    #[error(
        "not a document capkit can report on: {found}; expected a profile report \
         (`format` {report}), a comparison (`format` {comparison}) or a typo score report \
         (`capkit typo score --json`: `scored`, `unpredicted`, `groups`)",
        report = profile_stats::REPORT_FORMAT,
        comparison = profile_stats::COMPARISON_FORMAT
    )]
    Unrecognised {
        /// What the JSON looks like instead.
        found: String,
    },
    /// A report or comparison that `profile-stats` refuses (format, shape, inconsistent counts).
    #[error(transparent)]
    Stats(#[from] profile_stats::Error),
    /// A document file that is not JSON ([`crate::Input::from_file_bytes`]).
    #[error("not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// `SOURCE_DATE_EPOCH` is not whole seconds ([`crate::format::page_time`]).
    #[error("SOURCE_DATE_EPOCH must be whole seconds, got {0:?}")]
    SourceDateEpoch(String),
    /// A field of the document is malformed.
    #[error("{at}: {message}")]
    Invalid {
        /// The field (dotted path).
        at: String,
        /// What is wrong with it.
        message: String,
    },
}
