//! `suite-core`: capability suites, their built-in transforms, and the model interface.
//!
//! A [`CapabilitySuite`] names three kinds of checks a distilled student is put through:
//!
//! * **corruptions**: ordered named text transforms of increasing severity (mildest first), e.g.
//!   [`keyboard_typo_corruption`] at rates 0.05, 0.10, 0.20;
//! * **invariances**: ordered named meaning-preserving rewrites, e.g. [`case_jitter_invariance`]
//!   and [`whitespace_invariance`];
//! * **probes**: fixed edge-case inputs whose raw predictions are recorded.
//!
//! Suites can also live in JSON files ([`SuiteSpec`]). Models are reached through the [`Model`]
//! trait (batch prediction plus an optional decision API; answers can be shared
//! [`SharedLabel`]s); [`ProfileRun`] is the engine the profile crates (`capture`, `extractive`)
//! share: texts in chunks ([`DEFAULT_CHUNK_SIZE`]), each distinct text predicted at most once
//! per model (a [`PredictionCache`] per chunk, fingerprints across chunks), per-text outcomes
//! counted ([`Outcomes`]), so memory stays bounded at any number of texts. [`Memo`] keeps one
//! model's answers across profiles, and [`compare_chunked`] is the chunk loop of every student
//! comparison (each profile crate supplies its run, a [`StudentRun`]). A corruption may
//! carry a [`Severity`] (family and value) for the severity curves of reports. Models are
//! assumed deterministic: a text seen twice gets its first answer.
//!
//! The answer parsers of the model protocol (`AnswerKind`, `LineAnswer`, `parse_answer_line`,
//! `parse_batch_answer`, `check_output`, `ProtocolError`) moved to `model-adapters`, their only
//! user (`model_adapters::parse_answer_line`, …); suite-core cannot re-export them, as
//! model-adapters depends on it. [`decision_of`] stays here, beside [`Decision`].
//!
//! Label comparison follows upstream mixle: two labels agree when their Python `str()` forms are
//! equal ([`labels_agree`]), so `1` and `"1"` agree, `null` and `"None"` agree, and objects compare
//! in key order.
//!
//! ```
//! use suite_core::{CapabilitySuite, case_jitter_invariance, keyboard_typo_corruption, whitespace_invariance};
//!
//! let mut suite = CapabilitySuite::new();
//! suite.add_corruption("typo_05", keyboard_typo_corruption(0.05, 0)?);
//! suite.add_corruption("typo_10", keyboard_typo_corruption(0.10, 0)?);
//! suite.add_invariance("case", case_jitter_invariance());
//! suite.add_invariance("space", whitespace_invariance());
//! suite.add_probe("");
//! assert_eq!(suite.corruption_names().collect::<Vec<_>>(), ["typo_05", "typo_10"]);
//! assert_eq!(suite.invariance("case").unwrap().apply("straße"), "STRASSE");
//! # Ok::<(), suite_core::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cache;
mod chunk;
mod error;
mod fingerprint;
mod kept;
mod memo;
#[cfg(feature = "mixle-compat")]
mod mixle_rng;
mod model;
mod outcome;
mod sample;
mod seen;
mod spec;
mod stage;
mod students;
mod suite;
mod text;
mod textset;
mod transform;
mod typo;
mod unicode14;

pub use cache::{Escalations, Keep, KeepAnswers, LastAnswer, PredictionCache, StageIds};
pub use chunk::{
    ChunkFn, DEFAULT_CHUNK_SIZE, ESCALATED_STUDENT, ESCALATED_TEACHER, OutcomeWriter, ProfileRun,
    escalations,
};
pub use error::Error;
pub use fingerprint::TextsFingerprint;
pub use memo::Memo;
#[cfg(feature = "mixle-compat")]
pub use mixle_rng::MixleTypo;
pub use model::{
    BatchFn, Decision, Model, ModelError, PerItemFn, SharedLabel, decision_of, labels_agree,
};
pub use outcome::Outcomes;
pub use profile_types::{Label, Reference};
pub use sample::TeacherSample;
pub use spec::{
    BUILT_IN_TRANSFORMS, BuiltIns, NamedTransform, ResolveError, Resolved, Resolver, SuiteSpec,
    TransformSpec,
};
pub use stage::{Side, Stage};
pub use students::{StudentRun, StudentsError, compare_chunked};
pub use suite::CapabilitySuite;
pub use text::{is_py_letter, is_py_whitespace, py_swapcase, py_whitespace_collapse};
pub use transform::{Severity, TextHash, Transform, case_jitter_invariance, whitespace_invariance};
pub use typo::{KeyboardTypo, TypoRng, keyboard_typo_corruption};
