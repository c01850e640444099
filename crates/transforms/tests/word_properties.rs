//! Laws of the word-level transforms: the measured change fraction tracks `rate` (within an
//! absolute tolerance of 0.03 over corpora of at least 4,000 units, i.e. four standard
//! deviations at rate 0.5, and the draws are seeded, so the test is exact, not flaky), the
//! meaning-preserving rewrites are idempotent, and every typo-generator family changes a word
//! only to a member of its generator's set.
#![cfg(all(feature = "tables", feature = "typo-tasks"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use suite_core::Transform;
use transforms::Catalogue;

const TOLERANCE: f64 = 0.03;

fn build(name: &str, params: Value) -> Transform {
    let Value::Object(params) = params else {
        panic!("params must be an object")
    };
    Catalogue::standard()
        .build(name, &params)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .transform
}

/// A deterministic corpus of `n` English words (a small vocabulary, a linear congruential walk).
fn corpus(n: usize) -> String {
    const WORDS: [&str; 24] = [
        "the",
        "cat",
        "would",
        "have",
        "seen",
        "their",
        "house",
        "and",
        "friend",
        "money",
        "quickly",
        "jumps",
        "over",
        "lazy",
        "dogs",
        "before",
        "night",
        "color",
        "center",
        "phone",
        "example.com",
        "well-known",
        "two",
        "people",
    ];
    let mut x: u64 = 12_345;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            WORDS[(x >> 33) as usize % WORDS.len()]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn tokens(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

fn assert_close(name: &str, rate: f64, changed: usize, eligible: usize) {
    assert!(eligible >= 4_000, "{name}: only {eligible} units");
    let got = changed as f64 / eligible as f64;
    assert!(
        (got - rate).abs() <= TOLERANCE,
        "{name} at rate {rate}: changed {changed} of {eligible} ({got:.4})"
    );
}

#[test]
fn typo_generators_change_tokens_at_rate_and_only_to_members_of_their_set() {
    let registry = typo_generators::Registry::new(&typo_generators::Data::english());
    let text = corpus(6_000);
    let before = tokens(&text);
    for task in registry.iter() {
        let name = format!("typo_{}", task.id);
        let sets: Vec<Vec<String>> = before
            .iter()
            .map(|t| {
                task.expect(t)
                    .into_iter()
                    .filter_map(|v| v.into_string().ok())
                    .filter(|v| !v.contains(char::is_whitespace))
                    .collect()
            })
            .collect();
        let eligible = sets.iter().filter(|s| !s.is_empty()).count();
        if eligible < 4_000 {
            // The corpus has too few words this generator changes (dots, numerals...):
            // membership is still checked below, at rate 1.
            let out = build(&name, json!({"rate": 1.0})).apply(&text);
            for ((b, a), set) in before.iter().zip(tokens(&out)).zip(&sets) {
                assert!(
                    set.is_empty() && *b == a || set.iter().any(|s| s == a),
                    "{name}"
                );
            }
            continue;
        }
        for rate in [0.1, 0.5] {
            let out = build(&name, json!({"rate": rate})).apply(&text);
            let after = tokens(&out);
            assert_eq!(after.len(), before.len(), "{name}");
            let mut changed = 0;
            for ((b, a), set) in before.iter().zip(&after).zip(&sets) {
                if b != a {
                    assert!(set.iter().any(|s| s == a), "{name}: {b} -> {a}");
                    changed += 1;
                }
            }
            assert_close(&name, rate, changed, eligible);
        }
    }
}

#[test]
fn random_word_operations_track_rate() {
    let text = corpus(6_000);
    let n = tokens(&text).len();
    for rate in [0.1, 0.5] {
        let out = build("word_delete", json!({"rate": rate})).apply(&text);
        assert_close("word_delete", rate, n - tokens(&out).len(), n);
        let out = build("word_merge", json!({"rate": rate})).apply(&text);
        assert_close("word_merge", rate, n - tokens(&out).len(), n - 1);
        // Every corpus word has a split point but the one-letter ones (none here).
        let out = build("word_split", json!({"rate": rate})).apply(&text);
        assert_close("word_split", rate, tokens(&out).len() - n, n);
        let out = build("word_crop", json!({"rate": rate})).apply(&text);
        assert_eq!(n - tokens(&out).len(), (rate * n as f64).round() as usize);
        // A swap moves each word at most... it is a permutation: same multiset of words.
        for name in ["word_swap", "word_shuffle"] {
            let out = build(name, json!({"rate": rate})).apply(&text);
            let (mut a, mut b) = (tokens(&text), tokens(&out));
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "{name}");
        }
    }
}

#[test]
fn table_corruptions_track_rate() {
    let dir = tempfile::tempdir().unwrap();
    let ocr_table = dir.path().join("ocr.tsv");
    std::fs::write(&ocr_table, "a\t4\ne\t3\n").unwrap();
    let slang_table = dir.path().join("slang.tsv");
    std::fs::write(&slang_table, "friend\tpal\n").unwrap();
    let text = corpus(6_000);
    let friends = "my friend ".repeat(5_000);
    let names = "Maria ".repeat(5_000);
    let numbers = "42 ".repeat(5_000);
    let ages = "aged 40, ".repeat(5_000);
    for rate in [0.1, 0.5] {
        let ocr_path = ocr_table.to_str().unwrap();
        let out = build("ocr", json!({"rate": rate, "table": ocr_path})).apply(&text);
        let eligible = text.chars().filter(|c| matches!(c, 'a' | 'e')).count();
        let changed = text
            .chars()
            .zip(out.chars())
            .filter(|(a, b)| a != b)
            .count();
        assert_close("ocr", rate, changed, eligible);

        let path = slang_table.to_str().unwrap();
        let out = build("slang", json!({"rate": rate, "table": path})).apply(&friends);
        assert_close("slang", rate, out.matches("pal").count(), 5_000);

        let out = build("swap_names", json!({"rate": rate})).apply(&names);
        assert_close(
            "swap_names",
            rate,
            5_000 - out.matches("Maria").count(),
            5_000,
        );

        let out = build("swap_numbers", json!({"rate": rate})).apply(&numbers);
        assert_close(
            "swap_numbers",
            rate,
            5_000 - tokens(&out).iter().filter(|t| **t == "42").count(),
            5_000,
        );

        let out = build("randomize_age", json!({"rate": rate})).apply(&ages);
        assert_close(
            "randomize_age",
            rate,
            5_000 - out.matches("aged 40,").count(),
            5_000,
        );
    }
}

/// The meaning-preserving word rewrites.
const PRESERVING: [&str; 6] = [
    "contraction_expand",
    "contraction_add",
    "us_to_uk",
    "uk_to_us",
    "number_to_words",
    "words_to_number",
];

#[test]
fn preserving_rewrites_are_declared_so() {
    for name in PRESERVING {
        let d = Catalogue::standard().get(name).unwrap();
        assert_eq!(d.kind, transforms::Kind::MeaningPreserving, "{name}");
    }
}

proptest! {
    /// Applying a meaning-preserving rewrite twice gives what applying it once gives, on text
    /// made of words its tables know, numbers and arbitrary characters.
    #[test]
    fn preserving_rewrites_are_idempotent(
        words in proptest::collection::vec(prop_oneof![
            "(don't|do not|I am|it's|Won't|color|colour|organized|organised|CENTER|forty-two|\
              one hundred and five|seven|1,500|3\\.14)",
            "\\PC{0,6}",
        ], 0..12)
    ) {
        let text = words.join(" ");
        for name in PRESERVING {
            let t = build(name, Value::Object(Map::new()));
            let once = t.apply(&text);
            prop_assert_eq!(t.apply(&once), once.clone(), "{}", name);
        }
    }
}

proptest! {
    /// `words_to_number` reads back what `number_to_words` writes: every integer below 10^18,
    /// alone or between words (which are no number words).
    #[test]
    fn numbers_round_trip_through_words(n in 0u64..=999_999_999_999_999_999, before in "[qxz]{0,5}") {
        let text = format!("{before} {n} items");
        let words = build("number_to_words", json!({})).apply(&text);
        prop_assert!(!words.contains(|c: char| c.is_ascii_digit()), "{}", words);
        prop_assert_eq!(build("words_to_number", json!({})).apply(&words), text);
    }
}
