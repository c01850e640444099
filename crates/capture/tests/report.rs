//! The opt-in report: its profile is `capture_profile`'s, its counts merge (a property over random
//! splits), and `compare_students` asks the teacher once per distinct text. Chunked profiles: the
//! same profile, report and comparison whatever the chunk size, and a clean text repeated in a
//! later chunk reaches no model again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::RefCell;

use std::collections::HashMap;

mod common;

use common::{WORDS, student, suite, teacher, text};

use capture::{
    CaptureRun, capture_profile, capture_profile_report, compare_students, compare_students_chunked,
};
use proptest::prelude::*;
use serde_json::json;
use suite_core::{CapabilitySuite, Decision, Label, Model, ModelError, PerItemFn, Transform};

fn other_student(t: &str) -> Label {
    json!(t.len().is_multiple_of(3))
}

fn decide(t: &str) -> Decision {
    if t.split_whitespace().count() < 3 {
        Decision::Escalate
    } else {
        Decision::Answer(student(t))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn merge_of_reports_over_a_split_is_the_report_over_all_texts(
        texts in prop::collection::vec(text(), 0..24),
        cut in any::<prop::sample::Index>(),
    ) {
        let s = PerItemFn::new(student).with_decide(decide);
        let t = PerItemFn::new(teacher);
        let suite = suite();
        let cut = cut.index(texts.len() + 1);
        let a = capture_profile_report(&s, &t, &texts[..cut], &suite).unwrap();
        let b = capture_profile_report(&s, &t, &texts[cut..], &suite).unwrap();
        let all = capture_profile_report(&s, &t, &texts, &suite).unwrap();
        let merged = a.merge(&b).unwrap();
        prop_assert_eq!(&merged, &all);
        prop_assert_eq!(merged.to_json(), all.to_json());
        // The report's profile is capture_profile's, bit for bit.
        prop_assert_eq!(all.capture_profile().unwrap(), capture_profile(&s, &t, &texts, &suite).unwrap());
    }
}

#[test]
fn the_report_carries_severities_curves_and_abstention() {
    let s = PerItemFn::new(student).with_decide(decide);
    let t = PerItemFn::new(teacher);
    let texts = [
        "the food was good",
        "Good service",
        "fine food and good service",
        "bad",
        "the service was bad",
    ];
    let json = capture_profile_report(&s, &t, &texts, &suite())
        .unwrap()
        .to_json();
    assert_eq!(json["format"], "capkit-profile-report/1");
    assert_eq!(
        json["suite"]["corruptions"][1],
        json!({"name": "typo_40", "family": "keyboard_typo", "severity": 0.4})
    );
    assert_eq!(json["corruptions"]["drop_vowels"]["family"], "drop");
    let curve = &json["curves"]["keyboard_typo"];
    assert_eq!(curve["points"][0]["stages"], json!(["clean"]));
    assert_eq!(curve["points"][2]["severity"], 0.4);
    assert!(curve["auc"].as_f64().is_some());
    assert_eq!(
        json["curves"]["drop"]["points"].as_array().unwrap().len(),
        2
    );
    // The student escalates the two short texts: "Good service", where it disagrees with the
    // teacher, and "bad", where it agrees.
    let a = &json["counts"]["abstention"];
    assert_eq!(a["student_decides"], true);
    assert_eq!(a["teacher_decides"], false);
    assert_eq!(
        a["student_only_escalated"],
        json!({"agree": 1, "disagree": 1})
    );
    assert_eq!(a["both_answered"], json!({"agree": 3, "disagree": 0}));
    assert_eq!(
        json["abstention"]["student"]["escalated_where_disagreeing"]["estimate"],
        0.5
    );
    assert_eq!(json["abstention"]["teacher"], json!(null));
    assert_eq!(
        json["profile"]["abstention"],
        json!({"student_escalation_rate": 0.4, "teacher_escalation_rate": null})
    );
}

/// Records every text it is asked about.
struct Logging<'a, F>(&'a RefCell<Vec<String>>, F);

impl<F: Fn(&str) -> Label> Model for Logging<'_, F> {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        self.0
            .borrow_mut()
            .extend(texts.iter().map(|t| t.to_string()));
        Ok(texts.iter().map(|t| (self.1)(t)).collect())
    }
}

#[test]
fn compare_students_asks_the_teacher_once_per_text_and_pairs_the_students() {
    let log = RefCell::new(Vec::new());
    let t = Logging(&log, teacher);
    let a = PerItemFn::new(student);
    let b = PerItemFn::new(teacher);
    let c = PerItemFn::new(|_: &str| json!("neg"));
    let texts: Vec<String> = (0..30)
        .map(|i| format!("{} service {i}", WORDS[i % WORDS.len()]))
        .collect();
    let suite = suite();
    let students: [(&str, &dyn Model); 3] = [("a", &a), ("b", &b), ("c", &c)];
    let comparison = compare_students(&t, &students, &texts, &suite).unwrap();
    let asked = log.borrow().clone();
    let mut distinct = asked.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(asked.len(), distinct.len(), "the teacher saw a text twice");

    // Each student's report is its own profile against the teacher.
    for (name, model) in students {
        let alone = capture_profile(model, &t, &texts, &suite).unwrap();
        assert_eq!(comparison.students[name].capture_profile().unwrap(), alone);
    }
    let json = comparison.to_json();
    assert_eq!(json["format"], "capkit-profile-comparison/1");
    let pairs: Vec<(String, String)> = comparison
        .pairs
        .iter()
        .map(|p| (p.first.clone(), p.second.clone()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("a".into(), "b".into()),
            ("a".into(), "c".into()),
            ("b".into(), "c".into())
        ]
    );
    // "b" is the teacher: it always agrees, so a − b is minus a's disagreement rate.
    let ab = &json["pairs"][0]["clean"];
    let a_agreement = comparison.students["a"]
        .capture_profile()
        .unwrap()
        .clean_agreement;
    let difference = ab["difference"]["estimate"].as_f64().unwrap();
    assert!(
        (difference - (a_agreement - 1.0)).abs() < 1e-12,
        "{difference}"
    );
    assert_eq!(
        json["pairs"][0]["counts"]["clean"]["agree"]["first_only"],
        0
    );
    // Comparisons merge like reports.
    let (x, y) = texts.split_at(11);
    let merged = compare_students(&t, &students, x, &suite)
        .unwrap()
        .merge(&compare_students(&t, &students, y, &suite).unwrap())
        .unwrap();
    assert_eq!(merged, comparison);
    assert_eq!(profile_stats_roundtrip(&json), comparison);
}

fn profile_stats_roundtrip(json: &serde_json::Value) -> capture::Comparison {
    capture::Comparison::from_json(json).unwrap()
}

#[test]
fn compare_students_refuses_twin_names_and_names_a_failing_student() {
    let t = PerItemFn::new(teacher);
    let a = PerItemFn::new(student);
    let suite = CapabilitySuite::new();
    let twins: [(&str, &dyn Model); 2] = [("a", &a), ("a", &a)];
    assert_eq!(
        compare_students(&t, &twins, &["x"], &suite)
            .unwrap_err()
            .to_string(),
        "the student name `a` is used twice"
    );
    struct Broken;
    impl Model for Broken {
        fn predict_batch(&self, _: &[&str]) -> Result<Vec<Label>, ModelError> {
            Err("no GPU".into())
        }
    }
    let students: [(&str, &dyn Model); 2] = [("a", &a), ("broken", &Broken)];
    assert_eq!(
        compare_students(&t, &students, &["x"], &suite)
            .unwrap_err()
            .to_string(),
        "student `broken`: student model failed on the clean texts: no GPU"
    );
}

/// Few words, so texts repeat within and across chunks (and some equal a probe).
fn short_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS[..6].to_vec()), 1..3).prop_map(|w| w.join(" "))
}

fn report(texts: &[String], chunk: usize, pieces: usize) -> serde_json::Value {
    let s = PerItemFn::new(student).with_decide(decide);
    let t = PerItemFn::new(teacher);
    let suite = suite();
    let mut run = CaptureRun::new(&s, &t, &suite)
        .unwrap()
        .with_chunk_size(chunk);
    for piece in texts.chunks(pieces.max(1)) {
        run.add(piece).unwrap();
    }
    run.report().unwrap().to_json()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn the_report_is_the_same_for_every_chunk_size(
        texts in prop::collection::vec(short_text(), 0..30),
        pieces in 1usize..40,
    ) {
        let n = texts.len().max(1);
        let whole = report(&texts, n, n);
        for chunk in [1, 7, n] {
            prop_assert_eq!(&report(&texts, chunk, n), &whole, "chunk size {}", chunk);
            prop_assert_eq!(&report(&texts, chunk, pieces), &whole, "chunk size {} in pieces of {}", chunk, pieces);
        }
    }

    #[test]
    fn comparisons_are_the_same_for_every_chunk_size(
        texts in prop::collection::vec(short_text(), 0..30),
    ) {
        let t = PerItemFn::new(teacher);
        let a = PerItemFn::new(student).with_decide(decide);
        let b = PerItemFn::new(other_student);
        let students: [(&str, &dyn Model); 2] = [("a", &a), ("b", &b)];
        let suite = suite();
        let whole = compare_students(&t, &students, &texts, &suite).unwrap().to_json();
        for chunk in [1, 7] {
            let chunked = compare_students_chunked(&t, &students, texts.chunks(chunk), &suite).unwrap();
            prop_assert_eq!(&chunked.to_json(), &whole, "chunk size {}", chunk);
        }
    }
}

/// A model that counts how often it is asked about each text.
struct Counting<'a> {
    asked: &'a RefCell<HashMap<String, usize>>,
}

impl Model for Counting<'_> {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, suite_core::ModelError> {
        let mut asked = self.asked.borrow_mut();
        for t in texts {
            *asked.entry((*t).to_owned()).or_default() += 1;
        }
        Ok(texts.iter().map(|t| student(t)).collect())
    }
    fn decide_batch(
        &self,
        texts: &[&str],
    ) -> Option<Result<Vec<Decision>, suite_core::ModelError>> {
        Some(Ok(texts.iter().map(|t| decide(t)).collect()))
    }
}

#[test]
fn repeated_clean_texts_of_later_chunks_are_predicted_once() {
    let asked = RefCell::new(HashMap::new());
    let s = Counting { asked: &asked };
    let t = PerItemFn::new(teacher);
    let mut suite = CapabilitySuite::new();
    // Transforms that never meet another text: every text is asked about exactly once.
    suite.add_corruption("mark", Transform::new(|t| format!("{t}#")));
    suite.add_invariance(
        "upper",
        Transform::new(|t| format!("{}!", t.to_uppercase())),
    );
    suite.add_probe("good");
    let texts = [
        "good",
        "bad",
        "good food",
        "bad",
        "good",
        "good food",
        "bad",
    ];
    let mut run = CaptureRun::new(&s, &t, &suite).unwrap().with_chunk_size(2);
    run.add(&texts).unwrap();
    let chunked = run.report().unwrap();
    assert!(
        asked.borrow().values().all(|&n| n == 1),
        "{:?}",
        asked.borrow()
    );
    assert_eq!(
        asked.borrow().len(),
        3 * 3,
        "3 distinct texts, 3 stages each"
    );
    assert_eq!(
        chunked,
        capture::capture_profile_report(&s, &t, &texts, &suite).unwrap()
    );
}

#[test]
fn shared_labels_give_the_same_profile() {
    let pos = std::sync::Arc::new(json!("pos"));
    let neg = std::sync::Arc::new(json!("neg"));
    let shared = PerItemFn::new(move |t: &str| {
        if t.contains("good") {
            std::sync::Arc::clone(&pos)
        } else {
            std::sync::Arc::clone(&neg)
        }
    });
    let owned = PerItemFn::new(student);
    let t = PerItemFn::new(teacher);
    let texts = ["good", "bad", "good food", "Good", "fine"];
    let suite = suite();
    assert_eq!(
        capture::capture_profile(&shared, &t, &texts, &suite).unwrap(),
        capture::capture_profile(&owned, &t, &texts, &suite).unwrap()
    );
}
