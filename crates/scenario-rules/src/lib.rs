//! `scenario-rules`: test support for the upstream capability scenarios (not a user-facing crate).
//!
//! The golden scenarios of `capture` and `extractive` describe their students and teachers as
//! small rule programs (`"if"`, `"first_match"`, `"fields"` with `"after"` markers, …) and their
//! suites as named deterministic transforms (`drop_every_3rd`, `typo_r0.1_s1`, …); the vocabulary
//! is defined in the reference data's `vocabulary.json`. This crate interprets them, so every
//! conformance test — and the example model binaries — use one implementation.
//!
//! It also holds the suite of workloads A and B (docs/performance.md#workloads), small fixture
//! helpers, and a JSON
//! server on 127.0.0.1 for the tests of `http:` and `openai:` models ([`serve`],
//! [`model_server`]), and [`system_has`]: whether a test that needs a system package (Python,
//! WordNet) runs here, skips (outside CI) or fails (under CI).
//!
//! Scenario descriptions are trusted test data: malformed ones are reported as [`RuleError`]s.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod fixtures;
mod perf;
mod rules;
mod server;
mod system;
mod transforms;

pub use fixtures::{assert_key_order, keys_at, load_fixture, strings};
pub use perf::{peak_rss_mb, thread_cpu_ns, workload_suite};
pub use rules::{RuleError, RuleModel};
pub use server::{Handler, Received, model_server, serve};
pub use system::{SystemNeed, system_has};
pub use transforms::{suite_from_scenario, transform_by_name};
