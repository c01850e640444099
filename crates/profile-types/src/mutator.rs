//! Result types of mutator evaluation (upstream: LangState's `LLMEvaluator`).
//!
//! The data model of an interpretive state ([`ValueConfidence`], [`Inference`], [`FieldState`],
//! [`StateSnapshot`]), the comparison of an actual against an expected state ([`FieldComparison`],
//! [`StateComparison`]), one evaluation ([`EvaluationResult`]), and the dataset runner's per-case
//! line ([`CaseResult`]) and aggregate ([`DatasetSummary`]). The behaviour (building states,
//! comparing them, running mutators) lives in the `mutator-eval` crate; these are the shapes it
//! returns and writes.
//!
//! ```
//! use profile_types::ValueConfidence;
//! use serde_json::json;
//!
//! let vc = ValueConfidence::new(json!("Ada"), 0.9).unwrap();
//! assert_eq!(serde_json::to_value(&vc).unwrap(), json!({"value": "Ada", "confidence": 0.9}));
//! assert!(ValueConfidence::new(json!("Ada"), 1.5).is_err());
//! assert!(ValueConfidence::new(json!("Ada"), f64::NAN).is_err());
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A confidence outside `[-1, 1]` (NaN and infinities included).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConfidenceError {
    /// The rejected confidence.
    pub confidence: f64,
}

impl fmt::Display for ConfidenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "confidence {} is not a number in [-1, 1]",
            self.confidence
        )
    }
}

impl std::error::Error for ConfidenceError {}

/// One candidate value of a field with its confidence in `[-1, 1]`.
///
/// The value is any JSON value, stored as given. The confidence is checked on construction and on
/// deserialisation, so every `ValueConfidence` holds a finite confidence in range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawValueConfidence")]
pub struct ValueConfidence {
    value: Value,
    confidence: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawValueConfidence {
    value: Value,
    #[serde(default)]
    confidence: f64,
}

impl TryFrom<RawValueConfidence> for ValueConfidence {
    type Error = ConfidenceError;
    fn try_from(raw: RawValueConfidence) -> Result<Self, Self::Error> {
        ValueConfidence::new(raw.value, raw.confidence)
    }
}

impl ValueConfidence {
    /// A candidate; fails when `confidence` is not a finite number in `[-1, 1]` (both ends allowed).
    pub fn new(value: Value, confidence: f64) -> Result<Self, ConfidenceError> {
        // `contains` is false for NaN, and the range excludes the infinities.
        if (-1.0..=1.0).contains(&confidence) {
            Ok(ValueConfidence { value, confidence })
        } else {
            Err(ConfidenceError { confidence })
        }
    }

    /// The candidate value.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The confidence, in `[-1, 1]`.
    pub fn confidence(&self) -> f64 {
        self.confidence
    }
}

/// Why a field holds its values: the reasoning of the mutator that wrote it last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inference {
    /// The reasoning text.
    pub content: String,
    /// The id of the mutator that produced it, if known.
    #[serde(default)]
    pub mutator_id: Option<String>,
    /// The id of the input message it was drawn from, if known.
    #[serde(default)]
    pub message_id: Option<String>,
}

/// The state of one field: its latest inference and its candidates in the order they were added.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldState {
    /// The latest inference (a new one replaces the old one).
    #[serde(default)]
    pub inference: Option<Inference>,
    /// The candidates, in append order (on equal confidence the earliest is best).
    #[serde(default)]
    pub values: Vec<ValueConfidence>,
}

/// A state as data: path → field state, or `null` for an implicit parent node (`a` for `a.b`).
///
/// Keys are sorted by code point, so a snapshot serialises the same way whatever order the state
/// was built in.
pub type StateSnapshot = BTreeMap<String, Option<FieldState>>;

/// How one path compares between the expected and the actual state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldCategory {
    /// On both sides, with equal best candidates (or no candidate on either side).
    Matching,
    /// On both sides, with different best candidates (or a candidate on one side only).
    Mismatched,
    /// Expected but absent from the actual state.
    Missing,
    /// In the actual state but not expected.
    Extra,
}

/// The comparison of one path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldComparison {
    /// The dotted path.
    pub field_path: String,
    /// True exactly when the category is [`FieldCategory::Matching`].
    pub matches: bool,
    /// The category.
    pub category: FieldCategory,
    /// The best expected candidate (`None` when absent or valueless).
    pub expected_value: Option<ValueConfidence>,
    /// The best actual candidate (`None` when absent or valueless).
    pub actual_value: Option<ValueConfidence>,
    /// What differs, for every non-matching path; `None` for a match.
    pub difference: Option<String>,
}

/// The comparison of two states over the sorted union of their paths, parents included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateComparison {
    /// One entry per path, sorted by code point.
    pub fields: Vec<FieldComparison>,
    /// Paths in [`FieldCategory::Matching`].
    pub matching_fields: usize,
    /// Paths in [`FieldCategory::Mismatched`].
    pub mismatched_fields: usize,
    /// Paths in [`FieldCategory::Missing`].
    pub missing_fields: usize,
    /// Paths in [`FieldCategory::Extra`].
    pub extra_fields: usize,
    /// No mismatched, missing or extra path.
    pub overall_match: bool,
}

/// The result of one evaluation: the comparison, the state the mutator produced, the score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvaluationResult {
    /// The field-by-field comparison.
    pub comparison: StateComparison,
    /// The state the mutator returned.
    pub actual_post_state: StateSnapshot,
    /// `matching / (matching + mismatched + missing)`, or 0.0 when that denominator is 0.
    pub accuracy_score: f64,
    /// Seconds spent in the mutate call, on a monotonic clock.
    pub time_used: f64,
    /// The evaluation context's metadata, echoed.
    pub metadata: Option<Value>,
}

/// Why a dataset case produced no result. Errors are counted apart from wrong answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The LLM client failed: network, HTTP status, timeout, exhausted retries, no fixed reply.
    Client,
    /// The client answered, but the reply was not a valid extraction (not JSON, not an array,
    /// an invalid element).
    Reply,
    /// Another mutator error.
    Mutator,
    /// The case itself could not be read (bad JSON, bad state).
    Case,
}

/// A dataset case that produced no result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseFailure {
    /// The class of failure.
    pub kind: FailureKind,
    /// What went wrong, for a person.
    pub message: String,
}

/// One line of a dataset run: a case's result or its failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// The case's position in the dataset (0-based).
    pub index: usize,
    /// The case id.
    pub id: String,
    /// The evaluation, when the case ran to the end.
    pub result: Option<EvaluationResult>,
    /// The failure, when it did not.
    pub error: Option<CaseFailure>,
}

/// The aggregate of a dataset run.
///
/// Means and percentiles are over the evaluated cases only; failed cases are counted in
/// `errors` and never score 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetSummary {
    /// Cases in the dataset.
    pub cases: usize,
    /// Cases that produced a result.
    pub evaluated: usize,
    /// Cases that failed (`cases - evaluated`).
    pub errors: usize,
    /// Failed cases per kind.
    pub errors_by_kind: BTreeMap<FailureKind, usize>,
    /// Mean `accuracy_score` of the evaluated cases (`None` when none was).
    pub mean_accuracy: Option<f64>,
    /// Share of evaluated cases with `overall_match` (`None` when none was).
    pub overall_match_rate: Option<f64>,
    /// Median `time_used` in seconds (nearest rank; `None` when no case was evaluated).
    pub latency_p50: Option<f64>,
    /// 95th percentile of `time_used` in seconds (nearest rank).
    pub latency_p95: Option<f64>,
}
