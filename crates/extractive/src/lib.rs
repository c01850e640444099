//! `extractive`: capture profiles for field extractors, scored with executable verifiers.
//!
//! A classifier's exact-match agreement is the wrong measure for an extractor: a student that gets
//! three of four fields right under a typo is not simply "wrong". [`extractive_capture_profile`]
//! scores a student extractor with micro-averaged field-level F1 against a fixed gold — the
//! teacher's own clean extraction — per corruption and per invariance, and checks the schema
//! validity of each side's clean records ([`validate_extraction_schema`]: every expected field
//! present, every value grounded in its source text). The JSON is value-for-value upstream
//! mixle's `extractive_capture_profile`.
//!
//! Rules (upstream's):
//! * field F1: per reference field, an equal predicted value (Python `==`: `1 == 1.0 == true`,
//!   `"1" != 1`, objects ignore key order; a missing key reads as `null`) is a TP, anything else
//!   one FN; each predicted field the reference lacks is an FP; F1 = 2TP / (2TP + FP + FN), and
//!   `1.0` when that denominator is 0. `fields` plays no part in F1;
//! * grounding compares a value's Python `str()` form, so `2.0` is not grounded by `"2"`;
//! * an empty `texts` gives `1.0` for every F1 and validity rate — the opposite of the classifier
//!   profile's `0.0`;
//! * each distinct text is predicted at most once per model (models are assumed deterministic),
//!   and a suite's probes are ignored.
//!
//! [`extractive_capture_report`] adds a per-field [`FieldBreakdown`] (TP/FP/FN and F1 per field,
//! per stage) beside the upstream-shaped profile, for finding which field fell.
//! [`extractive_profile_report`] returns the counts behind the profile as a mergeable
//! [`ProfileReport`] (never zero-width intervals on every F1, paired
//! tests on exact record matches, severity curves), and [`compare_students`] runs several
//! students against one teacher, the teacher's answers computed once.
//!
//! ```
//! use extractive::serde_json::json;
//! use extractive::{
//!     CapabilitySuite, PerItemFn, extractive_capture_profile, validate_extraction_schema,
//!     whitespace_invariance,
//! };
//!
//! let check = validate_extraction_schema(&json!({"name": "alice", "age": 0}), "name: alice", &["name", "age"])?;
//! assert_eq!((check.complete, check.grounded, check.missing), (false, true, vec!["age".to_owned()]));
//!
//! let teacher = PerItemFn::new(|t: &str| json!({"name": t.split_whitespace().last()}));
//! let student = PerItemFn::new(|t: &str| json!({"name": t.split(' ').last()}));
//! let mut suite = CapabilitySuite::new();
//! suite.add_invariance("space", whitespace_invariance());
//! let profile = extractive_capture_profile(&student, &teacher, &["name: ann", "name: bob "], &suite, &["name"])?;
//! // "bob " ends in a space: the student extracts "" there (one FN next to one TP).
//! assert_eq!(profile.clean_f1, 2.0 / 3.0);
//! # Ok::<(), extractive::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod breakdown;
mod error;
mod f1;
mod profile;
mod records;
mod schema;

pub use breakdown::merge_field_breakdowns;
pub use error::Error;
pub use f1::field_f1;
pub use profile::{
    ExtractRun, ExtractiveReport, compare_students, compare_students_chunked,
    extractive_capture_profile, extractive_capture_report, extractive_profile_report,
    extractive_profile_report_with_fields,
};
pub use profile_stats::{Comparison, ProfileReport};
pub use profile_types::{
    ExtractiveProfile, F1Pair, FieldBreakdown, FieldCounts, FieldReport, SchemaCheck,
    SchemaValidity,
};
pub use schema::validate_extraction_schema;
// Everything a caller needs to build a suite and wrap models, so a crate that depends on
// `extractive` alone can use it.
pub use serde_json;
// The report types (`ProfileReport`, `Comparison`, counts, settings, gates).
pub use profile_stats;
pub use suite_core::{
    BatchFn, CapabilitySuite, DEFAULT_CHUNK_SIZE, Decision, Model, ModelError, PerItemFn,
    SharedLabel, SuiteSpec, Transform, TransformSpec, case_jitter_invariance,
    keyboard_typo_corruption, whitespace_invariance,
};

// The README's examples are doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
