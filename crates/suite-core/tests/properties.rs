//! Laws of the built-in transforms, on arbitrary Unicode text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use suite_core::{
    KeyboardTypo, is_py_letter, is_py_whitespace, py_swapcase, py_whitespace_collapse,
};

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 .,\t\n]{0,80}",
        any::<String>(),
        "[ßİΣσﬁǅ\u{1c}\u{85}\u{3000}a-c ]{0,20}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn typo_keeps_length_and_non_letters_and_is_deterministic(t in text(), rate in 0.0f64..=1.0, seed in any::<u64>()) {
        let typo = KeyboardTypo::new(rate, seed).unwrap();
        let out = typo.apply(&t);
        prop_assert_eq!(&out, &typo.apply(&t));
        prop_assert_eq!(out.chars().count(), t.chars().count());
        for (a, b) in t.chars().zip(out.chars()) {
            if is_py_letter(a) {
                prop_assert!(a == b || b.is_ascii_lowercase(), "{a:?} -> {b:?}");
            } else {
                prop_assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn typo_at_rate_zero_is_the_identity(t in text(), seed in any::<u64>()) {
        prop_assert_eq!(KeyboardTypo::new(0.0, seed).unwrap().apply(&t), t);
    }

    #[test]
    fn whitespace_collapse_is_python_split_join(t in text()) {
        let want = t.split(is_py_whitespace).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
        prop_assert_eq!(py_whitespace_collapse(&t), want);
    }

    #[test]
    fn swapcase_ascii_flips_letters_only(t in "[ -~]{0,80}") {
        let want: String = t.chars().map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() }).collect();
        prop_assert_eq!(py_swapcase(&t), want);
    }
}
