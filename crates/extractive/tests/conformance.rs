//! Conformance with upstream mixle's `generative_capability` module: the extraction scenarios
//! (07, 08, 12 exactly; 11 with `keyboard_typo_corruption` in mixle-compatible mode) and the 26
//! `validate_extraction_schema` cases, fixtures copied into `tests/fixtures/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use extractive::{
    extractive_capture_profile, extractive_capture_report, validate_extraction_schema,
};
use scenario_rules::{
    RuleModel, assert_key_order, keys_at, load_fixture, strings, suite_from_scenario,
};
use serde_json::Value;

fn fixture(name: &str) -> Value {
    load_fixture(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"), name)
}

fn check(name: &str) {
    let sc = fixture(name);
    assert_eq!(sc["function"], "extractive_capture_profile");
    let student = RuleModel::from_scenario(&sc["student"]).unwrap();
    let teacher = RuleModel::from_scenario(&sc["teacher"]).unwrap();
    let texts = strings(&sc["texts"]);
    let fields = strings(&sc["fields"]);
    let suite = suite_from_scenario(&sc["suite"]).unwrap();
    let profile = extractive_capture_profile(&student, &teacher, &texts, &suite, &fields).unwrap();
    let got = serde_json::to_value(&profile).unwrap();
    assert_eq!(
        got, sc["expected_profile"],
        "{name}: profile differs from upstream"
    );
    assert_key_order(name, &got, &sc["expected_profile_key_order"]);
    // The report's profile is the same profile.
    let report = extractive_capture_report(&student, &teacher, &texts, &suite, &fields).unwrap();
    assert_eq!(report.profile, profile);
    insta::assert_json_snapshot!(format!("golden_{name}"), profile);
}

#[test]
fn golden_scenario_07() {
    check("scenario_07");
}

#[test]
fn golden_scenario_08() {
    check("scenario_08");
}

#[test]
fn golden_scenario_11() {
    check("scenario_11");
}

#[test]
fn golden_scenario_12() {
    check("scenario_12");
}

#[test]
fn golden_validate_extraction_schema_cases() {
    let cases = fixture("validate_extraction_schema_cases");
    let cases = cases["cases"].as_array().unwrap();
    for case in cases {
        let fields = strings(&case["fields"]);
        let got = validate_extraction_schema(
            &case["record"],
            case["source_text"].as_str().unwrap(),
            &fields,
        );
        match case.get("result") {
            Some(want) => {
                let got = serde_json::to_value(got.unwrap()).unwrap();
                assert_eq!(&got, want, "case {}: {}", case["id"], case["note"]);
                assert_eq!(
                    keys_at(&got, "$"),
                    strings(&case["result_key_order"]),
                    "case {}",
                    case["id"]
                );
            }
            None => assert!(
                got.is_err(),
                "case {} must be refused: {}",
                case["id"],
                case["note"]
            ),
        }
    }
    eprintln!(
        "validate_extraction_schema: {}/{} cases match",
        cases.len(),
        cases.len()
    );
    assert_eq!(cases.len(), 26);
}

/// The per-field breakdown of scenario 08, pinned (no upstream counterpart).
#[test]
fn golden_scenario_08_field_breakdown() {
    let sc = fixture("scenario_08");
    let student = RuleModel::from_scenario(&sc["student"]).unwrap();
    let teacher = RuleModel::from_scenario(&sc["teacher"]).unwrap();
    let suite = suite_from_scenario(&sc["suite"]).unwrap();
    let report = extractive_capture_report(
        &student,
        &teacher,
        &strings(&sc["texts"]),
        &suite,
        &strings(&sc["fields"]),
    )
    .unwrap();
    // Micro totals over the breakdown reproduce the profile's clean F1.
    let (tp, fp, fn_) = report
        .fields
        .clean
        .values()
        .fold((0, 0, 0), |a, c| (a.0 + c.tp, a.1 + c.fp, a.2 + c.fn_));
    assert_eq!(
        (2 * tp) as f64 / (2 * tp + fp + fn_) as f64,
        report.profile.clean_f1
    );
    insta::assert_json_snapshot!("golden_scenario_08_field_breakdown", report.fields);
}
