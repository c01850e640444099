//! `profile-types`: the serde types of every result the capkit workspace returns.
//!
//! Each type serialises to exactly the JSON its upstream reference produces, key order included,
//! so a profile written by capkit can be diffed against one written by the upstream tool:
//!
//! * [`CaptureProfile`]: the classifier capture profile (upstream: mixle's `capture_profile`).
//! * [`ExtractiveProfile`] and [`SchemaCheck`]: the extractive profile and its schema check
//!   (upstream: mixle's `extractive_capture_profile` / `validate_extraction_schema`), plus the
//!   opt-in per-field [`FieldBreakdown`], which has no upstream counterpart.
//! * [`EvaluationResult`], [`CaseResult`] and [`DatasetSummary`]: mutator evaluations, one case
//!   and a dataset (upstream: LangState's `LLMEvaluator`; the dataset types are capkit's own).
//! * [`Needs`], [`TaskSummary`] and [`TypoScoreReport`]: typo-task scores (upstream: urlinsane's
//!   `aitypo.Summary`), rule tasks and table tasks kept apart.
//!
//! [`value`] holds the Python value semantics those results are defined in terms of: how a label
//! prints (`str()`), when two values are equal (`==`) and which values are "falsy". They live here
//! because every crate that compares results needs the same rule, and this crate is the one they all
//! share.
//!
//! This crate owns no behaviour beyond (de)serialisation and those value rules; it must never depend
//! on another capkit crate.
//!
//! # Why the typo and mutator types live here too
//!
//! This is deliberately *the result types of every crate*, not only the profiles': a result
//! read by a crate that does not compute it belongs here, so the reader needs no dependency on
//! the producer. `capkit-report` draws typo score reports ([`TypoScoreReport`]) and field
//! breakdowns without depending on `typo-tasks` or `extractive`; `capkit-py` converts every
//! result. A type only its own crate reads stays in that crate.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod capture;
mod encoding;
mod extractive;
mod mutator;
pub mod py_value;
mod typo;
pub mod value;

pub use capture::{Abstention, CaptureProfile, ProbePredictions, Reference, ViolationRates};
pub use extractive::{
    ExtractiveProfile, F1Pair, FieldBreakdown, FieldCounts, FieldReport, SchemaCheck,
    SchemaValidity,
};
pub use mutator::{
    CaseFailure, CaseResult, ConfidenceError, DatasetSummary, EvaluationResult, FailureKind,
    FieldCategory, FieldComparison, FieldState, Inference, StateComparison, StateSnapshot,
    ValueConfidence,
};
pub use typo::{InputFile, Needs, NeedsGroup, TaskAnswers, TaskSummary, TypoScoreReport};

/// A model output: a classifier label or an extractor record, as a JSON value.
///
/// Objects keep their key insertion order (serde_json's `preserve_order`), which the upstream
/// comparison rules depend on (see [`value::py_str`]).
pub type Label = serde_json::Value;
