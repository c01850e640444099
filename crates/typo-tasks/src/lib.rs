//! `typo-tasks`: typo generators as exact, learnable tasks — the corpus harness.
//!
//! The 22 generators themselves (each a total, deterministic map from a name to the set of names
//! it derives: the oracle a model's answer is scored against), their data and keyboard layouts
//! are the crate `capkit-typo-generators` (`typo_generators`); see its documentation for the
//! tasks, what each needs ([`Needs`]: rules learnable from examples, or language and keyboard
//! tables to memorise), where the shipped English data came from, and where they differ from
//! upstream on purpose.
//!
//! # Moved to `typo-generators` (re-exported here)
//!
//! Every generator item ([`Data`], [`FIELDS`], [`Error`], [`Keyboard`], [`MAX_NAME_LEN`],
//! [`NUMERAL_WALK_LIMIT`], [`Needs`], [`Registry`], [`Unregistered`], [`CATALOG`], [`Table`],
//! [`Task`], [`TaskInfo`], [`task_info`], [`Variant`], [`push_json_str`]) now lives in
//! `typo_generators` and is re-exported here so every `typo_tasks::…` path keeps working.
//! **Deprecated paths, for one release (0.1 → 0.2):** code that needs only the oracles should
//! depend on `capkit-typo-generators` and `use typo_generators::…`; the harness's own
//! signatures keep naming these types, so the re-exports of those stay.
//!
//! ```
//! use typo_tasks::{Data, Registry};
//! let registry = Registry::new(&Data::english());
//! let hi = registry.get("hi").unwrap();
//! let got: Vec<String> = hi.expect("ab").iter().map(ToString::to_string).collect();
//! assert_eq!(got, ["-ab", "a-b", "ab-"]);
//! ```
//!
//! # The learnable-data harness
//!
//! Around the oracles, the crate turns tasks into data an ML team trains and scores against, bit
//! for bit with upstream's `aitypo` package:
//!
//! * [`select`] chooses tasks by id (unknown ids named, blank selections refused, id order);
//!   [`emit`] / [`emit_with_empty`] give one [`Example`] per (input, task) with the whole
//!   expected set, corpus order then task order.
//! * [`assign`] / [`Splitter`]: stable train/val/test splits from SHA-256(salt ‖ 0x00 ‖ input),
//!   grouped by input, so a name never straddles splits ([`leakage`] checks) and adding names
//!   never moves existing ones.
//! * [`write_jsonl`] / [`encode_example`]: the exact bytes of upstream's `WriteJSONL` (Go
//!   escaping, field order, `null` for an empty set); an example that cannot round-trip (a `bf`
//!   variant that is not UTF-8) is refused before anything is written. [`read_jsonl`] /
//!   [`JsonlReader`] name the line of every error.
//! * [`score`]: strict whole-set scoring (precision, recall, F1, exact) with upstream's empty-set
//!   conventions; [`summarize`] macro-averages per task and labels each summary with its
//!   [`Needs`] from the registry, refusing tasks the registry lacks, so a memorised table is never
//!   reported as a learned rule.
//! * [`describe`] / [`Stats`] count a corpus; [`Fingerprint`] (BLAKE3 of the JSONL bytes)
//!   identifies it.
//! * [`write_jsonl_stream`]: a whole corpus as JSONL in bounded memory on every core (chunks
//!   of names generated in parallel, written in corpus order: the bytes of [`emit`],
//!   [`assign`] and [`write_jsonl`] over the same names), with its [`Stats`] and
//!   [`Fingerprint`]; names come from any [`NameSource`] (`capkit typo emit`'s corpus file,
//!   or a [`NameList`] in memory).
//!
//! ```
//! use typo_tasks::{DEFAULT_RATIO, Data, Registry, assign, emit, select, write_jsonl};
//! let registry = Registry::new(&Data::default());
//! let tasks = select(&registry, &["co,hi"]).unwrap();
//! let mut corpus = emit(&tasks, ["ab", "x.io"], "demo");
//! assign(&mut corpus, DEFAULT_RATIO, "");
//! let mut jsonl = Vec::new();
//! write_jsonl(&mut jsonl, &corpus).unwrap();
//! assert!(jsonl.starts_with(b"{\"task\":\"co\",\"input\":\"ab\",\"expect\":[\"a\",\"b\"],\"split\":"));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod emit;
mod example;
mod harness_error;
mod jsonl;
mod prediction;
mod quote;
mod score;
mod select;
mod split;
mod stats;
mod stream;

// The generators, re-exported (see "Moved to `typo-generators`" above).
pub use typo_generators::{
    CATALOG, Data, Error, FIELDS, Keyboard, MAX_NAME_LEN, NUMERAL_WALK_LIMIT, Needs, Registry,
    Table, Task, TaskInfo, Unregistered, Variant, push_json_str, task_info,
};

pub use emit::{emit, emit_input, emit_with_empty};
pub use example::{Example, ExampleRef, filter};
pub use harness_error::HarnessError;
pub use jsonl::{
    JsonlReader, MAX_LINE_BYTES, check_representable, encode_example, encode_example_ref,
    parse_line, read_jsonl, representable, write_jsonl,
};
pub use prediction::{PREDICTION_FIELDS, Prediction, parse_prediction};
pub use score::{ScoreResult, Summarizer, Summary, Tally, score, score_against, summarize};
pub use select::select;
pub use split::{
    DEFAULT_RATIO, Ratio, Splitter, TEST, TRAIN, VAL, assign, leakage, split_hash, split_position,
};
pub use stats::{Fingerprint, FingerprintWriter, Stats, StatsBuilder, describe};
pub use stream::{NameList, NameSource, StreamError, StreamOptions, Streamed, write_jsonl_stream};
