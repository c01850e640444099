//! Errors of suite construction and model calls.

use crate::{Side, Stage};

/// Everything that can go wrong in `suite-core`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A typo rate outside `[0, 1]`, or NaN.
    #[error("rate must be in [0, 1], got {}", profile_types::value::py_float_repr(*rate))]
    InvalidRate {
        /// The rejected rate.
        rate: f64,
    },
    /// A severity that is negative, infinite or NaN.
    #[error("severity must be a finite number >= 0, got {}", profile_types::value::py_float_repr(*value))]
    InvalidSeverity {
        /// The rejected severity.
        value: f64,
    },
    /// A suite file names a transform that does not exist.
    #[error("{location}: unknown transform `{name}`; valid transforms: {valid}")]
    UnknownTransform {
        /// Where in the suite (e.g. `corruptions[2]`).
        location: String,
        /// The unknown name.
        name: String,
        /// The valid names, comma-separated.
        valid: String,
    },
    /// A transform in a suite file has a missing, unknown or ill-typed parameter.
    #[error("{location}: {}{message}", transform_prefix(transform))]
    TransformParameter {
        /// Where in the suite (e.g. `corruptions[0]`).
        location: String,
        /// The transform's name.
        transform: String,
        /// What is wrong.
        message: String,
    },
    /// Two entries of one suite section share a name.
    #[error("{section}: the name `{name}` is used twice")]
    DuplicateName {
        /// `corruptions` or `invariances`.
        section: &'static str,
        /// The repeated name.
        name: String,
    },
    /// A suite file is not valid JSON or does not have the suite's shape.
    #[error("suite spec: {0}")]
    SpecSyntax(#[source] serde_json::Error),
    /// The mixle-compatible generator was asked for without the `mixle-compat` feature.
    #[error("the mixle-compatible typo generator needs suite-core's `mixle-compat` feature")]
    MixleCompatDisabled,
    /// A model returned an error.
    #[error("{side} model failed on the {stage}: {source}")]
    Model {
        /// Which model.
        side: Side,
        /// During which pass.
        stage: Stage,
        /// The model's own error.
        #[source]
        source: crate::ModelError,
    },
    /// A model returned a batch of the wrong length.
    #[error("{side} model returned {got} {what} for {expected} texts on the {stage}")]
    BatchLength {
        /// Which model.
        side: Side,
        /// During which pass.
        stage: Stage,
        /// `predictions` or `decisions`.
        what: &'static str,
        /// How many texts it was given.
        expected: usize,
        /// How many answers came back.
        got: usize,
    },
    /// A model's decision API answered for some chunks of a profile's texts and not for others.
    #[error("{side} model has a decision API on some chunks of the texts and none on others")]
    DecisionApiChanged {
        /// Which model.
        side: Side,
    },
    /// A teacher sampling design that cannot be used (a fraction outside `(0, 1]`, no budget).
    #[error("{0}")]
    TeacherSample(String),
}

/// "transform `NAME`: " before a parameter error, or nothing when the entry has no known
/// transform yet (a missing `name` must not read "transform ``").
fn transform_prefix(transform: &str) -> String {
    if transform.is_empty() {
        String::new()
    } else {
        format!("transform `{transform}`: ")
    }
}
