//! Laws of the harness, over arbitrary Unicode.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use typo_tasks::{
    DEFAULT_RATIO, Data, Example, Registry, Splitter, Variant, assign, leakage, read_jsonl, score,
    score_against, write_jsonl,
};

fn example() -> impl Strategy<Value = Example> {
    (
        ".{0,6}",
        ".{0,12}",
        proptest::option::of(proptest::collection::vec(".{0,12}", 0..5)),
        prop_oneof![Just(String::new()), Just("train".to_owned()), ".{1,5}"],
        ".{0,6}",
    )
        .prop_map(|(task, input, expect, split, source)| Example {
            task,
            input,
            expect: expect.map(|v| v.into_iter().map(Variant::from).collect()),
            split,
            source,
        })
}

proptest! {
    /// What is written is read back identically, and is JSON any parser agrees on.
    #[test]
    fn jsonl_round_trips(examples in proptest::collection::vec(example(), 0..8)) {
        let mut out = Vec::new();
        write_jsonl(&mut out, &examples).unwrap();
        let back = read_jsonl(out.as_slice()).unwrap();
        prop_assert_eq!(&back, &examples);
        for (line, e) in String::from_utf8(out).unwrap().lines().zip(&examples) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            prop_assert_eq!(v["input"].as_str().unwrap(), e.input.as_str());
        }
    }

    /// Adding names never moves the names already assigned, and a corpus never leaks.
    #[test]
    fn splits_are_stable_and_grouped(names in proptest::collection::vec(".{1,10}", 1..20), more in proptest::collection::vec(".{1,10}", 0..20), salt in ".{0,4}") {
        let reg = Registry::new(&Data::default());
        let tasks: Vec<_> = ["co", "hi", "bf"].iter().map(|id| reg.get(id).unwrap()).collect();
        let mut small = typo_tasks::emit(&tasks, names.iter().map(String::as_str), "");
        assign(&mut small, DEFAULT_RATIO, &salt);
        let mut big = typo_tasks::emit(&tasks, names.iter().chain(&more).map(String::as_str), "");
        assign(&mut big, DEFAULT_RATIO, &salt);
        prop_assert!(leakage(&big).is_empty());
        let splitter = Splitter::new(DEFAULT_RATIO, &salt);
        for (a, b) in small.iter().zip(&big) {
            prop_assert_eq!(&a.split, &b.split);
            prop_assert_eq!(a.split.as_str(), splitter.split_of(&a.input));
        }
    }

    /// The oracle's own answer is exact; every metric is in [0, 1].
    #[test]
    fn scores_are_bounded_and_the_oracle_is_exact(input in ".{0,10}", guess in proptest::collection::vec(".{0,8}", 0..6)) {
        let reg = Registry::new(&Data::default());
        let co = reg.get("co").unwrap();
        let perfect = score(co, &input, co.expect(&input));
        prop_assert!(perfect.exact());
        prop_assert_eq!(perfect.f1(), 1.0);
        let r = score_against("co", &input, co.expect(&input), guess.into_iter().map(Variant::from));
        for m in [r.precision(), r.recall(), r.f1()] {
            prop_assert!((0.0..=1.0).contains(&m));
        }
        prop_assert_eq!(r.hit.len() + r.spurious.len(), r.predict.len());
        prop_assert_eq!(r.hit.len() + r.missed.len(), r.expect.len());
    }
}
