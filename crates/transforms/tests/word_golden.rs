//! Goldens of the word-level transforms (and `ocr`) on inputs that exercise them: contractions,
//! American and British spellings, chat phrases, names, places, numbers and ages, domain-like
//! tokens for the typo generators. The catalogue-wide golden (`golden.rs`) covers the hostile
//! inputs; these show each family doing its job.
#![cfg(all(feature = "tables", feature = "typo-tasks"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use scenario_rules::{SystemNeed, system_has};
use serde_json::{Map, Value, json};
use transforms::{Catalogue, Level};

const INPUTS: [&str; 8] = [
    "I'm sure you don't mind; it's what we'd planned, isn't it?",
    "I am sure you do not mind; it is what we would have planned.",
    "My neighbor organized a theater trip to the center; the color was gray.",
    "My neighbour organised a theatre trip to the centre; the colour was grey.",
    "Please let me know as soon as possible, my friend: I would have told you their news.",
    "Maria flew from New York to Paris with John, aged 34, and his 7-year-old son.",
    "She paid 1,250 dollars for three tickets and forty-two snacks at 9.30.",
    "Visit shop-now.example.com or call 555 0199 before Friday.",
];

/// Every word-level transform of the catalogue, plus `ocr` (character-level, table-backed).
fn word_level() -> Vec<&'static str> {
    Catalogue::standard()
        .descriptors()
        .filter(|d| d.level == Level::Word || d.name == "ocr")
        .map(|d| d.name)
        .collect()
}

#[test]
fn golden_word_transforms_on_word_rich_inputs() {
    let catalogue = Catalogue::standard();
    let names = word_level();
    assert!(names.len() >= 40, "{}", names.len());
    for name in names {
        let d = catalogue.get(name).unwrap();
        // The WordNet transforms' examples read /usr/share/wordnet: skipped (outside CI) without it.
        if d.needs().is_some() && !system_has(SystemNeed::WordNet, &format!("word golden {name}")) {
            continue;
        }
        let mut params: Map<String, Value> = match serde_json::from_str(d.example_params) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        if d.params.iter().any(|p| p.name == "rate") {
            params.insert("rate".into(), json!(0.5));
        }
        let built = catalogue.build(name, &params).unwrap();
        let mut out = format!("params: {}\n", Value::Object(params));
        for input in INPUTS {
            out.push_str(&format!("{input}\n  -> {}\n", built.transform.apply(input)));
        }
        insta::assert_snapshot!(name, out);
    }
}
