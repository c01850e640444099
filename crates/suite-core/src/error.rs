//! Errors of suite construction and model calls.

use std::fmt;

/// Which model of the pair a message is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The distilled model under test.
    Student,
    /// The reference model.
    Teacher,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Student => "student",
            Side::Teacher => "teacher",
        })
    }
}

/// The pass of a profile during which a model was called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// The clean texts.
    Clean,
    /// The texts rewritten by the named corruption.
    Corruption(String),
    /// The texts rewritten by the named invariance.
    Invariance(String),
    /// The suite's probes.
    Probes,
    /// The decision API on the clean texts.
    Decisions,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stage::Clean => f.write_str("clean texts"),
            Stage::Corruption(n) => write!(f, "corruption `{n}`"),
            Stage::Invariance(n) => write!(f, "invariance `{n}`"),
            Stage::Probes => f.write_str("probes"),
            Stage::Decisions => f.write_str("decisions on the clean texts"),
        }
    }
}

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

/// Why an answer of the model protocol ([`crate::parse_answer_line`],
/// [`crate::parse_batch_answer`]) is refused. Messages name what is wrong; the caller adds the
/// model, the output line and the text id.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ProtocolError {
    /// An answer line is not a JSON object.
    #[error("not a JSON answer object ({error}): {line}")]
    NotJson {
        /// The JSON error.
        error: String,
        /// The line as received.
        line: String,
    },
    /// An answer line has no non-negative integer `id`.
    #[error("no integer \"id\"")]
    NoId,
    /// An answer line has both `label` and `record`.
    #[error("both \"label\" and \"record\"")]
    BothOutputs {
        /// The text id.
        id: u64,
    },
    /// An answer line has neither `label` nor `record`.
    #[error("no \"{key}\"")]
    NoOutput {
        /// The text id.
        id: u64,
        /// The expected key.
        key: &'static str,
    },
    /// A record is not a JSON object.
    #[error("a record must be a JSON object, got {got}")]
    NotARecord {
        /// The value received.
        got: String,
    },
    /// An answer line's output is refused.
    #[error("{error}")]
    InAnswer {
        /// The text id.
        id: u64,
        /// Why.
        error: Box<ProtocolError>,
    },
    /// A batch answer is not JSON.
    #[error("the response is not JSON ({error})")]
    BodyNotJson {
        /// The JSON error.
        error: String,
    },
    /// A batch answer has no list of outputs.
    #[error("the response has no \"{key}\" list")]
    NoList {
        /// The expected key.
        key: &'static str,
    },
    /// A batch answer has the wrong number of outputs.
    #[error("{got} {key} for {texts} texts")]
    WrongLength {
        /// The key read.
        key: &'static str,
        /// Outputs received.
        got: usize,
        /// Texts sent.
        texts: usize,
    },
    /// A batch answer's `decisions` is not a list of one per text.
    #[error("\"decisions\" must be a list of {texts} items")]
    BadDecisions {
        /// Texts sent.
        texts: usize,
    },
    /// One output of a batch is refused.
    #[error("{error}")]
    InBatch {
        /// Its position in the batch.
        index: usize,
        /// Why.
        error: Box<ProtocolError>,
    },
}
