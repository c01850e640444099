//! Word-level transforms: the 22 typo-tasks generators applied word by word, random word
//! operations (delete, swap, split, merge, crop), and the table-backed rewrites (contractions,
//! American/British spelling, abbreviations, slang, homophones, speech-to-text confusions,
//! numbers, entity swaps, OCR confusions).
//!
//! Two notions of "word", each documented on the transforms that use it:
//!
//! * a **token** is a maximal run of non-whitespace characters (what nlpaug's word augmenters
//!   and the typo generators see: `"U.S.,"` is one token, punctuation travels with its word);
//! * a **lexical word** is a maximal run of letters, digits and combining marks, with an
//!   apostrophe (`'` or `’`) inside it kept (`"don't"` is one word); tables are matched against
//!   lexical words, lower-cased, so punctuation around a word never hides it.
//!
//! Every random decision is a draw from the per-text generator the caller passes, in text
//! order, one decision per candidate whatever the outcome, so a transform's output depends only on
//! (text, parameters, seed).

use std::borrow::Cow;
use std::ops::Range;

use suite_core::ResolveError;
use unicode_general_category::{GeneralCategory, get_general_category};

use crate::descriptor::Descriptor;
use crate::param::{Param, ParamType, Params};

pub mod numbers;
pub mod random_word;
#[cfg(feature = "typo-tasks")]
pub mod typo_task;
#[cfg(feature = "tables")]
pub mod wordnet;

#[cfg(feature = "tables")]
pub mod entities;
#[cfg(feature = "tables")]
pub mod lexicon;
#[cfg(feature = "tables")]
pub mod ocr;
#[cfg(feature = "tables")]
pub mod table;

/// The word-level transforms of the enabled features, in listing order (`ocr`, a character-level
/// transform that needs a table, is listed here too).
pub(crate) fn descriptors() -> Vec<&'static Descriptor> {
    let mut out: Vec<&'static Descriptor> = Vec::new();
    #[cfg(feature = "typo-tasks")]
    out.extend(typo_task::DESCRIPTORS);
    out.extend(random_word::DESCRIPTORS);
    #[cfg(feature = "tables")]
    {
        out.extend(lexicon::DESCRIPTORS);
        #[cfg(feature = "typo-tasks")]
        out.extend(lexicon::HOMOPHONE);
    }
    out.extend(numbers::DESCRIPTORS);
    #[cfg(feature = "tables")]
    out.extend(wordnet::DESCRIPTORS);
    #[cfg(feature = "tables")]
    {
        out.extend(entities::DESCRIPTORS);
        out.extend(ocr::DESCRIPTORS);
    }
    out
}

/// The `table` parameter of the table-backed transforms.
#[cfg_attr(not(feature = "tables"), allow(dead_code))]
pub(crate) const TABLE_PARAM: Param = Param {
    name: "table",
    ty: ParamType::Text,
    default: Some("\"\""),
    doc: "path of a file replacing the built-in table (empty: the built-in one; \
          format in the crate's data/README.md)",
};

#[cfg(feature = "tables")]
/// A table-driven word corruption: severity `rate`, `params` (its rate, seed and `table`), an
/// example run at rate 1 so it visibly changes.
pub(crate) const fn table_corruption(
    name: &'static str,
    description: &'static str,
    params: &'static [Param],
    example: &'static str,
    build: crate::descriptor::BuildFn,
) -> Descriptor {
    Descriptor {
        name,
        level: crate::descriptor::Level::Word,
        kind: crate::descriptor::Kind::Corruption { severity: "rate" },
        description,
        params,
        example,
        example_params: r#"{"rate": 1.0}"#,
        build,
    }
}

/// The `table` parameter: `None` for the built-in table.
#[cfg_attr(not(feature = "tables"), allow(dead_code))]
pub(crate) fn table_path(p: &Params<'_>) -> Result<Option<std::path::PathBuf>, ResolveError> {
    let path = p.str("table")?;
    Ok((!path.is_empty()).then(|| std::path::PathBuf::from(path)))
}

/// The byte ranges of the tokens of `text`: maximal runs of non-whitespace characters.
#[cfg(feature = "typo-tasks")]
pub(crate) fn tokens(text: &str) -> Vec<Range<usize>> {
    Tokens::new(text).collect()
}

/// The tokens of a text as an iterator (no allocation), ASCII bytes read without decoding.
pub(crate) struct Tokens<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Tokens<'a> {
    pub(crate) fn new(text: &'a str) -> Tokens<'a> {
        Tokens { text, at: 0 }
    }

    /// Whether the character at byte `i` is whitespace, and its length.
    fn space_at(&self, i: usize) -> (bool, usize) {
        let b = self.text.as_bytes()[i];
        if b < 0x80 {
            // char::is_whitespace on ASCII: \t \n \x0b \x0c \r and space.
            return (matches!(b, b' ' | b'\t'..=b'\r'), 1);
        }
        match self.text[i..].chars().next() {
            Some(c) => (c.is_whitespace(), c.len_utf8()),
            None => (false, 1),
        }
    }
}

impl Iterator for Tokens<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let len = self.text.len();
        while self.at < len {
            let (space, n) = self.space_at(self.at);
            if !space {
                break;
            }
            self.at += n;
        }
        if self.at >= len {
            return None;
        }
        let start = self.at;
        while self.at < len {
            let (space, n) = self.space_at(self.at);
            if space {
                break;
            }
            self.at += n;
        }
        Some(start..self.at)
    }
}

/// Whether `c` is a combining mark (general category M): it belongs to the letter before it.
pub(crate) fn is_mark(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::NonspacingMark
            | GeneralCategory::SpacingMark
            | GeneralCategory::EnclosingMark
    )
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '\u{2019}'
}

/// The byte ranges of the lexical words of `text`: maximal runs of alphanumeric characters and
/// the combining marks after them, an apostrophe between two such characters included.
pub(crate) fn lexical_words(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let inside = if c.is_alphanumeric() || (start.is_some() && is_mark(c)) {
            true
        } else if start.is_some() && is_apostrophe(c) {
            chars.peek().is_some_and(|&(_, n)| n.is_alphanumeric())
        } else {
            false
        };
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// The letter case of a word, as far as a replacement should copy it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "tables"), allow(dead_code))]
pub(crate) enum Case {
    /// No upper-case letter (or no cased letter at all): replacements are used as written.
    Lower,
    /// First letter upper, the rest not: the replacement's first letter is upper-cased.
    Title,
    /// Two or more letters, all upper: the replacement is upper-cased.
    Upper,
}

#[cfg_attr(not(feature = "tables"), allow(dead_code))]
impl Case {
    /// The case of `word`.
    pub(crate) fn of(word: &str) -> Case {
        let mut letters = word.chars().filter(|c| c.is_alphabetic());
        let Some(first) = letters.next() else {
            return Case::Lower;
        };
        let rest: Vec<char> = letters.collect();
        if first.is_uppercase() && !rest.is_empty() && rest.iter().all(|c| !c.is_lowercase()) {
            Case::Upper
        } else if first.is_uppercase() {
            Case::Title
        } else {
            Case::Lower
        }
    }

    /// `replacement` written in this case (pushed onto `out`).
    pub(crate) fn write(self, replacement: &str, out: &mut String) {
        match self {
            Case::Lower => out.push_str(replacement),
            Case::Upper => out.extend(replacement.chars().flat_map(char::to_uppercase)),
            Case::Title => {
                let mut chars = replacement.chars();
                if let Some(first) = chars.next() {
                    out.extend(first.to_uppercase());
                }
                out.push_str(chars.as_str());
            }
        }
    }
}

/// `text` with each range of `edits` (sorted, disjoint) replaced by its string.
pub(crate) fn splice(text: &str, edits: &[(Range<usize>, String)]) -> String {
    let extra: usize = edits.iter().map(|(_, s)| s.len()).sum();
    let mut out = String::with_capacity(text.len() + extra);
    let mut at = 0;
    for (range, with) in edits {
        out.push_str(&text[at..range.start]);
        out.push_str(with);
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// `word` lower-cased with `’` written `'`: the form tables are keyed by (borrowed when `word`
/// already is in that form, as most words of a text are).
pub(crate) fn table_key(word: &str) -> Cow<'_, str> {
    if word
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'\'')
    {
        return Cow::Borrowed(word);
    }
    Cow::Owned(
        word.chars()
            .map(|c| if c == '\u{2019}' { '\'' } else { c })
            .flat_map(char::to_lowercase)
            .collect(),
    )
}

/// A generator for unit tests, numbered by `n`.
#[cfg(test)]
pub(crate) fn test_rng(n: u8) -> crate::rng::TextRng {
    use crate::rng::{Domain, TextRng};
    TextRng::new(
        &suite_core::TextHash::of(&n.to_string()),
        &Domain::of("word tests"),
        0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words<'a>(text: &'a str, ranges: &[Range<usize>]) -> Vec<&'a str> {
        ranges.iter().map(|r| &text[r.clone()]).collect()
    }

    #[test]
    fn tokens_are_non_whitespace_runs() {
        for t in [
            "a\u{b}b\u{c}c\u{85}d\u{a0}e\u{2028}f",
            " \t x\r\n",
            "é\u{3000}ü",
            "\u{1c}x\u{1f}",
        ] {
            let slow: Vec<&str> = t
                .split(char::is_whitespace)
                .filter(|s| !s.is_empty())
                .collect();
            assert_eq!(words(t, &tokens(t)), slow, "{t:?}");
        }
        let t = "  Hello,\tworld!\u{3000}ok ";
        assert_eq!(words(t, &tokens(t)), ["Hello,", "world!", "ok"]);
        assert!(tokens("").is_empty());
        assert!(tokens(" \n ").is_empty());
    }

    #[test]
    fn lexical_words_keep_inner_apostrophes_and_marks() {
        let t = "'Don't' stop—e\u{301}te rock’n’roll 42x l'";
        assert_eq!(
            words(t, &lexical_words(t)),
            ["Don't", "stop", "e\u{301}te", "rock’n’roll", "42x", "l"]
        );
        // A lone combining mark is no word.
        assert!(lexical_words("\u{301}").is_empty());
    }

    #[test]
    fn case_is_copied() {
        let mut out = String::new();
        for (word, repl, want) in [
            ("colour", "color", "color"),
            ("Colour", "color", "Color"),
            ("COLOUR", "color", "COLOR"),
            ("I", "me", "Me"),
            ("iPhone", "x", "x"),
            ("42", "forty-two", "forty-two"),
        ] {
            out.clear();
            Case::of(word).write(repl, &mut out);
            assert_eq!(out, want, "{word}");
        }
    }
}
