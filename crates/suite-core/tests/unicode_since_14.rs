//! The code points where the built-in transforms' Unicode 14.0 rules (CPython 3.11's, which
//! upstream mixle ran on) and the Rust standard library's newer Unicode disagree: the
//! differential test against CPython 3.11 (`crates/capkit-py/pytests/test_mixle_differential.py`)
//! builds random strings from them. The list is a fixture, so a Rust upgrade that moves it is
//! seen here: `CAPKIT_UPDATE_FIXTURES=1 cargo test -p capkit-suite-core --test unicode_since_14`
//! rewrites it.

use std::fmt::Write as _;

use suite_core::{is_py_letter, py_swapcase};

const FIXTURE: &str = "tests/fixtures/unicode_changed_since_14.txt";

/// Python's swapcase of one code point by std's (newer) properties and mappings.
fn std_swapcase(c: char) -> String {
    if c.is_uppercase() {
        c.to_lowercase().collect()
    } else if c.is_lowercase() {
        c.to_uppercase().collect()
    } else {
        c.to_string()
    }
}

/// Whether `c` disagrees: its swap, the final-sigma context it makes after a cased letter or a
/// space (std's `to_lowercase` applies Final_Sigma with its own Cased / Case_Ignorable), or
/// being a letter (std's Alphabetic, a superset of letters, against 14.0's category L).
fn changed(c: char) -> bool {
    let sigma = |s: String| s.chars().last();
    c != 'Σ' && py_swapcase(&c.to_string()) != std_swapcase(c)
        || ["A", " "].iter().any(|before| {
            let t = format!("{before}{c}Σ");
            sigma(py_swapcase(&t)) != sigma(t.to_lowercase())
        })
        || c.is_alphabetic() != is_py_letter(c)
}

#[test]
fn the_fixture_lists_every_code_point_std_and_unicode_14_disagree_on() {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for c in (0..=0x10ffff)
        .filter_map(char::from_u32)
        .filter(|&c| changed(c))
    {
        let c = c as u32;
        match ranges.last_mut() {
            Some((_, hi)) if *hi + 1 == c => *hi = c,
            _ => ranges.push((c, c)),
        }
    }
    let mut text = format!(
        "# Code point ranges (hex, inclusive) where capkit's Unicode 14.0 rules and Rust std's \
         Unicode {}.{}.{} disagree (swapcase, final sigma, letters); written by \
         crates/suite-core/tests/unicode_since_14.rs.\n",
        char::UNICODE_VERSION.0,
        char::UNICODE_VERSION.1,
        char::UNICODE_VERSION.2
    );
    for (lo, hi) in &ranges {
        let _ = writeln!(text, "{lo:X} {hi:X}");
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    if std::env::var_os("CAPKIT_UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        stored == text,
        "{FIXTURE} is stale (run with CAPKIT_UPDATE_FIXTURES=1 to rewrite it)"
    );
}
