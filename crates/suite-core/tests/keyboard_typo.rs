//! Conformance of `keyboard_typo_corruption` with upstream mixle (fixture copied from the
//! reference data: 100 exact outputs plus rate validation).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use suite_core::KeyboardTypo;
#[cfg(feature = "mixle-compat")]
use suite_core::TypoRng;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/keyboard_typo_cases.json")).unwrap()
}

#[test]
fn golden_keyboard_typo_rate_validation() {
    let fixture = fixture();
    let cases = fixture["rate_validation"].as_array().unwrap();
    for case in cases {
        let rate: f64 = case["rate"].as_str().unwrap().parse().unwrap();
        let result = KeyboardTypo::new(rate, 0);
        match case["message"].as_str() {
            Some(message) => assert_eq!(result.unwrap_err().to_string(), message),
            None => assert!(result.is_ok(), "rate {rate} must be accepted"),
        }
    }
    eprintln!(
        "keyboard_typo rate validation: {}/{} cases match",
        cases.len(),
        cases.len()
    );
}

// Runs whenever the feature is on: always in `cargo test --workspace`, where `capture`'s
// dev-dependency enables it.
#[cfg(feature = "mixle-compat")]
#[test]
fn golden_keyboard_typo_mixle_outputs() {
    let fixture = fixture();
    let cases = fixture["cases"].as_array().unwrap();
    let mut mismatches = Vec::new();
    for case in cases {
        let rate = case["rate"].as_f64().unwrap();
        let seed = case["seed"].as_u64().unwrap();
        let text = case["text"].as_str().unwrap();
        let typo = KeyboardTypo::new(rate, seed)
            .unwrap()
            .with_rng(TypoRng::Mixle)
            .unwrap();
        let got = typo.apply(text);
        if got != case["output"].as_str().unwrap() {
            mismatches.push(format!(
                "rate {rate} seed {seed} {text:?}: got {got:?}, want {}",
                case["output"]
            ));
        }
    }
    eprintln!(
        "keyboard_typo mixle mode: {}/{} cases match",
        cases.len() - mismatches.len(),
        cases.len()
    );
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert_eq!(cases.len(), 100);
}
