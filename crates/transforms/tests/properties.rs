//! Laws every transform of the catalogue keeps, checked over the whole catalogue.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use scenario_rules::{SystemNeed, system_has};
use serde_json::{Map, Value};
use suite_core::{TextHash, Transform};
use transforms::{Catalogue, Kind};

/// Every transform built with its example parameters, twice (two independent builds).
fn all() -> Vec<(&'static str, Kind, Transform, Transform)> {
    let catalogue = Catalogue::standard();
    catalogue
        .descriptors()
        // The WordNet transforms' examples read /usr/share/wordnet: left out (outside CI) without it.
        .filter(|d| {
            d.needs().is_none() || system_has(SystemNeed::WordNet, &format!("laws of {}", d.name))
        })
        .map(|d| {
            let params: Map<String, Value> = match serde_json::from_str(d.example_params) {
                Ok(Value::Object(m)) => m,
                _ => Map::new(),
            };
            let a = catalogue.build(d.name, &params).unwrap().transform;
            let b = catalogue.build(d.name, &params).unwrap().transform;
            (d.name, d.kind, a, b)
        })
        .collect()
}

/// Texts that break naive code: lone combining marks, RTL, ZWJ emoji, surrogates' neighbours,
/// control characters.
const HOSTILE: [&str; 9] = [
    "\u{301}",
    "\u{301}\u{302}a\u{303}",
    "שלום עולם مرحبا",
    "👩‍👩‍👧‍👦🏳️‍🌈",
    "\u{202e}abc\u{202c}",
    "\u{0}\u{1}\u{7f}\u{feff}",
    "ǅ ß ﬁ İ ı",
    "\u{10ffff}\u{fffd}",
    "a",
];

#[test]
fn deterministic_and_independent_of_order_and_hash_sharing() {
    let texts: Vec<String> = HOSTILE
        .iter()
        .map(|s| (*s).to_owned())
        .chain((0..50).map(|i| format!("text number {i}: the quick brown fox, isn't it?")))
        .collect();
    for (name, _, a, b) in all() {
        let forward: Vec<String> = texts.iter().map(|t| a.apply(t)).collect();
        // Another build, reverse order, with precomputed hashes: same outputs.
        let mut backward: Vec<String> = texts
            .iter()
            .rev()
            .map(|t| b.apply_with_hash(t, &TextHash::of(t)))
            .collect();
        backward.reverse();
        assert_eq!(forward, backward, "{name}");
    }
}

#[test]
fn a_megabyte_text_goes_through() {
    let text = "The quick brown fox jumps over the lazy dog. ß 日本 🙂 ".repeat(20_000);
    assert!(text.len() > 1_000_000);
    for (name, _, a, _) in all() {
        let out = a.apply(&text);
        assert!(!out.is_empty(), "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn never_panics_and_is_deterministic(text in "\\PC{0,40}") {
        for (name, _, a, b) in all() {
            prop_assert_eq!(a.apply(&text), b.apply(&text), "{}", name);
        }
    }
}
