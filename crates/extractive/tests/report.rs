//! The opt-in counts report: its profile is `extractive_capture_profile`'s, its counts merge (a
//! property over random splits), and `compare_students` asks the teacher once per text. Chunked
//! profiles: the same profile, field breakdown, report and comparison whatever the chunk size.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::RefCell;

use extractive::{
    ExtractRun, compare_students, compare_students_chunked, extractive_capture_profile,
    extractive_capture_report, extractive_profile_report, extractive_profile_report_with_fields,
    merge_field_breakdowns,
};
use proptest::prelude::*;
use serde_json::{Value, json};
use suite_core::{
    CapabilitySuite, Decision, Label, Model, ModelError, PerItemFn, case_jitter_invariance,
    keyboard_typo_corruption, whitespace_invariance,
};

fn suite() -> CapabilitySuite {
    let mut suite = CapabilitySuite::new();
    suite.add_corruption("typo_10", keyboard_typo_corruption(0.1, 0).unwrap());
    suite.add_corruption("typo_30", keyboard_typo_corruption(0.3, 0).unwrap());
    suite.add_invariance("case", case_jitter_invariance());
    suite.add_invariance("space", whitespace_invariance());
    suite
}

/// `name: X city: Y` style records: the teacher reads both fields case-insensitively.
fn teacher(t: &str) -> Label {
    let words: Vec<&str> = t.split_whitespace().collect();
    let after = |key: &str| {
        words
            .iter()
            .position(|w| w.eq_ignore_ascii_case(key))
            .and_then(|i| words.get(i + 1))
            .map_or(Value::Null, |w| json!(w))
    };
    json!({"name": after("name:"), "city": after("city:")})
}

/// The student only knows lower-case keys, and adds a field of its own on long texts.
fn student(t: &str) -> Label {
    let words: Vec<&str> = t.split_whitespace().collect();
    let after = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
            .map_or(Value::Null, |w| json!(w))
    };
    let mut record = json!({"name": after("name:"), "city": after("city:")});
    if words.len() > 4 {
        record["extra"] = json!(true);
    }
    record
}

fn after_key(words: &[&str], key: &str, exact: bool) -> Value {
    words
        .iter()
        .position(|w| {
            if exact {
                *w == key
            } else {
                w.eq_ignore_ascii_case(key)
            }
        })
        .and_then(|i| words.get(i + 1))
        .map_or(Value::Null, |w| json!(w))
}

fn other_student(t: &str) -> Label {
    let words: Vec<&str> = t.split_whitespace().collect();
    json!({"city": after_key(&words, "city:", false), "name": after_key(&words, "name:", true)})
}

fn decide(t: &str) -> Decision {
    if t.len() < 12 {
        Decision::Escalate
    } else {
        Decision::Answer(student(t))
    }
}

const WORDS: [&str; 7] = ["name:", "NAME:", "city:", "ann", "Paris", "bob", "x"];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS.to_vec()), 1..7).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn merge_of_reports_over_a_split_is_the_report_over_all_texts(
        texts in prop::collection::vec(text(), 0..20),
        cut in any::<prop::sample::Index>(),
    ) {
        let s = PerItemFn::new(student).with_decide(decide);
        let t = PerItemFn::new(teacher);
        let suite = suite();
        let fields = ["name", "city"];
        let cut = cut.index(texts.len() + 1);
        let a = extractive_profile_report(&s, &t, &texts[..cut], &suite, &fields).unwrap();
        let b = extractive_profile_report(&s, &t, &texts[cut..], &suite, &fields).unwrap();
        let all = extractive_profile_report(&s, &t, &texts, &suite, &fields).unwrap();
        let merged = a.merge(&b).unwrap();
        prop_assert_eq!(&merged, &all);
        prop_assert_eq!(merged.to_json(), all.to_json());
        prop_assert_eq!(
            all.extractive_profile().unwrap(),
            extractive_capture_profile(&s, &t, &texts, &suite, &fields).unwrap()
        );
    }

    /// Per-field breakdowns add up like the counts, and come with the report in one pass.
    #[test]
    fn merged_field_breakdowns_are_the_breakdown_over_all_texts(
        texts in prop::collection::vec(text(), 0..20),
        cut in any::<prop::sample::Index>(),
    ) {
        let s = PerItemFn::new(student);
        let t = PerItemFn::new(teacher);
        let suite = suite();
        let fields = ["name", "city"];
        let cut = cut.index(texts.len() + 1);
        let breakdown = |texts: &[String]| {
            extractive_capture_report(&s, &t, texts, &suite, &fields).unwrap().fields
        };
        let all = breakdown(&texts);
        prop_assert_eq!(merge_field_breakdowns(&breakdown(&texts[..cut]), &breakdown(&texts[cut..])), all.clone());
        let (report, fields_too) = extractive_profile_report_with_fields(&s, &t, &texts, &suite, &fields).unwrap();
        prop_assert_eq!(report, extractive_profile_report(&s, &t, &texts, &suite, &fields).unwrap());
        prop_assert_eq!(fields_too, all);
    }
}

#[test]
fn the_report_has_f1_intervals_exact_match_tests_and_curves() {
    let s = PerItemFn::new(student);
    let t = PerItemFn::new(teacher);
    let texts = [
        "name: ann city: Paris",
        "NAME: bob city: x",
        "name: bob",
        "city: Paris name: ann and more words",
    ];
    let json = extractive_profile_report(&s, &t, &texts, &suite(), &["name", "city"])
        .unwrap()
        .to_json();
    assert_eq!(json["task"], "extract");
    // Clean: text 1 exact (2 TP), text 2 misses the name (1 TP, 1 FN), text 3 exact (null city
    // agrees), text 4 adds `extra` (2 TP, 1 FP).
    assert_eq!(
        json["counts"]["clean"]["student"],
        json!({"tp": 7, "fp": 1, "fn": 1, "tp_sq": 13, "tp_err": 3, "err_sq": 2})
    );
    assert_eq!(json["counts"]["clean"]["exact"], 2);
    assert_eq!(json["clean"]["f1"]["estimate"], 14.0 / 16.0);
    assert_eq!(json["clean"]["exact_match"]["estimate"], 0.5);
    assert_eq!(json["curves"]["keyboard_typo"]["metric"], "f1");
    assert_eq!(
        json["corruptions"]["typo_30"]["clean_vs_corrupted"]["test"],
        "mcnemar_score"
    );
    // Swapped case changes every value the teacher extracts; single spaces change nothing.
    assert_eq!(
        json["invariances"]["case"]["teacher_violation"]["estimate"],
        1.0
    );
    let space = &json["invariances"]["space"];
    assert_eq!(space["student_violation"]["estimate"], 0.0);
    assert_eq!(space["student_vs_teacher"]["p"], 1.0);
}

/// Records every text it is asked about.
struct Logging<'a>(&'a RefCell<Vec<String>>);

impl Model for Logging<'_> {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        self.0
            .borrow_mut()
            .extend(texts.iter().map(|t| t.to_string()));
        Ok(texts.iter().map(|t| teacher(t)).collect())
    }
}

#[test]
fn compare_students_asks_the_teacher_once_and_pairs_exact_matches() {
    let log = RefCell::new(Vec::new());
    let t = Logging(&log);
    let a = PerItemFn::new(student);
    let b = PerItemFn::new(teacher);
    let texts: Vec<String> = (0..24)
        .map(|i| {
            format!(
                "{} {} city: {}",
                WORDS[i % 2],
                WORDS[3 + i % 3],
                WORDS[4 + i % 3]
            )
        })
        .collect();
    let suite = suite();
    let students: [(&str, &dyn Model); 2] = [("student", &a), ("teacher-copy", &b)];
    let comparison = compare_students(&t, &students, &texts, &suite, &["name"]).unwrap();
    let asked = log.borrow().clone();
    let mut distinct = asked.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(asked.len(), distinct.len(), "the teacher saw a text twice");
    let json = comparison.to_json();
    // The copy of the teacher matches the gold on every clean text; the student misses NAME:.
    let clean = &json["pairs"][0]["counts"]["clean"]["agree"];
    assert_eq!(clean["first_only"], 0);
    assert_eq!(clean["second_only"], 12);
    assert_eq!(json["pairs"][0]["clean"]["difference"]["estimate"], -0.5);
    // z = 12/√12, p_unadjusted ≈ 0.0005, then Holm-adjusted over every stage of the pair.
    assert!(json["pairs"][0]["clean"]["p_unadjusted"].as_f64().unwrap() < 0.001);
    assert!(json["pairs"][0]["clean"]["p"].as_f64().unwrap() < 0.01);
    assert_eq!(json["pairs"][0]["clean"]["significant"], true);
    assert_eq!(
        extractive::Comparison::from_json(&json).unwrap(),
        comparison
    );
}

fn reports(texts: &[String], chunk: usize) -> (Value, extractive::ExtractiveReport) {
    let s = PerItemFn::new(student).with_decide(decide);
    let t = PerItemFn::new(teacher);
    let suite = suite();
    let fields = ["name", "city"];
    let mut run = ExtractRun::new(&s, &t, &suite, &fields)
        .unwrap()
        .with_chunk_size(chunk);
    run.add(texts).unwrap();
    let report = run.report().unwrap().to_json();
    let mut run = ExtractRun::new(&s, &t, &suite, &fields)
        .unwrap()
        .with_chunk_size(chunk)
        .with_field_breakdown();
    for piece in texts.chunks(3) {
        run.add(piece).unwrap();
    }
    (report, run.field_report().unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn reports_are_the_same_for_every_chunk_size(texts in prop::collection::vec(text(), 0..30)) {
        let n = texts.len().max(1);
        let whole = reports(&texts, n);
        let s = PerItemFn::new(student).with_decide(decide);
        let t = PerItemFn::new(teacher);
        prop_assert_eq!(
            &whole.1,
            &extractive_capture_report(&s, &t, &texts, &suite(), &["name", "city"]).unwrap()
        );
        for chunk in [1, 7, n] {
            prop_assert_eq!(&reports(&texts, chunk), &whole, "chunk size {}", chunk);
        }
    }

    #[test]
    fn comparisons_are_the_same_for_every_chunk_size(texts in prop::collection::vec(text(), 0..30)) {
        let t = PerItemFn::new(teacher);
        let a = PerItemFn::new(student).with_decide(decide);
        let b = PerItemFn::new(other_student);
        let students: [(&str, &dyn Model); 2] = [("a", &a), ("b", &b)];
        let suite = suite();
        let fields = ["name"];
        let whole = compare_students(&t, &students, &texts, &suite, &fields).unwrap().to_json();
        for chunk in [1, 7] {
            let chunked =
                compare_students_chunked(&t, &students, texts.chunks(chunk), &suite, &fields).unwrap();
            prop_assert_eq!(&chunked.to_json(), &whole, "chunk size {}", chunk);
        }
    }
}
