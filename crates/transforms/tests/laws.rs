//! The laws of particular transforms: change fractions track `rate`, meaning-preserving
//! rewrites that are projections are idempotent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::{Value, json};
use suite_core::{Resolver, Transform};
use transforms::Catalogue;

fn build(name: &str, params: Value) -> Transform {
    let params = params.as_object().cloned().unwrap_or_default();
    Catalogue::standard()
        .build(name, &params)
        .unwrap_or_else(|e| panic!("{e}"))
        .transform
}

/// 400 distinct texts (distinct hashes, so independent draws), about 14,000 letters.
fn corpus() -> Vec<String> {
    (0..400)
        .map(|i| format!("sentence {i} says the quick brown fox jumps over a lazy dog"))
        .collect()
}

/// The observed fraction is within 5 binomial standard deviations of `rate` over `n` trials.
fn tracks(name: &str, rate: f64, events: usize, n: usize) {
    let observed = events as f64 / n as f64;
    let sigma = (rate * (1.0 - rate) / n as f64).sqrt();
    assert!(
        (observed - rate).abs() <= 5.0 * sigma,
        "{name}: observed {observed:.4} over {n}, rate {rate} (5 sigma = {:.4})",
        5.0 * sigma
    );
}

fn letters_and_digits(t: &str) -> usize {
    t.chars().filter(|c| c.is_alphanumeric()).count()
}

#[test]
fn change_fractions_track_the_rate() {
    let texts = corpus();
    let eligible: usize = texts.iter().map(|t| letters_and_digits(t)).sum();
    let len = |t: &str| t.chars().count();
    for rate in [0.05, 0.2, 0.5] {
        let p = json!({"rate": rate, "seed": 7});
        // Same length, every chosen character differs: count differing positions, over the
        // characters each changes at rate 1 (the ones its table or layout covers).
        for name in [
            "char_substitute",
            "homoglyph",
            "keyboard",
            "random_case",
            "add_diacritics",
        ] {
            let changed = |t: &Transform| -> usize {
                texts
                    .iter()
                    .map(|x| {
                        x.chars()
                            .zip(t.apply(x).chars())
                            .filter(|(a, b)| a != b)
                            .count()
                    })
                    .sum()
            };
            let covered = changed(&build(name, json!({"rate": 1.0})));
            assert!(
                covered > eligible / 2,
                "{name} covers {covered} of {eligible}"
            );
            tracks(name, rate, changed(&build(name, p.clone())), covered);
        }
        // One character removed or added per event.
        for (name, sign) in [
            ("char_delete", -1i64),
            ("repeat_char", 1),
            ("char_insert", 1),
            ("zero_width", 1),
        ] {
            let t = build(name, p.clone());
            let delta: i64 = texts
                .iter()
                .map(|x| (len(&t.apply(x)) as i64 - len(x) as i64) * sign)
                .sum();
            tracks(name, rate, delta as usize, eligible);
        }
        // Words of two or more letters, one RLO each.
        let t = build("bidi_reorder", p.clone());
        let words: usize = texts
            .iter()
            .map(|x| x.split(' ').filter(|w| w.chars().count() >= 2).count())
            .sum();
        let reordered: usize = texts
            .iter()
            .map(|x| t.apply(x).matches('\u{202e}').count())
            .sum();
        tracks("bidi_reorder", rate, reordered, words);
        // One BACKSPACE per chosen letter or digit.
        let t = build("backspace_insert", p.clone());
        let erased: usize = texts
            .iter()
            .map(|x| t.apply(x).matches('\u{8}').count())
            .sum();
        tracks("backspace_insert", rate, erased, eligible);
        // Gaps between words.
        let t = build("add_new_lines", p.clone());
        let gaps: usize = texts.iter().map(|x| x.matches(' ').count()).sum();
        let lines: usize = texts.iter().map(|x| t.apply(x).matches('\n').count()).sum();
        tracks("add_new_lines", rate, lines, gaps);
    }
}

#[test]
fn severity_is_the_rate_and_family_the_name() {
    for name in ["char_insert", "homoglyph", "bidi_reorder", "keyboard"] {
        let t = build(name, json!({"rate": 0.3}));
        let s = t.severity().unwrap();
        assert_eq!((s.family.as_str(), s.value), (name, 0.3));
    }
    let chain = build(
        "chain",
        json!({"steps": [{"transform": "char_delete", "rate": 0.1}, {"transform": "repeat_char", "rate": 0.2},
                         {"transform": "uppercase"}]}),
    );
    // Issue 36: a chain's severity is never the sum of its steps' (0.1 + 0.2 printed as
    // 0.30000000000000004 on a curve of every chain); it is a corruption all the same.
    assert!(chain.severity().is_none());
    let resolve = |steps: Value| {
        let params = json!({ "steps": steps });
        Catalogue::standard()
            .resolve("chain", params.as_object().unwrap())
            .unwrap()
    };
    let typo =
        resolve(json!([{"transform": "char_delete", "rate": 0.1}, {"transform": "uppercase"}]));
    assert!(typo.corrupting && typo.composite && typo.transform.severity().is_none());
    let upper = resolve(json!([{"transform": "uppercase"}]));
    assert!(!upper.corrupting && upper.composite);
}

#[test]
fn composition_errors_name_the_step() {
    let err = |name: &str, params: Value| {
        Catalogue::standard()
            .build(name, params.as_object().unwrap())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(
            "chain",
            json!({"steps": [{"transform": "uppercase"}, {"transform": "char_delete", "rate": 3}]})
        ),
        "transform `chain`: steps[1]: char_delete: rate must be in [0, 1], got 3"
    );
    assert_eq!(
        err("one_of", json!({"choices": [{"transform": "nope"}]})),
        "transform `one_of`: choices[0]: unknown transform `nope`"
    );
    assert_eq!(
        err("chain", json!({"steps": []})),
        "transform `chain`: steps must list at least one transform"
    );
    assert_eq!(
        err("keyboard", json!({"layout": "colemak"})),
        "transform `keyboard`: layout must be one of qwerty, qwerty3, azerty, qwertz, dvorak, got \"colemak\""
    );
    assert_eq!(
        err("uppercase", json!({"rate": 0.1})),
        "transform `uppercase`: unknown parameter `rate` (uppercase takes no parameters)"
    );
    let mut deep = json!({"transform": "uppercase"});
    for _ in 0..12 {
        deep = json!({"transform": "chain", "steps": [deep]});
    }
    let deep = deep.as_object().unwrap()["steps"].clone();
    assert!(err("chain", json!({"steps": deep})).contains("nest at most"));
}

#[test]
fn one_of_chooses_per_text_and_covers_every_choice() {
    let t = build(
        "one_of",
        json!({"choices": [{"transform": "uppercase"}, {"transform": "lowercase"}, {"transform": "identity"}]}),
    );
    let outs: Vec<String> = corpus()
        .iter()
        .map(|x| t.apply(&x.replacen('s', "S", 1)))
        .collect();
    let upper = outs.iter().filter(|o| *o == &o.to_uppercase()).count();
    let lower = outs.iter().filter(|o| *o == &o.to_lowercase()).count();
    assert!(
        upper > 100 && lower > 100 && upper + lower < 400,
        "{upper} {lower}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Projections: applying twice is applying once.
    #[test]
    fn meaning_preserving_projections_are_idempotent(text in "\\PC{0,30}") {
        for (name, params) in [
            ("uppercase", json!({})), ("lowercase", json!({})),
            ("strip_punctuation", json!({})), ("strip_all_punctuation", json!({})),
            ("whitespace", json!({})), ("add_punctuation", json!({})),
            ("normalize", json!({"form": "NFC"})), ("normalize", json!({"form": "NFD"})),
            ("normalize", json!({"form": "NFKC"})), ("normalize", json!({"form": "NFKD"})),
            ("strip_diacritics", json!({})),
        ] {
            let t = build(name, params);
            let once = t.apply(&text);
            prop_assert_eq!(t.apply(&once), once.clone(), "{} on {:?}", name, text);
        }
    }
}

proptest! {
    /// Titlecase is a projection on Latin text (Greek with iota subscript is not: Rust has no
    /// title-case mapping, and `ᾀ` upper-cases to two letters).
    #[test]
    fn titlecase_is_idempotent_on_latin_text(text in "[a-zA-Z0-9 ,.'!À-ÿ-]{0,40}") {
        let t = build("titlecase", json!({}));
        let once = t.apply(&text);
        prop_assert_eq!(t.apply(&once), once);
    }
}

/// Issue 36: two unrelated chains of a suite are two families (each its stage's name), a
/// declared family joins them, and neither has a severity it did not declare.
#[test]
fn chains_in_a_suite_are_their_own_families() {
    use suite_core::SuiteSpec;
    let catalogue = Catalogue::standard();
    let spec = SuiteSpec::from_json_str_with(
        r#"{"corruptions": [
            {"name": "loud", "transform": "chain", "severity": 0.05,
             "steps": [{"transform": "uppercase"}, {"transform": "char_delete", "rate": 0.05}]},
            {"name": "messy", "transform": "chain", "severity": 0.05,
             "steps": [{"transform": "char_delete", "rate": 0.05}, {"transform": "repeat_char", "rate": 0.1}]},
            {"name": "bare", "transform": "chain",
             "steps": [{"transform": "char_delete", "rate": 0.05}, {"transform": "repeat_char", "rate": 0.1}]},
            {"name": "deletes", "transform": "char_delete", "rate": 0.1, "family": "messy"}]}"#,
        catalogue,
    )
    .unwrap();
    let suite = spec.build_with(catalogue).unwrap();
    let severities: Vec<_> = suite.corruption_severities().collect();
    assert_eq!(
        severities,
        [
            ("loud", Some(("loud", 0.05))),
            ("messy", Some(("messy", 0.05))),
            ("bare", None),
            ("deletes", Some(("messy", 0.1)))
        ]
    );
}
