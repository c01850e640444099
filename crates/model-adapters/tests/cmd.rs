//! `cmd:` models: a Python subprocess speaking the JSONL protocol profiles exactly like the same
//! rule in process (decision API included, any chunk size), large batches stream both ways
//! without deadlock, and a crashing, silent or missing model fails with a message naming it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use scenario_rules::{SystemNeed, system_has};
use std::time::Duration;

use common::{fixture_model, plain_model, rule_model, student, suite, texts};
use model_adapters::{Error, ModelSpec, Settings, Task};
use serde_json::{Value, json};
use suite_core::Model;

fn open(mode: &str, settings: &Settings) -> model_adapters::Adapter {
    ModelSpec::parse(&fixture_model(mode, None))
        .unwrap()
        .open(settings)
        .unwrap()
}

fn profile_json(student: &dyn Model, teacher: &dyn Model, texts: &[String], chunk: usize) -> Value {
    let suite = suite();
    let mut run = capture::CaptureRun::new(student, teacher, &suite)
        .unwrap()
        .with_chunk_size(chunk);
    run.add(texts).unwrap();
    serde_json::to_value(run.profile().unwrap()).unwrap()
}

#[test]
fn cmd_models_profile_like_the_same_rule_in_process_for_any_chunk_size() {
    if !system_has(
        SystemNeed::Python3,
        "cmd_models_profile_like_the_same_rule_in_process_for_any_chunk_size",
    ) {
        return;
    }
    let settings = Settings::default();
    let library = profile_json(&student(), &rule_model(), &texts(), 4096);
    // The teacher escalates on short texts: its abstention comes from the subprocess's answers.
    assert!(
        library["abstention"]["teacher_escalation_rate"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    for chunk in [1, 2, 4096] {
        let teacher = open("rule", &settings);
        let cli = profile_json(&student(), &teacher, &texts(), chunk);
        assert_eq!(cli, library, "chunk size {chunk}");
        teacher.finish().unwrap();
    }
    // Both sides subprocesses, one without a decision API.
    let student_cmd = open("plain", &settings);
    let teacher = open("rule", &settings);
    assert_eq!(
        profile_json(&student_cmd, &teacher, &texts(), 3),
        profile_json(&plain_model(), &rule_model(), &texts(), 3)
    );
}

#[test]
fn cmd_extractors_answer_records() {
    if !system_has(SystemNeed::Python3, "cmd_extractors_answer_records") {
        return;
    }
    let settings = Settings {
        task: Task::Extract,
        ..Settings::default()
    };
    let model = open("record", &settings);
    assert_eq!(
        model.predict_batch(&["ab", "", "ünï"]).unwrap(),
        [json!({"len": 2}), json!({"len": 0}), json!({"len": 3})]
    );
    // The same program answering labels is refused for an extract run.
    let labels = open("plain", &settings);
    let err = labels.predict_batch(&["ab"]).unwrap_err().to_string();
    assert!(
        err.ends_with("output line 1 (text id 0): a record must be a JSON object, got \"neg\""),
        "{err}"
    );
    // A record holding capkit's own encoding of a Python value (the int 5) is refused, naming
    // the model, the output line and the text, rather than read as the int 5.
    let crafted = open("crafted", &settings);
    let err = crafted.predict_batch(&["ab"]).unwrap_err().to_string();
    let spec = fixture_model("crafted", None);
    assert!(
        err.contains(&format!(
            "`{spec}`: output line 1 (text id 0): the answer holds the key \"\\0capkit:py\""
        )),
        "{err}"
    );
}

#[test]
fn large_batches_stream_without_deadlock() {
    if !system_has(SystemNeed::Python3, "large_batches_stream_without_deadlock") {
        return;
    }
    // 21,000 texts in one batch: hundreds of kilobytes in both pipes at once, far more than a
    // pipe buffer holds, so the request writer and the answer reader must run together.
    let texts: Vec<String> = (0..21_000)
        .map(|i| {
            format!(
                "  text {i} is {} indeed ",
                if i % 3 == 0 { "Good" } else { "good" }
            )
        })
        .collect();
    let suite = suite_core::SuiteSpec::from_json_str(
        r#"{"invariances": [{"name": "case", "transform": "case_jitter"}]}"#,
    )
    .unwrap()
    .build()
    .unwrap();
    let teacher = open("plain", &Settings::default());
    let profile = capture::capture_profile(&student(), &teacher, &texts, &suite).unwrap();
    let library = capture::capture_profile(&student(), &plain_model(), &texts, &suite).unwrap();
    assert_eq!(profile, library);
    // "GOOD" after swapcase only for the texts with "good": two in three.
    let case = &profile.invariances["case"];
    assert_eq!(case.student_violation_rate, 2.0 / 3.0);
    assert_eq!(case.teacher_violation_rate, 0.0);
}

#[test]
fn a_crash_names_the_exit_status_and_the_last_stderr_line() {
    if !system_has(
        SystemNeed::Python3,
        "a_crash_names_the_exit_status_and_the_last_stderr_line",
    ) {
        return;
    }
    let model = open("crash", &Settings::default());
    let err = model.predict_batch(&["a", "b", "c", "d"]).unwrap_err();
    assert!(
        err.to_string().ends_with(
            "exited (exit status: 3) after 2 output lines, before answering text id 2; its last stderr line: RuntimeError: model fell over"
        ),
        "{err}"
    );
    // The process is gone: the adapter says so instead of hanging.
    let again = model.predict_batch(&["e"]).unwrap_err();
    assert!(
        again.to_string().ends_with("is no longer running"),
        "{again}"
    );
}

#[test]
fn a_silent_model_times_out() {
    if !system_has(SystemNeed::Python3, "a_silent_model_times_out") {
        return;
    }
    // The deadline also covers the interpreter's start before the first answer: long enough
    // for a loaded machine (0.8 s was not, at load 12), short enough for a test.
    let settings = Settings {
        timeout: Duration::from_millis(4000),
        ..Settings::default()
    };
    let model = open("hang", &settings);
    let err = model.predict_batch(&["a", "b", "c"]).unwrap_err();
    assert!(
        err.to_string().ends_with(
            "no answer for text id 1 within 4 s (after 1 output line); did the model flush its output after each answer line?"
        ),
        "{err}"
    );
}

#[test]
fn a_missing_program_cannot_start() {
    let err = ModelSpec::parse("cmd:./no-such-model --fast")
        .unwrap()
        .open(&Settings::default())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "model `cmd:./no-such-model --fast`: cannot start `./no-such-model`"
    );
    let Error::Start { source, .. } = err else {
        panic!("not a start error: {err:?}")
    };
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
}

#[test]
fn finish_ends_the_process() {
    if !system_has(SystemNeed::Python3, "finish_ends_the_process") {
        return;
    }
    let model = open("rule", &Settings::default());
    assert_eq!(
        model.predict_batch(&["good one", "bad"]).unwrap(),
        [json!("pos"), json!("neg")]
    );
    assert_eq!(
        model.decide_batch(&["good one"]).unwrap().unwrap(),
        [suite_core::Decision::Escalate]
    );
    model.finish().unwrap();
    let err = model.predict_batch(&["again"]).unwrap_err();
    assert!(err.to_string().ends_with("is no longer running"), "{err}");
}

#[test]
fn adapters_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<model_adapters::Adapter>();
    check::<model_adapters::Cached<model_adapters::Adapter>>();
}
