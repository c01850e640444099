//! The jobs of capkit's front ends, written once: the command line (`capkit`) and the Python
//! package (`capkit_rs`) only parse arguments, convert values and display; what a job *does*
//! lives here.
//!
//! * [`texts`] — texts files (verbatim lines, or JSONL records with ids and columns), streamed
//!   in chunks, and the fingerprint of a run's texts.
//! * [`suite`] — suite files and the default suite, built by the transform catalogue.
//! * [`plan`] — the teacher's sampling design (the teacher-budget rule), shards, and the texts a
//!   profile sends its models (what Ray runs by).
//! * [`job`] — profile and comparison runs over any `Model`, and their report files.
//! * [`envelope`] — the report file: the counts document and its envelope (`fields`, `texts`,
//!   `run`, `runs`), read and written in one place.
//! * [`mod@merge`] — merging shards' report files, refusing a shard given twice (or dropping it).
//! * [`typo`] — typo-task jobs: the name corpus `emit` reads, scoring predictions against a
//!   corpus.
//!
//! ```
//! use runner::texts::TextsFingerprint;
//! // A report's texts block is a fingerprint of the texts, however they were given.
//! let print = TextsFingerprint::of(["good food", "bad service"]);
//! assert_eq!(runner::TextsEntry::of(&print).count, 2);
//! ```
#![forbid(unsafe_code)]

pub mod envelope;
mod error;
pub mod job;
pub mod merge;
pub mod plan;
pub mod suite;
pub mod texts;
pub mod typo;

pub use envelope::{Document, ReportFile};
pub use error::Error;
pub use job::{Envelope, ProfileJob, ProfileOutput};
pub use merge::{MergeWarning, Merged, merge, merge_shards};
pub use plan::{PlannedText, SampleRequest};
pub use suite::SuiteFile;
pub use texts::{Record, TextsEntry, TextsFingerprint, TextsFormat, TextsInfo};
// The types a job's caller names.
pub use profile_stats;
pub use suite_core;

// The README's example is a doc test of this crate.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
