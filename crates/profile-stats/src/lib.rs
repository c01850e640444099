//! `profile-stats`: the statistics of capability profiles, as pure functions over counts.
//!
//! A profile (upstream's `capture_profile` / `extractive_capture_profile`) reports point rates.
//! Deciding with them — is this student significantly less invariant than its teacher? is
//! student A better than student B under typos? — needs the counts behind the rates. This crate
//! keeps exactly those counts and derives every figure from them:
//!
//! * **Counts** ([`ClassifyCounts`], [`ExtractCounts`]): per stage, the sufficient statistics
//!   of every figure — `n`; per corruption the 2×2 table of (agrees on the clean text, agrees on
//!   the corrupted text); per invariance the 2×2 table of (student changed, teacher changed);
//!   for abstention each side's escalations crossed with agreement; for extractors the micro
//!   TP/FP/FN and the sums of squares the delta method needs ([`FieldSums`]). They are folds
//!   over per-text outcomes (`record`) and add (`merge`): counts over two text sets merge into
//!   exactly the counts over their union.
//! * **Intervals** on every rate: Wilson score intervals ([`wilson`]) and, for micro F1, Wilson's
//!   interval of the micro Jaccard index at the effective number of fields ([`f1_text_interval`], [`f1_interval`],
//!   never zero-width); the level is configurable ([`Level`], 95 % by default). Both match
//!   statsmodels (fixtures in `fixtures/`).
//! * **Paired tests** where the data are paired: McNemar's score test ([`mcnemar_score`]) and
//!   Tango's score interval for the paired difference ([`tango_difference`], Tango 1998), which
//!   is that test inverted, so the two never contradict each other; per corruption (clean vs
//!   corrupted) and per invariance (student vs teacher), and between students
//!   ([`Comparison`]). Every p-value of a document is Holm-adjusted over all its tests
//!   ([`adjust_family`]), each interval at the level of its Holm step.
//! * **Prediction-powered means** ([`PpiSums`]): PPI and power-tuned PPI++ estimates and
//!   intervals of a mean observed on a uniform sample with a surrogate on every text (a profile
//!   that asked its teacher about a sample of the transformed texts); `ppi_py`'s formulas
//!   (fixture in `fixtures/`), from additive sums.
//! * **Severity curves** ([`severity_curve`]): the normalised area under a family's curve and
//!   its break-even severity.
//! * **Reports** ([`ProfileReport`], [`Comparison`]): the counts with what they were measured
//!   on, written as self-describing, versioned JSON ([`REPORT_FORMAT`]) that merges only with
//!   reports of the same suite and models; **gates** ([`Gate`]) read numbers out of it.
//!
//! This crate does no I/O and depends on no capkit crate but `profile-types` (whose profile
//! types a report reproduces from its counts). `capture` and `extractive` fill the counts;
//! `capkit profile` writes, merges and gates the reports.
//!
//! ```
//! use profile_stats::{ClassifyCounts, Counts, CorruptionInfo, ProfileReport, SuiteDescriptor};
//!
//! let suite = SuiteDescriptor {
//!     fingerprint: None,
//!     corruptions: vec![CorruptionInfo { name: "typo".into(), family: Some("keyboard_typo".into()), severity: Some(0.1), ..Default::default() }],
//!     invariances: vec!["case".into()],
//!     probes: 0,
//!     transforms: None,
//!     probe_texts: None,
//!     invariance_meta: Default::default(),
//! };
//! // A fold over texts: (clean agree, corrupted agree, student changed, teacher changed).
//! let fold = |texts: &[(bool, bool, bool, bool)]| {
//!     let mut c = ClassifyCounts::new(["typo"], ["case"], None);
//!     for &(clean, corrupted, s, t) in texts {
//!         c.record_clean(clean);
//!         c.corruptions["typo"].agree.record(clean, corrupted);
//!         c.invariances["case"].changed.record(s, t);
//!     }
//!     ProfileReport::new(suite.clone(), Counts::Classify(c), None)
//! };
//! let a = fold(&[(true, true, false, false), (true, false, true, false)]);
//! let b = fold(&[(false, false, true, false)]);
//! let all = fold(&[(true, true, false, false), (true, false, true, false), (false, false, true, false)]);
//! assert_eq!(a.merge(&b)?, all);
//! let json = all.to_json();
//! assert_eq!(json["invariances"]["case"]["student_violation"]["estimate"], 2.0 / 3.0);
//! // Two tests in the report (one corruption, one invariance): Holm-adjusted over both.
//! let test = &json["invariances"]["case"]["student_vs_teacher"];
//! assert_eq!(test["adjustment"], serde_json::json!({"method": "holm", "family": 2}));
//! assert!(test["p"].as_f64() >= test["p_unadjusted"].as_f64());
//! # Ok::<(), profile_stats::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[macro_use]
mod table;

pub mod analysis;
mod binomial;
mod compare;
mod counts;
mod curve;
mod error;
mod examples;
mod field_sums;
mod gate;
mod interval;
mod normal;
mod paired;
mod ppi;
mod report;
mod sample;
mod settings;
mod stages;
mod suite;

pub use compare::{
    COMPARISON_FORMAT, Comparison, Pair, PairAgreement, PairChanges, PairCounts, PairTests,
    StudentOutcomes, check_alias,
};
pub use counts::{
    AbstentionCounts, AgreeSplit, ChangeCounts, ChangeTable, ClassifyCounts, CleanCounts,
    CleanVsCorrupted, CorruptionCounts, ExtractCleanCounts, ExtractCorruptionCounts, ExtractCounts,
    ExtractInvarianceCounts, FirstVsSecond, InvarianceCounts, NewDisagreements, StageShape,
    StudentVsTeacher,
};
pub use curve::{BreakEven, CurveInput, CurvePoint, SeverityCurve, severity_curve};
pub use error::Error;
pub use examples::{
    DEFAULT_EXAMPLES, EXAMPLE_CHARS, Example, ExampleAnswers, ExampleList, Examples, StageExamples,
    cut_for_display, example_key, key_hex,
};
pub use field_sums::FieldSums;
pub use gate::{GATE_GRAMMAR, Gate, GateOutcome, Op, derived_alias, numeric_paths, readable};
pub use interval::{
    Interval, Level, Method, PPI_DESCRIPTION, PPI_METHOD, bounded_mean_interval, f1_delta_interval,
    f1_interval, f1_text_interval, t_critical, wilson,
};
pub use normal::{ln_normal_two_sided_tail, normal_quantile, normal_two_sided_tail};
pub use paired::{
    AdjustMethod, Adjustment, PPI_WALD_DESCRIPTION, PairedTest, SMALLEST_P, SampledDifference,
    TestMethod, adjust_family, holm, holm_log10, mcnemar_exact, mcnemar_score, mcnemar_score_log10,
    newcombe_difference, p_from_log10, paired_test, sampled_test, tango_difference,
};
pub use ppi::{
    FEW_EVENTS, PpiEstimate, PpiSums, RATIO_SAMPLE_REFUSED, RepeatSums, Tuning, Widening,
    estimate_rate, estimate_rate_below, few_events, widening,
};
pub use report::{Counts, Models, Profile, ProfileReport, REPORT_FORMAT, Task};
pub use sample::{
    ClassifySample, ObservedVsSurrogate, SampleDesign, SampleRepeats, SampledCorruption,
    SampledInvariance,
};
pub use settings::Settings;
pub use suite::{CorruptionInfo, StageMeta, SuiteDescriptor};
pub use table::PairedTable;
