//! Degenerate tables (empty strings, duplicates, self-maps, substrings, cliques, odd layouts)
//! never make a task panic, hang or break the laws; and no JSON text makes the loader panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use proptest::prelude::*;
use typo_generators::{Data, Registry};

/// Short strings over a tiny alphabet, so table entries collide with inputs and each other.
fn word() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[ab1.\\- é]{0,3}").unwrap()
}

fn words(max: usize) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(word(), 0..max)
}

fn table() -> impl Strategy<Value = BTreeMap<String, Vec<String>>> {
    prop::collection::btree_map(word(), words(4), 0..6)
}

fn data() -> impl Strategy<Value = Data> {
    (
        words(5),
        words(5),
        table(),
        prop::collection::vec(words(4), 0..5),
        prop::collection::vec(words(4), 0..5),
        table(),
        words(4),
    )
        .prop_map(
            |(graphemes, vowels, homoglyphs, homophones, misspellings, numerals, keyboard)| Data {
                graphemes,
                vowels,
                homoglyphs,
                homophones,
                misspellings,
                numerals,
                keyboard,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_task_is_total_over_degenerate_tables(data in data(), input in "[ab1.\\- é]{0,8}") {
        let registry = Registry::new(&data);
        for task in &registry {
            let set = task.expect(&input);
            prop_assert!(set.windows(2).all(|w| w[0] < w[1]), "{}: not sorted/unique", task.id);
            prop_assert!(set.iter().all(|v| !v.is_empty() && v.as_bytes() != input.as_bytes()), "{}", task.id);
            prop_assert_eq!(task.expect(&input), set, "{} not deterministic", task.id);
        }
    }

    #[test]
    fn the_loader_never_panics(text in any::<String>()) {
        let _ = Data::from_json_str(&text);
    }

    #[test]
    fn the_loader_round_trips_what_it_accepts(data in data()) {
        if let Ok(parsed) = Data::from_json_str(&data.to_json_string()) {
            prop_assert_eq!(parsed.to_json_string(), data.to_json_string());
        }
    }
}

#[test]
fn numeral_table_shapes_terminate() {
    let shapes: [&[(&str, &[&str])]; 7] = [
        &[],
        &[("1", &[])],
        &[
            ("1", &["one", "first"]),
            ("one", &["1", "first"]),
            ("first", &["1", "one"]),
        ],
        &[("a", &["a"]), ("b", &["b", "b"])],
        &[("", &["x"]), ("x", &[""])],
        &[("a", &["aa"]), ("aa", &["a"]), ("aaa", &["a", "aa"])],
        &[("o", &["one"]), ("n", &["one"]), ("e", &["one"])],
    ];
    for shape in shapes {
        let data = Data {
            numerals: shape
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.iter().map(|s| (*s).to_owned()).collect()))
                .collect(),
            ..Data::default()
        };
        let registry = Registry::new(&data);
        for id in ["cns", "ons"] {
            let Some(task) = registry.get(id) else {
                continue;
            };
            for input in ["", "a", "aaaa", "one1first", "1and2", "xox", "oneoneone"] {
                let set = task.expect(input);
                assert!(set.windows(2).all(|w| w[0] < w[1]), "{id} {input:?}");
                assert!(set.iter().all(|v| v.as_bytes() != input.as_bytes()));
            }
        }
    }
}
