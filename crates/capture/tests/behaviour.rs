//! Behaviour beyond the upstream goldens: model calls, errors, the JSON shape.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::RefCell;

use capture::capture_profile;
use serde_json::json;
use suite_core::{
    BatchFn, CapabilitySuite, Decision, Label, Model, ModelError, PerItemFn, Transform,
    case_jitter_invariance, keyboard_typo_corruption,
};

/// Records every text it is asked to predict.
struct Logging<'a>(&'a RefCell<Vec<String>>);

impl Model for Logging<'_> {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        self.0
            .borrow_mut()
            .extend(texts.iter().map(|t| t.to_string()));
        Ok(texts.iter().map(|t| json!(t.len() % 2)).collect())
    }
}

#[test]
fn each_distinct_text_reaches_each_model_once() {
    let log = RefCell::new(Vec::new());
    let student = Logging(&log);
    let teacher = PerItemFn::new(|t: &str| json!(t.len() % 2));
    let mut suite = CapabilitySuite::new();
    suite.add_corruption("same", Transform::new(str::to_owned));
    suite.add_corruption("typo", keyboard_typo_corruption(0.5, 1).unwrap());
    suite.add_invariance("case", case_jitter_invariance());
    suite.add_probe("abc");
    suite.add_probe("xyz");
    let texts = ["abc", "Abc", "abc", "xyz"];
    let profile = capture_profile(&student, &teacher, &texts, &suite).unwrap();
    let log = log.into_inner();
    let mut distinct = log.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        log.len(),
        distinct.len(),
        "a text was predicted twice: {log:?}"
    );
    assert!(log.contains(&"aBC".to_owned()) && log.contains(&"ABC".to_owned()));
    assert_eq!(profile.corruptions["same"], profile.clean_agreement);
}

#[test]
fn a_model_error_names_the_side_and_stage_and_returns_no_profile() {
    let student = PerItemFn::new(|_: &str| json!("x"));
    let teacher = BatchFn::new(|ts: &[&str]| {
        if ts.iter().any(|t| t.contains('!')) {
            vec![]
        } else {
            vec![json!("x"); ts.len()]
        }
    });
    let mut suite = CapabilitySuite::new();
    suite.add_corruption("bang", Transform::new(|t| format!("{t}!")));
    let err = capture_profile(&student, &teacher, &["a", "b"], &suite).unwrap_err();
    assert_eq!(
        err.to_string(),
        "teacher model returned 0 predictions for 2 texts on the corruption `bang`"
    );
}

#[test]
fn abstention_is_null_for_a_side_without_decisions_and_absent_without_any() {
    let plain = PerItemFn::new(|_: &str| json!("x"));
    let deciding = PerItemFn::new(|_: &str| json!("x")).with_decide(|t: &str| {
        if t.len() < 2 {
            Decision::Escalate
        } else {
            Decision::Answer(json!("x"))
        }
    });
    let suite = CapabilitySuite::new();
    let p = capture_profile(&deciding, &plain, &["a", "bb", "a", "cc"], &suite).unwrap();
    let v = serde_json::to_value(&p).unwrap();
    assert_eq!(
        v["abstention"],
        json!({"student_escalation_rate": 0.5, "teacher_escalation_rate": null})
    );
    let q = serde_json::to_value(capture_profile(&plain, &plain, &["a"], &suite).unwrap()).unwrap();
    assert!(q.get("abstention").is_none() && q.get("probes").is_none());
}

#[test]
fn empty_texts_give_zero_rates_but_still_run_probes() {
    let m = PerItemFn::new(|t: &str| json!(t));
    let mut suite = CapabilitySuite::new();
    suite.add_corruption("typo", keyboard_typo_corruption(0.1, 0).unwrap());
    suite.add_probe("p");
    let texts: [&str; 0] = [];
    let p = capture_profile(&m, &m, &texts, &suite).unwrap();
    assert_eq!((p.clean_agreement, p.corruptions["typo"]), (0.0, 0.0));
    assert_eq!(p.probes.unwrap().student, [json!("p")]);
}
