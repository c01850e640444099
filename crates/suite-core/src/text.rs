//! Python `str` semantics the built-in transforms follow.

use crate::unicode14::{CASE_IGNORABLE, CASED, LETTERS, SWAPPED};

/// Whether `c` lies in one of the sorted, disjoint `ranges`.
fn in_ranges(ranges: &[(u32, u32)], c: char) -> bool {
    let c = c as u32;
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Python `str.isalpha()` for one code point: Unicode general category L* (Lu, Ll, Lt, Lm, Lo)
/// as of Unicode 14.0, the tables of CPython 3.11 that upstream ran on.
///
/// Not `char::is_alphabetic`, which also admits letter numbers (`Ⅰ`) and many combining marks;
/// and not a newer Unicode's general category, which adds letters (Garay, U+10D4A, is a letter
/// only since 16.0) that Python 3.11 copies through untouched.
pub fn is_py_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    in_ranges(LETTERS, c)
}

/// Python whitespace (what `str.split()` splits on): Rust's `char::is_whitespace` plus the
/// information separators U+001C..=U+001F.
pub fn is_py_whitespace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python `" ".join(text.split())`: runs of Python whitespace become one space, leading and
/// trailing whitespace vanish.
pub fn py_whitespace_collapse(text: &str) -> String {
    if text.is_ascii() {
        // Byte loop for ASCII text: Python's ASCII whitespace is \t \n \v \f \r, U+001C..U+001F
        // and the space.
        let mut out = Vec::with_capacity(text.len());
        let mut gap = false;
        for &b in text.as_bytes() {
            if matches!(b, 9..=13 | 28..=32) {
                gap = !out.is_empty();
            } else {
                if gap {
                    out.push(b' ');
                    gap = false;
                }
                out.push(b);
            }
        }
        // Only ASCII bytes were copied.
        return String::from_utf8(out).unwrap_or_default();
    }
    let mut out = String::with_capacity(text.len());
    for word in text.split(is_py_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Python `str.swapcase()`: code points with the Uppercase property take their full lowercase
/// mapping, those with the Lowercase property their full uppercase mapping, the rest stay.
///
/// Full mappings can change the length (`ß` → `SS`, `İ` → `i̇`), and a capital sigma becomes the
/// final form `ς` at the end of a word (the Final_Sigma rule, which `str::to_lowercase` applies).
/// Only code points that Python 3.11 (Unicode 14.0) swaps are swapped: newer Unicode versions
/// give case pairs to letters 14.0 leaves alone (U+019B `ƛ` ↔ U+A7DC since 16.0, Garay).
pub fn py_swapcase(text: &str) -> String {
    if text.is_ascii() {
        let mut bytes = text.as_bytes().to_vec();
        for b in &mut bytes {
            if b.is_ascii_alphabetic() {
                *b ^= 0x20;
            }
        }
        // Flipping the case bit of an ASCII letter keeps the text ASCII.
        return String::from_utf8(bytes).unwrap_or_default();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (at, c) in text.char_indices() {
        if !in_ranges(SWAPPED, c) {
            out.push(c);
        } else if c.is_uppercase() {
            if c == 'Σ' {
                out.push(if final_sigma(text, at) { 'ς' } else { 'σ' });
            } else {
                out.extend(c.to_lowercase());
            }
        } else if c.is_lowercase() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Unicode 14.0's Final_Sigma context of the capital sigma at byte `at` of `text`, as CPython
/// 3.11 tests it: a cased code point before it and none after it, skipping case-ignorable ones
/// on both sides (not std's, whose newer Unicode has more cased and case-ignorable code points).
fn final_sigma(text: &str, at: usize) -> bool {
    let cased = |c: Option<char>| c.is_some_and(|c| in_ranges(CASED, c));
    let ignorable = |c: &char| in_ranges(CASE_IGNORABLE, *c);
    let before = text[..at].chars().rev().find(|c| !ignorable(c));
    let after = text[at + 'Σ'.len_utf8()..].chars().find(|c| !ignorable(c));
    cased(before) && !cased(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swapcase_examples_from_python() {
        assert_eq!(py_swapcase("Hello World"), "hELLO wORLD");
        assert_eq!(py_swapcase("straße"), "STRASSE");
        assert_eq!(py_swapcase("ΟΔΟΣ ΟΔΟΣ."), "οδος οδος.");
        assert_eq!(py_swapcase("ǅungla"), "ǅUNGLA");
        assert_eq!(py_swapcase("ﬁ"), "FI");
        assert_eq!(py_swapcase("İ"), "i\u{307}");
        assert_eq!(py_swapcase("ΣA"), "σa");
        assert_eq!(py_swapcase("AΣ"), "aς");
        assert_eq!(py_swapcase(""), "");
    }

    #[test]
    fn final_sigma_with_unicode_14_properties() {
        // CPython 3.11 (issue 21): ʕ (U+0295) is cased in 14.0, not since 16.0 (std's σ).
        assert_eq!(py_swapcase("ʕΣ"), "ʕς");
        assert_eq!(py_swapcase("A\u{345}Σ"), "aΙς");
        assert_eq!(py_swapcase("Aʰ Σ"), "aʰ σ");
        assert_eq!(py_swapcase("aΣ\u{ad}"), "Aς\u{ad}");
        assert_eq!(py_swapcase("AΣ'B"), "aσ'b");
        assert_eq!(py_swapcase("Σ"), "σ");
        assert_eq!(py_swapcase("ΣΣ"), "σς");
    }

    #[test]
    fn whitespace_examples_from_python() {
        assert_eq!(py_whitespace_collapse("  a \t b\n"), "a b");
        assert_eq!(py_whitespace_collapse("a\u{1c}b\u{1f}c"), "a b c");
        assert_eq!(py_whitespace_collapse("a\u{200b}b"), "a\u{200b}b");
        assert_eq!(py_whitespace_collapse("a\u{3000}\u{85}b"), "a b");
        assert_eq!(py_whitespace_collapse(" \t "), "");
    }

    #[test]
    fn letters_are_category_l() {
        assert!(is_py_letter('é') && is_py_letter('日') && is_py_letter('ß') && is_py_letter('ʰ'));
        assert!(!is_py_letter('Ⅰ') && !is_py_letter('\u{93e}') && !is_py_letter('\u{345}'));
        assert!(!is_py_letter('1') && !is_py_letter('_') && !is_py_letter('😀'));
    }

    #[test]
    fn unicode_14_as_python_3_11_has_it() {
        // Letters and case pairs added after Unicode 14.0 are not letters / not swapped.
        assert!(!is_py_letter('\u{10D4A}') && !is_py_letter('\u{A7CB}'));
        assert_eq!(
            py_swapcase("\u{10D50}\u{19B}\u{264}"),
            "\u{10D50}\u{19B}\u{264}"
        );
        assert_eq!(py_swapcase("\u{19B}a"), "\u{19B}A");
    }
}
