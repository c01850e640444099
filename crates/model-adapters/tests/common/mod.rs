//! Shared by the adapters' integration tests: the fixture model, reference models, a suite, and
//! (from `scenario-rules`) a JSON server on 127.0.0.1.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use suite_core::{CapabilitySuite, Decision, PerItemFn, SuiteSpec};

/// The `cmd:` spec of `tests/fixtures/model.py MODE [LOG]`.
pub fn fixture_model(mode: &str, log: Option<&Path>) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/model.py");
    let mut argv = vec![
        "python3".to_owned(),
        script.display().to_string(),
        mode.to_owned(),
    ];
    if let Some(log) = log {
        argv.push(log.display().to_string());
    }
    model_adapters::ModelSpec::cmd(argv).unwrap().to_string()
}

/// The fixture's `rule` labels.
pub fn rule_label(text: &str) -> Value {
    json!(if text.to_lowercase().contains("good") {
        "pos"
    } else {
        "neg"
    })
}

/// The fixture's `rule` model in process, decision API included.
pub fn rule_model() -> PerItemFn<impl Fn(&str) -> Value> {
    PerItemFn::new(rule_label).with_decide(|t: &str| {
        if t.split_whitespace().count() < 3 {
            Decision::Escalate
        } else {
            Decision::Answer(rule_label(t))
        }
    })
}

/// The fixture's `plain` model in process: the same labels, no decision API.
pub fn plain_model() -> PerItemFn<impl Fn(&str) -> Value> {
    PerItemFn::new(rule_label)
}

/// A case-sensitive student: 'pos' when the text contains 'good' as written.
pub fn student() -> PerItemFn<impl Fn(&str) -> Value> {
    PerItemFn::new(|t: &str| json!(if t.contains("good") { "pos" } else { "neg" }))
}

pub fn suite() -> CapabilitySuite {
    SuiteSpec::from_json_str(
        r#"{
          "corruptions": [{"name": "typo_20", "transform": "keyboard_typo", "rate": 0.2, "seed": 1}],
          "invariances": [{"name": "case", "transform": "case_jitter"},
                          {"name": "space", "transform": "whitespace"}],
          "probes": ["", "good", "GOOD"]
        }"#,
    )
    .unwrap()
    .build()
    .unwrap()
}

pub fn texts() -> Vec<String> {
    [
        "good food",
        "Good service and a smile",
        "bad  coffee",
        "the GOOD old days were good",
        "nothing to say here",
        "good",
        "  spaced   out  good text ",
    ]
    .iter()
    .map(|t| (*t).to_owned())
    .collect()
}

pub fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("capkit-adapters-{name}-"))
        .tempdir()
        .unwrap()
}

/// Every text the fixture model logged.
pub fn logged(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub use scenario_rules::serve;

/// The fixture's directory, for files a test writes beside nothing else.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}
