//! What the integration tests share: a suite with every kind of stage, two rule models, texts.
#![allow(dead_code, clippy::unwrap_used)]

use proptest::prelude::*;
use serde_json::json;
use suite_core::{
    CapabilitySuite, Label, Transform, case_jitter_invariance, keyboard_typo_corruption,
    whitespace_invariance,
};

pub fn suite() -> CapabilitySuite {
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

pub fn student(t: &str) -> Label {
    json!(if t.contains("good") { "pos" } else { "neg" })
}

pub fn teacher(t: &str) -> Label {
    json!(if t.to_lowercase().contains("good") || t.contains("fine") {
        "pos"
    } else {
        "neg"
    })
}

pub const WORDS: [&str; 8] = [
    "good", "Good", "fine", "bad", "food", "  the", "GOOD", "service",
];

pub fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS.to_vec()), 1..6).prop_map(|w| w.join(" "))
}
