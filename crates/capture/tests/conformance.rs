//! Conformance with upstream mixle's `capture_profile`: every classifier scenario of the reference
//! data (fixtures copied into `tests/fixtures/`) reproduces `expected_profile` exactly — values as
//! parsed JSON (floats bit for bit) and key order — and its JSON is pinned by an insta snapshot.
//! Scenario 10 uses `keyboard_typo_corruption` in mixle-compatible mode.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use capture::capture_profile;
use scenario_rules::{RuleModel, suite_from_scenario};
use serde_json::Value;

fn scenario(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The keys of the object at a dotted path ("$" = top level), in order.
fn keys_at(v: &Value, path: &str) -> Vec<String> {
    let mut node = v;
    if path != "$" {
        for part in path.split('.') {
            node = &node[part];
        }
    }
    node.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

fn check(name: &str) {
    let sc = scenario(name);
    assert_eq!(
        sc["function"], "capture_profile",
        "{name} is not a classifier scenario"
    );
    let student = RuleModel::from_scenario(&sc["student"]).unwrap();
    let teacher = RuleModel::from_scenario(&sc["teacher"]).unwrap();
    let texts: Vec<String> = sc["texts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .collect();
    let suite = suite_from_scenario(&sc["suite"]).unwrap();
    let profile = capture_profile(&student, &teacher, &texts, &suite).unwrap();
    let got = serde_json::to_value(&profile).unwrap();
    assert_eq!(
        got, sc["expected_profile"],
        "{name}: profile differs from upstream"
    );
    for entry in sc["expected_profile_key_order"].as_array().unwrap() {
        let path = entry[0].as_str().unwrap();
        let want: Vec<String> = entry[1]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(keys_at(&got, path), want, "{name}: key order at {path}");
    }
    insta::assert_json_snapshot!(format!("golden_{name}"), profile);
}

#[test]
fn golden_scenario_01() {
    check("scenario_01");
}

#[test]
fn golden_scenario_02() {
    check("scenario_02");
}

#[test]
fn golden_scenario_03() {
    check("scenario_03");
}

#[test]
fn golden_scenario_04() {
    check("scenario_04");
}

#[test]
fn golden_scenario_05() {
    check("scenario_05");
}

#[test]
fn golden_scenario_06() {
    check("scenario_06");
}

#[test]
fn golden_scenario_09() {
    check("scenario_09");
}

#[test]
fn golden_scenario_10() {
    check("scenario_10");
}
