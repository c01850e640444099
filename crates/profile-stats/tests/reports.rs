//! Reports: additive merging (a property over random splits), the JSON shape, degenerate inputs
//! and the refusals of merge.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::Value;

use profile_stats::{
    AbstentionCounts, ClassifyCounts, CorruptionInfo, Counts, ExtractCounts, ProfileReport,
    Settings, SuiteDescriptor, numeric_paths,
};

fn suite() -> SuiteDescriptor {
    SuiteDescriptor {
        fingerprint: Some("blake3:test".into()),
        corruptions: vec![
            CorruptionInfo {
                name: "typo_05".into(),
                family: Some("keyboard_typo".into()),
                severity: Some(0.05),
                reference: Default::default(),
                ..Default::default()
            },
            CorruptionInfo {
                name: "typo_20".into(),
                family: Some("keyboard_typo".into()),
                severity: Some(0.2),
                reference: Default::default(),
                ..Default::default()
            },
            CorruptionInfo {
                name: "custom".into(),
                family: None,
                severity: None,
                reference: Default::default(),
                ..Default::default()
            },
        ],
        invariances: vec!["case".into()],
        probes: 0,
        transforms: None,
        probe_texts: None,
        invariance_meta: Default::default(),
    }
}

/// One text of a classifier profile: clean agreement, agreement under each corruption, the
/// case invariance's (student changed, teacher changed), and (student, teacher) escalation.
type ClassifyText = (bool, [bool; 3], (bool, bool), (bool, bool));

fn classify(texts: &[ClassifyText]) -> ProfileReport {
    let mut c = ClassifyCounts::new(
        ["typo_05", "typo_20", "custom"],
        ["case"],
        Some(AbstentionCounts::new(true, false)),
    );
    for &(clean, corrupted, (s, t), (se, _)) in texts {
        c.record_clean(clean);
        for (stage, &agree) in c.corruptions.values_mut().zip(&corrupted) {
            stage.agree.record(clean, agree);
        }
        c.invariances["case"].changed.record(s, t);
        if let Some(a) = &mut c.abstention {
            a.record(se, false, clean);
        }
    }
    ProfileReport::new(suite(), Counts::Classify(c), None)
}

/// One text of an extractor profile: (tp, fp, fn) of the student on the clean text, of both
/// sides under each corruption and under the invariance, and whether each record is valid.
type ExtractText = (
    (u64, u64, u64),
    [[(u64, u64, u64); 2]; 3],
    [(u64, u64, u64); 2],
    (bool, bool),
);

fn extract(texts: &[ExtractText]) -> ProfileReport {
    let mut c = ExtractCounts::new(["typo_05", "typo_20", "custom"], ["case"], None);
    let exact = |(_, fp, fn_): (u64, u64, u64)| fp + fn_ == 0;
    for &(clean, corruptions, invariance, (sv, tv)) in texts {
        c.n += 1;
        c.clean.student.record(clean.0, clean.1, clean.2);
        c.clean.exact += u64::from(exact(clean));
        c.clean.student_valid += u64::from(sv);
        c.clean.teacher_valid += u64::from(tv);
        for (stage, [s, t]) in c.corruptions.values_mut().zip(corruptions) {
            stage.student.record(s.0, s.1, s.2);
            stage.teacher.record(t.0, t.1, t.2);
            stage.exact.record(exact(clean), exact(s));
        }
        let stage = &mut c.invariances["case"];
        let [s, t] = invariance;
        stage.student.record(s.0, s.1, s.2);
        stage.teacher.record(t.0, t.1, t.2);
        stage.changed.record(!exact(s), !exact(t));
    }
    ProfileReport::new(suite(), Counts::Extract(c), None)
}

fn classify_text() -> impl Strategy<Value = ClassifyText> {
    (
        any::<bool>(),
        any::<[bool; 3]>(),
        any::<(bool, bool)>(),
        any::<(bool, bool)>(),
    )
}

fn fields() -> impl Strategy<Value = (u64, u64, u64)> {
    (0u64..6, 0u64..3, 0u64..3)
}

fn extract_text() -> impl Strategy<Value = ExtractText> {
    (
        fields(),
        [
            [fields(), fields()],
            [fields(), fields()],
            [fields(), fields()],
        ],
        [fields(), fields()],
        any::<(bool, bool)>(),
    )
}

proptest! {
    #[test]
    fn classify_merge_of_a_split_is_the_report_of_the_whole(
        texts in prop::collection::vec(classify_text(), 0..60),
        cut in any::<prop::sample::Index>(),
    ) {
        let cut = cut.index(texts.len() + 1);
        let (a, b) = texts.split_at(cut);
        let merged = classify(a).merge(&classify(b)).unwrap();
        let whole = classify(&texts);
        prop_assert_eq!(&merged, &whole);
        prop_assert_eq!(merged.to_json(), whole.to_json());
        prop_assert_eq!(ProfileReport::from_json(&whole.to_json()).unwrap(), whole);
    }

    #[test]
    fn extract_merge_of_a_split_is_the_report_of_the_whole(
        texts in prop::collection::vec(extract_text(), 0..40),
        cut in any::<prop::sample::Index>(),
    ) {
        let cut = cut.index(texts.len() + 1);
        let (a, b) = texts.split_at(cut);
        let merged = extract(a).merge(&extract(b)).unwrap();
        let whole = extract(&texts);
        prop_assert_eq!(merged.to_json(), whole.to_json());
        prop_assert_eq!(&merged, &whole);
        prop_assert_eq!(ProfileReport::from_json(&whole.to_json()).unwrap(), whole);
    }

    #[test]
    fn every_interval_contains_its_estimate_and_stays_in_range(
        texts in prop::collection::vec(classify_text(), 1..40),
    ) {
        let json = classify(&texts).to_json();
        for path in numeric_paths(&json).iter().filter(|p| p.ends_with(".lower")) {
            let base = path.trim_end_matches(".lower");
            let at = |k: &str| pointer(&json, &format!("{base}.{k}"));
            let (lower, upper) = (at("lower").as_f64().unwrap(), at("upper").as_f64().unwrap());
            let min = if base.ends_with("difference") { -1.0 } else { 0.0 };
            prop_assert!(min <= lower && lower <= upper && upper <= 1.0, "{}", base);
            if let Some(e) = at("estimate").as_f64() {
                prop_assert!(lower <= e + 1e-12 && e <= upper + 1e-12, "{}: {} not in [{}, {}]", base, e, lower, upper);
            }
        }
    }
}

fn pointer<'a>(json: &'a Value, path: &str) -> &'a Value {
    json.pointer(&format!("/{}", path.replace('.', "/")))
        .unwrap()
}

/// Every `null` in a report, as paths.
fn nulls(v: &Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Null => out.push(path.to_owned()),
        Value::Object(m) => m
            .iter()
            .for_each(|(k, v)| nulls(v, &format!("{path}.{k}"), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, v)| nulls(v, &format!("{path}.{i}"), out)),
        _ => {}
    }
}

#[test]
fn degenerate_inputs_give_documented_values_and_no_nan() {
    let agree: ClassifyText = (true, [true; 3], (false, false), (false, false));
    let disagree: ClassifyText = (false, [false; 3], (true, true), (true, false));
    for (name, texts) in [
        ("no texts", vec![]),
        ("all agree, no discordant pairs", vec![agree; 7]),
        ("all disagree", vec![disagree; 7]),
    ] {
        let json = classify(&texts).to_json();
        let text = serde_json::to_string(&json).unwrap();
        assert!(!text.contains("NaN") && !text.contains("inf"), "{name}");
        let mut found = Vec::new();
        nulls(&json, "", &mut found);
        for path in &found {
            let allowed = path.ends_with(".family")
                || path.ends_with(".severity")
                || path.starts_with(".models.")
                || path.ends_with(".teacher")
                || path.ends_with("_escalation_rate")
                // Undefined only without texts (or without escalations to take a rate of).
                || (path.ends_with(".estimate") || path.ends_with(".value") || path.ends_with(".auc"))
                    && (texts.is_empty() || path.contains("abstention"));
            assert!(allowed, "{name}: unexpected null at {path}");
        }
        let tests: Vec<f64> = numeric_paths(&json)
            .iter()
            .filter(|p| p.ends_with(".p"))
            .map(|p| pointer(&json, p).as_f64().unwrap())
            .collect();
        assert_eq!(tests.len(), 4, "{name}");
        if name != "all disagree" {
            assert!(
                tests.iter().all(|&p| p == 1.0),
                "{name}: no discordant pairs give p = 1"
            );
        }
    }
    let empty = classify(&[]).to_json();
    assert_eq!(empty["clean"]["agreement"]["estimate"], Value::Null);
    assert_eq!(empty["clean"]["agreement"]["lower"], 0.0);
    assert_eq!(empty["clean"]["agreement"]["upper"], 1.0);
    assert_eq!(
        empty["corruptions"]["typo_05"]["clean_vs_corrupted"]["difference"]["lower"],
        -1.0
    );
    assert_eq!(
        empty["profile"]["clean_agreement"], 0.0,
        "the profile keeps upstream's 0.0"
    );
    // All disagree in one direction: the invariance test is decisive.
    let all = classify(&[disagree; 7]).to_json();
    assert_eq!(
        all["corruptions"]["typo_05"]["clean_vs_corrupted"]["p"],
        1.0
    );
    assert_eq!(all["invariances"]["case"]["student_vs_teacher"]["p"], 1.0);
    assert_eq!(
        all["abstention"]["student"]["escalated_where_disagreeing"]["estimate"],
        1.0
    );
}

#[test]
fn golden_report_json_shape() {
    let texts: Vec<ClassifyText> = (0..20)
        .map(|i| {
            let clean = i % 5 != 0;
            (
                clean,
                [clean && i % 7 != 0, clean && i % 3 != 0, clean],
                (i % 4 == 0, i == 8),
                (i % 5 == 0, false),
            )
        })
        .collect();
    insta::assert_json_snapshot!("classify_report", classify(&texts).to_json());
    let texts: Vec<ExtractText> = (0..6u64)
        .map(|i| {
            let f = (3 - i % 2, i % 3 / 2, i % 2);
            (
                (3, 0, i % 2),
                [[f, (3, 0, 0)], [f, (2, 1, 1)], [(3, 0, 0), (3, 0, 0)]],
                [f, (3, 0, 0)],
                (i != 2, true),
            )
        })
        .collect();
    insta::assert_json_snapshot!("extract_report", extract(&texts).to_json());
}

/// Probe texts are optional: written when known, read back, absent from older reports (which
/// still read), and refused when their number is not the suite's.
#[test]
fn probe_texts_round_trip_and_are_checked() {
    let a = classify(&[(true, [true; 3], (false, false), (false, false))]);
    assert!(a.to_json()["suite"].get("probe_texts").is_none());
    let mut with = a.clone();
    with.suite.probes = 2;
    let with = with.with_probe_texts(["".to_owned(), "ليس جيدا".to_owned()]);
    let json = with.to_json();
    assert_eq!(json["suite"]["probe_texts"][1], "ليس جيدا");
    assert_eq!(ProfileReport::from_json(&json).unwrap(), with);
    let mut wrong = json.clone();
    wrong["suite"]["probe_texts"] = serde_json::json!(["only one"]);
    let err = ProfileReport::from_json(&wrong).unwrap_err().to_string();
    assert!(
        err.contains("suite.probe_texts") && err.contains("has 1 texts for the suite's 2 probes"),
        "{err}"
    );
}

/// Issue 36: stage weights and tags round-trip, and a report read from a file with a weight
/// that is not > 0, or meta for no invariance, is refused naming the path.
#[test]
fn stage_weights_round_trip_and_are_checked() {
    let a = classify(&[(true, [true; 3], (false, false), (false, false))]);
    let meta = |w: f64, tag: &str| profile_stats::StageMeta {
        weight: Some(w),
        tags: vec![tag.to_owned()],
    };
    let with = a.clone().with_stage_meta([
        ("typo_05".to_owned(), meta(3.0, "typo")),
        ("case".to_owned(), meta(2.0, "case")),
    ]);
    let json = with.to_json();
    assert_eq!(json["suite"]["corruptions"][0]["weight"], 3.0);
    assert_eq!(json["suite"]["invariance_meta"]["case"]["tags"][0], "case");
    assert_eq!(ProfileReport::from_json(&json).unwrap(), with);
    let refused = |path: &[&str], value: serde_json::Value| {
        let mut wrong = json.clone();
        let mut at = &mut wrong;
        for p in path {
            at = match p.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*p],
            };
        }
        *at = value;
        ProfileReport::from_json(&wrong).unwrap_err().to_string()
    };
    let err = refused(
        &["suite", "corruptions", "0", "weight"],
        serde_json::json!(-1.0),
    );
    assert!(
        err.contains("suite.corruptions.typo_05.weight") && err.contains("> 0"),
        "{err}"
    );
    let err = refused(
        &["suite", "invariance_meta", "case", "weight"],
        serde_json::json!(0),
    );
    assert!(err.contains("suite.invariance_meta.case.weight"), "{err}");
    let err = refused(
        &["suite", "invariance_meta", "nope"],
        serde_json::json!({"tags": ["x"]}),
    );
    assert!(
        err.contains("suite.invariance_meta.nope") && err.contains("names no invariance"),
        "{err}"
    );
}

#[test]
fn merge_refuses_other_suites_models_settings_and_tasks() {
    let a = classify(&[(true, [true; 3], (false, false), (false, false))]);
    let mut other_suite = a.clone();
    other_suite.suite.corruptions[0].severity = Some(0.1);
    let err = a.merge(&other_suite).unwrap_err().to_string();
    assert!(err.starts_with("cannot merge: the suites differ (blake3:test: corruptions [typo_05 (keyboard_typo 0.05)"), "{err}");
    let named = a
        .clone()
        .with_models(Some("cmd:a".into()), Some("cmd:t".into()));
    assert_eq!(
        a.merge(&named).unwrap_err().to_string(),
        "cannot merge: the models differ (student unnamed, teacher unnamed vs student cmd:a, teacher cmd:t)"
    );
    let other_level = a.clone().with_settings(Settings::new(0.9, 0.9).unwrap());
    assert!(
        a.merge(&other_level)
            .unwrap_err()
            .to_string()
            .contains("settings differ (level 0.95, break-even 0.9 vs level 0.9")
    );
    let e = extract(&[]);
    assert_eq!(
        a.merge(&e).unwrap_err().to_string(),
        r#"cannot merge: the tasks differ ("classify" vs "extract")"#
    );
}

#[test]
fn reading_refuses_other_formats_and_inconsistent_counts() {
    let r = classify(&[(true, [true; 3], (false, false), (false, false))]);
    let mut json = r.to_json();
    json["format"] = "capkit-profile-report/2".into();
    assert_eq!(
        ProfileReport::from_json(&json).unwrap_err().to_string(),
        "not a capkit-profile-report/1 document: its `format` is `\"capkit-profile-report/2\"`"
    );
    let mut json = r.to_json();
    json["counts"]["corruptions"]["typo_05"]["agree"]["neither"] = 5.into();
    assert_eq!(
        ProfileReport::from_json(&json).unwrap_err().to_string(),
        "counts.corruptions.typo_05.agree: its cells count 6 texts, n is 1"
    );
    let mut json = r.to_json();
    json["counts"]["invariances"]["case"]["changed"]["bogus"] = 1.into();
    assert!(
        ProfileReport::from_json(&json)
            .unwrap_err()
            .to_string()
            .starts_with("counts: unknown field `bogus`")
    );
    let mut json = r.to_json();
    json["settings"]["level"] = 1.5.into();
    assert!(
        ProfileReport::from_json(&json)
            .unwrap_err()
            .to_string()
            .contains("strictly between 0 and 1")
    );
    let mut json = r.to_json();
    json["suite"]["invariances"] = serde_json::json!(["space"]);
    assert!(
        ProfileReport::from_json(&json)
            .unwrap_err()
            .to_string()
            .starts_with("counts: its stages")
    );
}

/// Aliases: given ones kept, the others derived in order without a clash, written and read
/// back, named by gates; bad ones refused naming the alias.
#[test]
fn comparison_aliases_are_given_or_derived_and_unique() {
    use profile_stats::{Comparison, Gate, StudentOutcomes};
    // No texts: the pairs' (empty) outcome tables count the reports' texts.
    let report = classify(&[]);
    let runs = ["cmd:x", "cmd:y", "cmd:z"]
        .iter()
        .map(|s| {
            let outcomes = StudentOutcomes {
                clean: Vec::new(),
                corruptions: suite()
                    .corruptions
                    .iter()
                    .map(|c| (c.name.clone(), Vec::new()))
                    .collect(),
                invariances: [("case".to_owned(), Vec::new())].into_iter().collect(),
            };
            (s.to_string(), report.clone(), outcomes)
        })
        .collect();
    let c = Comparison::of_runs(None, runs);
    let names = |c: &Comparison| {
        c.aliases()
            .into_iter()
            .map(|(a, n)| format!("{a}={n}"))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&c), ["A=cmd:x", "B=cmd:y", "C=cmd:z"]);
    let given = c
        .clone()
        .with_aliases([
            ("A".to_owned(), "cmd:z".to_owned()),
            ("fast".to_owned(), "cmd:x".to_owned()),
        ])
        .unwrap();
    assert_eq!(names(&given), ["fast=cmd:x", "B=cmd:y", "A=cmd:z"]);
    let json = given.to_json();
    let read = Comparison::from_json(&json).unwrap();
    assert_eq!(names(&read), names(&given));
    assert_eq!(read, given);
    let gate = Gate::parse("students.fast.counts.n < 5").unwrap();
    let outcome = gate.evaluate(&json);
    assert!(outcome.is_ok(), "{outcome:?}");
    for (alias, name, message) in [
        ("7", "cmd:x", "must not be all digits"),
        ("a.b", "cmd:x", "no '.'"),
        ("", "cmd:x", "1 to 24 characters"),
        ("q", "cmd:nobody", "names no student"),
    ] {
        let err = c
            .clone()
            .with_aliases([(alias.to_owned(), name.to_owned())])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("aliases.{alias}")) && err.contains(message),
            "{err}"
        );
    }
    let twice = c
        .clone()
        .with_aliases([
            ("p".to_owned(), "cmd:x".to_owned()),
            ("q".to_owned(), "cmd:x".to_owned()),
        ])
        .unwrap_err()
        .to_string();
    assert!(twice.contains("already has an alias"), "{twice}");
}
