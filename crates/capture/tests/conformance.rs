//! Conformance with upstream mixle's `capture_profile`: every classifier scenario of the reference
//! data (fixtures copied into `tests/fixtures/`) reproduces `expected_profile` exactly — values as
//! parsed JSON (floats bit for bit) and key order — and its JSON is pinned by an insta snapshot.
//! Scenario 10 uses `keyboard_typo_corruption` in mixle-compatible mode.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use capture::capture_profile;
use scenario_rules::{RuleModel, assert_key_order, load_fixture, strings, suite_from_scenario};
use serde_json::Value;

fn scenario(name: &str) -> Value {
    load_fixture(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"), name)
}

fn check(name: &str) {
    let sc = scenario(name);
    assert_eq!(
        sc["function"], "capture_profile",
        "{name} is not a classifier scenario"
    );
    let student = RuleModel::from_scenario(&sc["student"]).unwrap();
    let teacher = RuleModel::from_scenario(&sc["teacher"]).unwrap();
    let texts = strings(&sc["texts"]);
    let suite = suite_from_scenario(&sc["suite"]).unwrap();
    let profile = capture_profile(&student, &teacher, &texts, &suite).unwrap();
    let got = serde_json::to_value(&profile).unwrap();
    assert_eq!(
        got, sc["expected_profile"],
        "{name}: profile differs from upstream"
    );
    assert_key_order(name, &got, &sc["expected_profile_key_order"]);
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
