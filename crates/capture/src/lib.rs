//! `capture`: classifier capture profiles — what a distilled student captured from its teacher.
//!
//! [`capture_profile`] runs a student and a teacher through a [`CapabilitySuite`] and returns a
//! [`CaptureProfile`]: clean agreement, agreement per corruption, each side's violation rate per
//! invariance, raw probe predictions and, when a model has a decision API, escalation rates. The
//! JSON is value-for-value upstream mixle's `capture_profile`, key order included. There is no
//! aggregate score: pass/fail policy is the caller's.
//!
//! [`capture_profile_report`] returns the counts behind that profile as a
//! [`ProfileReport`] (opt-in: the profile itself never changes
//! shape): intervals on every rate, paired tests, severity curves, the abstention analysis, and
//! reports over other texts merge into the report over all of them. [`compare_students`] runs
//! several students against one teacher, the teacher's answers computed once.
//!
//! Rules (upstream's, documented because they surprise):
//! * labels agree when their Python `str()` forms are equal ([`suite_core::labels_agree`]): `1`
//!   agrees with `"1"`, `null` with `"None"`, and objects compare in key order;
//! * an empty `texts` gives `0.0` for every agreement and violation rate (and `0.0` escalation for
//!   a side with a decision API); probes are still predicted;
//! * each distinct text (clean, corrupted, rewritten or probe) is predicted at most once per model
//!   per profile — models are assumed deterministic. (Upstream predicts the clean texts twice.)
//!
//! ```
//! use capture::serde_json::{self, json};
//! use capture::{BatchFn, CapabilitySuite, PerItemFn, capture_profile, case_jitter_invariance};
//!
//! let student = PerItemFn::new(|t: &str| json!(if t.contains("good") { "pos" } else { "neg" }));
//! let teacher = BatchFn::new(|ts: &[&str]| {
//!     ts.iter().map(|t| json!(if t.to_lowercase().contains("good") { "pos" } else { "neg" })).collect()
//! });
//! let mut suite = CapabilitySuite::new();
//! suite.add_invariance("case", case_jitter_invariance());
//! let profile = capture_profile(&student, &teacher, &["good", "bad"], &suite)?;
//! assert_eq!(profile.clean_agreement, 1.0);
//! assert_eq!(profile.invariances["case"].student_violation_rate, 0.5);
//! assert_eq!(serde_json::to_string(&profile)?, r#"{"clean_agreement":1.0,"corruptions":{},"invariances":{"case":{"student_violation_rate":0.5,"teacher_violation_rate":0.0}}}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod ledger;
mod profile;

pub use error::Error;
pub use profile::{
    CaptureRun, capture_profile, capture_profile_report, compare_students,
    compare_students_chunked, compare_students_counted, compare_students_sampled,
    compare_students_with,
};
pub use profile_stats::{Comparison, ProfileReport};
pub use profile_types::{Abstention, CaptureProfile, ProbePredictions, ViolationRates};
// Everything a caller needs to build a suite and wrap models, so a crate that depends on
// `capture` alone can use it (the README's example compiles with no other dependency).
pub use serde_json;
// The report types (`ProfileReport`, `Comparison`, counts, settings, gates).
pub use profile_stats;
pub use suite_core::{
    BatchFn, CapabilitySuite, DEFAULT_CHUNK_SIZE, Decision, Model, ModelError, PerItemFn,
    SharedLabel, SuiteSpec, TeacherSample, Transform, TransformSpec, case_jitter_invariance,
    keyboard_typo_corruption, whitespace_invariance,
};

// The README's examples are doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
