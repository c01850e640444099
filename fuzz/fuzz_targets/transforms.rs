//! The keyboard typo and the two invariances: deterministic; a typo keeps the number of
//! characters and rate 0 changes nothing; whitespace collapse is idempotent and leaves no
//! leading, trailing or doubled whitespace; swapcase of ASCII text is an involution.
#![no_main]

use libfuzzer_sys::fuzz_target;
use suite_core::{is_py_whitespace, keyboard_typo_corruption, py_swapcase, py_whitespace_collapse};

fuzz_target!(|data: &[u8]| {
    if data.len() < 9 {
        return;
    }
    let (head, rest) = data.split_at(9);
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let mut seed = [0u8; 8];
    seed.copy_from_slice(&head[..8]);
    let seed = u64::from_le_bytes(seed);
    let rate = f64::from(head[8]) / 255.0;

    let typo = keyboard_typo_corruption(rate, seed).expect("a rate in [0, 1]");
    let out = typo.apply(text);
    assert_eq!(out, typo.apply(text));
    assert_eq!(out.chars().count(), text.chars().count());
    let none = keyboard_typo_corruption(0.0, seed).expect("rate 0");
    assert_eq!(none.apply(text), text);

    let collapsed = py_whitespace_collapse(text);
    assert_eq!(py_whitespace_collapse(&collapsed), collapsed);
    assert!(!collapsed.starts_with(is_py_whitespace) && !collapsed.ends_with(is_py_whitespace));
    assert!(!collapsed.contains("  "));

    let swapped = py_swapcase(text);
    assert_eq!(swapped, py_swapcase(text));
    if text.is_ascii() {
        assert_eq!(py_swapcase(&swapped), text);
    }
});
