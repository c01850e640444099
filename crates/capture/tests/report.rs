//! The opt-in report: its profile is `capture_profile`'s, its counts merge (a property over random
//! splits), and `compare_students` asks the teacher once per distinct text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::RefCell;

use capture::{capture_profile, capture_profile_report, compare_students};
use proptest::prelude::*;
use serde_json::json;
use suite_core::{
    CapabilitySuite, Decision, Label, Model, ModelError, PerItemFn, Transform,
    case_jitter_invariance, keyboard_typo_corruption, whitespace_invariance,
};

fn suite() -> CapabilitySuite {
    let mut suite = CapabilitySuite::new();
    suite.add_corruption("typo_10", keyboard_typo_corruption(0.1, 0).unwrap());
    suite.add_corruption("typo_40", keyboard_typo_corruption(0.4, 0).unwrap());
    suite.add_corruption(
        "drop_vowels",
        Transform::new(|t| t.replace(['a', 'e', 'i', 'o', 'u'], ""))
            .with_severity("drop", 1.0)
            .unwrap(),
    );
    suite.add_invariance("case", case_jitter_invariance());
    suite.add_invariance("space", whitespace_invariance());
    suite.add_probe("");
    suite.add_probe("good");
    suite
}

fn student(t: &str) -> Label {
    json!(if t.contains("good") { "pos" } else { "neg" })
}

fn teacher(t: &str) -> Label {
    json!(if t.to_lowercase().contains("good") || t.contains("fine") {
        "pos"
    } else {
        "neg"
    })
}

fn decide(t: &str) -> Decision {
    if t.split_whitespace().count() < 3 {
        Decision::Escalate
    } else {
        Decision::Answer(student(t))
    }
}

const WORDS: [&str; 8] = [
    "good", "Good", "fine", "bad", "food", "  the", "GOOD", "service",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS.to_vec()), 1..6).prop_map(|w| w.join(" "))
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
