//! `file:` models: precomputed predictions profile like the model that made them (decisions
//! included); a missing prediction or a bad line is an error naming the file, line and text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::cell::RefCell;
use std::path::Path;

use common::{rule_model, student, suite, temp_dir, texts};
use model_adapters::{ModelSpec, Settings, Task};
use serde_json::{Value, json};
use suite_core::{BatchFn, Decision, Model};

/// Every distinct text a profile of `texts` under the test suite asks a model about.
fn asked_texts() -> Vec<String> {
    let seen = RefCell::new(Vec::<String>::new());
    let recorder = BatchFn::new(|batch: &[&str]| {
        seen.borrow_mut()
            .extend(batch.iter().map(|t| (*t).to_owned()));
        vec![json!("x"); batch.len()]
    });
    capture::capture_profile(&student(), &recorder, &texts(), &suite()).unwrap();
    let mut all = seen.into_inner();
    all.sort();
    all.dedup();
    all
}

fn open(path: &Path, task: Task) -> Result<model_adapters::Adapter, model_adapters::Error> {
    let settings = Settings {
        task,
        ..Settings::default()
    };
    ModelSpec::parse(&format!("file:{}", path.display()))
        .unwrap()
        .open(&settings)
}

#[test]
fn precomputed_predictions_profile_like_their_model() {
    let tmp = temp_dir("file");
    let model = rule_model();
    let mut lines = String::new();
    for text in asked_texts() {
        let label = model.predict_batch(&[&text]).unwrap().remove(0);
        let decision = match model.decide_batch(&[&text]).unwrap().unwrap().remove(0) {
            Decision::Escalate => Value::Null,
            Decision::Answer(v) => v,
        };
        lines.push_str(&format!(
            "{}\n",
            json!({"text": text, "label": label, "decision": decision})
        ));
        // A repeated identical line is fine.
        lines.push_str(&format!(
            "{}\n\n",
            json!({"text": text, "label": label, "decision": decision})
        ));
    }
    let path = tmp.path().join("teacher.jsonl");
    std::fs::write(&path, lines).unwrap();
    let teacher = open(&path, Task::Classify).unwrap();
    assert_eq!(
        teacher.cache_identity(),
        None,
        "precomputed: nothing to cache"
    );
    let suite = suite();
    assert_eq!(
        capture::capture_profile(&student(), &teacher, &texts(), &suite).unwrap(),
        capture::capture_profile(&student(), &model, &texts(), &suite).unwrap()
    );
}

#[test]
fn a_missing_prediction_names_the_text_and_counts_the_others() {
    let tmp = temp_dir("file-missing");
    let path = tmp.path().join("p.jsonl");
    std::fs::write(&path, "{\"text\": \"good one\", \"label\": \"pos\"}\n").unwrap();
    let model = open(&path, Task::Classify).unwrap();
    let err = model
        .predict_batch(&["good one", "bad one", "x", "y"])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "`file:{}` has no prediction for the text \"bad one\" (and 2 more texts of this stage)",
            path.display()
        )
    );
}

#[test]
fn bad_lines_name_the_file_and_line() {
    let tmp = temp_dir("file-bad");
    let path = tmp.path().join("p.jsonl");
    let check = |content: &str, task: Task, expected: &str| {
        std::fs::write(&path, content).unwrap();
        let err = open(&path, task).unwrap_err().to_string();
        let expected = expected.replace("PATH", &path.display().to_string());
        assert_eq!(err, expected);
    };
    let ok = "{\"text\": \"a\", \"label\": \"pos\"}\n";
    check(
        &format!("{ok}{{\"text\": \"b\""),
        Task::Classify,
        "model `file:PATH`: PATH:2: not valid JSON: EOF while parsing an object at line 1 column 12",
    );
    check(
        &format!("{ok}[1]\n"),
        Task::Classify,
        "model `file:PATH`: PATH:2: expected a JSON object",
    );
    check(
        "{\"label\": \"pos\"}\n",
        Task::Classify,
        "model `file:PATH`: PATH:1: no string \"text\"",
    );
    check(
        "{\"text\": \"a\", \"label\": 1, \"record\": {}}\n",
        Task::Classify,
        "model `file:PATH`: PATH:1: both \"label\" and \"record\"",
    );
    check(
        "{\"text\": \"a\"}\n",
        Task::Classify,
        "model `file:PATH`: PATH:1: no \"label\" (or \"record\")",
    );
    check(
        &format!("{ok}\n{{\"text\": \"a\", \"label\": \"neg\"}}\n"),
        Task::Classify,
        "model `file:PATH`: PATH:3: a different prediction for \"a\" than on line 1",
    );
    check(
        ok,
        Task::Extract,
        "model `file:PATH`: PATH:1: a record must be a JSON object, got \"pos\"",
    );
    check(
        &format!("{ok}{{\"text\": \"b\", \"label\": \"pos\", \"decision\": null}}\n"),
        Task::Classify,
        "model `file:PATH`: 1 of 2 predictions have a \"decision\"; give it on every line or none",
    );
    let missing = tmp.path().join("none.jsonl");
    let err = open(&missing, Task::Classify).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("model `file:{}`: {}", missing.display(), missing.display())
    );
    assert!(std::error::Error::source(&err).is_some());
}
