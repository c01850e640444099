//! Errors of `profile-stats`.

/// Everything that can go wrong reading, merging or gating reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A confidence level outside `(0, 1)`.
    #[error("the confidence level must be strictly between 0 and 1, got {0}")]
    Level(f64),
    /// A break-even threshold outside `[0, 1]`.
    #[error("the break-even threshold must be in [0, 1], got {0}")]
    Threshold(f64),
    /// A JSON document that is not a report of this version.
    #[error("not a {expected} document: its `format` is {found}")]
    Format {
        /// The `format` found (or `missing`).
        found: String,
        /// The format expected.
        expected: &'static str,
    },
    /// A report field that is missing, malformed or inconsistent.
    #[error("{at}: {message}")]
    Invalid {
        /// Where (a report path, e.g. `counts.corruptions.typo_05.agree`).
        at: String,
        /// What is wrong.
        message: String,
    },
    /// Two reports that cannot be merged.
    #[error("cannot merge: the {what} differ ({left} vs {right})")]
    Mismatch {
        /// What differs (`suites`, `models`, ...).
        what: String,
        /// The first report's.
        left: String,
        /// The second report's.
        right: String,
    },
    /// A gate expression that does not parse.
    #[error("gate `{expression}`: {message}")]
    GateSyntax {
        /// The expression.
        expression: String,
        /// What is wrong, and the grammar.
        message: String,
    },
    /// A gate path that is not in the report.
    #[error("unknown path `{path}`: {detail}; valid: {valid}")]
    UnknownPath {
        /// The path.
        path: String,
        /// Which segment is missing where.
        detail: String,
        /// The valid paths at that point.
        valid: String,
    },
    /// A gate path whose value is not a number.
    #[error("path `{path}` is {what}, not a number{hint}")]
    NotANumber {
        /// The path.
        path: String,
        /// What it is (`null`, an object, ...).
        what: String,
        /// Where to go from there.
        hint: String,
    },
}
