//! The leak guard: the evaluation texts (and their transformed versions), exact and after
//! normalisation, which no row may equal.

use std::collections::HashSet;

use unicode_normalization::UnicodeNormalization as _;

/// A 128-bit fingerprint of a text, for the in-memory sets only (never written: foldhash's
/// output may change between its versions): two fixed-seed foldhash hashes, a fraction of a
/// blake3's cost on short texts, colliding about once in 2^64 pairs.
pub(crate) type Fingerprint = u128;

/// The fixed-seed set of fingerprints (lookups only: no iteration order reaches output).
pub(crate) type Set = HashSet<Fingerprint, foldhash::fast::FixedState>;

/// The fingerprint of `text`.
pub(crate) fn fingerprint(text: &str) -> Fingerprint {
    use std::hash::BuildHasher as _;
    let low = foldhash::quality::FixedState::with_seed(0x243f_6a88_85a3_08d3).hash_one(text);
    let high = foldhash::quality::FixedState::with_seed(0x1319_8a2e_0370_7344).hash_one(text);
    (u128::from(high) << 64) | u128::from(low)
}

/// The leak check's normalisation: Unicode NFC, then lower case (Rust's `str::to_lowercase`,
/// the Unicode default case mapping; it differs from full case folding on a few characters,
/// `ß` stays `ß`), then every run of whitespace (Unicode `White_Space`) made one space, with
/// none at either end. "The Food" and " the  food" are one text to it.
///
/// ```
/// assert_eq!(augment::normalise("  The\u{a0}CAFE\u{301}\n"), "the café");
/// ```
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    normalise_into(text, &mut out);
    out
}

/// [`normalise`] into `out` (cleared first), reusing its allocation.
pub(crate) fn normalise_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        for word in text.split_ascii_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.extend(word.chars().map(|c| c.to_ascii_lowercase()));
        }
        // The fast path is the slow one's result unless the text has a vertical tab (U+000B),
        // the one ASCII `White_Space` character `split_ascii_whitespace` keeps.
        if !text.contains('\u{b}') {
            return;
        }
        out.clear();
    }
    let lower: String = text.nfc().collect::<String>().to_lowercase();
    for word in lower.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
}

/// How a text leaked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leak {
    /// It is an evaluation text (or a transformed one), byte for byte.
    Exact,
    /// It equals one after [`normalise`].
    Normalised,
}

/// The evaluation side of the leak check: every evaluation text, each of its transformed
/// versions under the suite's stages, and the suite's probes, as fingerprints exact and
/// normalised (32 bytes per text, the texts themselves not kept).
#[derive(Debug, Clone, Default)]
pub struct EvalTexts {
    exact: Set,
    normalised: Set,
    texts: u64,
}

impl EvalTexts {
    /// No texts.
    pub fn new() -> EvalTexts {
        EvalTexts::default()
    }

    /// Adds a text.
    pub fn insert(&mut self, text: &str) {
        self.texts += 1;
        self.exact.insert(fingerprint(text));
        self.normalised.insert(fingerprint(&normalise(text)));
    }

    /// Texts added (with repeats).
    pub fn len(&self) -> u64 {
        self.texts
    }

    /// Whether no text was added.
    pub fn is_empty(&self) -> bool {
        self.texts == 0
    }

    /// Whether `text` (whose exact fingerprint is `exact`) is an evaluation text, and how;
    /// `buf` is scratch space for its normal form.
    pub(crate) fn leak_of(&self, text: &str, exact: Fingerprint, buf: &mut String) -> Option<Leak> {
        if self.exact.contains(&exact) {
            return Some(Leak::Exact);
        }
        normalise_into(text, buf);
        self.normalised
            .contains(&fingerprint(buf))
            .then_some(Leak::Normalised)
    }

    /// Whether `text` is an evaluation text, and how.
    pub fn leak(&self, text: &str) -> Option<Leak> {
        self.leak_of(text, fingerprint(text), &mut String::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_is_nfc_lowercase_and_collapsed_whitespace() {
        assert_eq!(normalise("  Hello \t World\n"), "hello world");
        assert_eq!(normalise("a\u{b}b"), "a b");
        assert_eq!(normalise("Cafe\u{301}"), normalise("CAFÉ"));
        assert_eq!(normalise("\u{3000}Ünï\u{2003}Code "), "ünï code");
        assert_eq!(normalise(""), "");
    }

    #[test]
    fn leaks_are_found_exact_and_normalised() {
        let mut eval = EvalTexts::new();
        eval.insert("The food was good");
        assert_eq!(eval.leak("The food was good"), Some(Leak::Exact));
        assert_eq!(eval.leak(" the FOOD  was good"), Some(Leak::Normalised));
        assert_eq!(eval.leak("The food was bad"), None);
    }
}
