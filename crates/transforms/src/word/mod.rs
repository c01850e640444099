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

/// The tokens of a text as an iterator (no allocation).
///
/// The text is read in chunks of up to 64 bytes (cut at character boundaries): one branch-free
/// pass per chunk marks its whitespace bytes in a `u64`, and token starts and ends are the bits
/// where that mask changes, taken lowest first. A branch per byte ("is this the end of the
/// word?") mispredicted at every word boundary and was half of a word transform's time.
pub(crate) struct Tokens<'a> {
    text: &'a str,
    /// Where the next chunk starts.
    next: usize,
    /// Where the current chunk starts.
    base: usize,
    /// Token starts (bit i: byte `base + i`) of the current chunk not yet taken.
    starts: u64,
    /// Token ends (the first whitespace byte after a token) of the current chunk not yet taken.
    ends: u64,
    /// Whether the byte before the next chunk is whitespace (true before the text).
    prev_space: bool,
    /// The start of the token being read, whose end is not found yet.
    open: Option<usize>,
}

impl<'a> Tokens<'a> {
    pub(crate) fn new(text: &'a str) -> Tokens<'a> {
        Tokens {
            text,
            next: 0,
            base: 0,
            starts: 0,
            ends: 0,
            prev_space: true,
            open: None,
        }
    }

    /// Loads the next chunk; `false` at the end of the text. Kept out of line so `next`, called
    /// once per token, inlines into its callers.
    #[inline(never)]
    fn advance(&mut self) -> bool {
        let (text, base) = (self.text, self.next);
        if base >= text.len() {
            return false;
        }
        let mut end = (base + 64).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let chunk = text.as_bytes().get(base..end).unwrap_or_default();
        let (mut space, mut maybe) = (0u64, 0u64);
        let mut words = chunk.chunks_exact(8);
        for (k, word) in words.by_ref().enumerate() {
            let mut eight = [0u8; 8];
            eight.copy_from_slice(word);
            let (s, m) = whitespace_bytes(u64::from_le_bytes(eight));
            space |= s << (8 * k);
            maybe |= m << (8 * k);
        }
        let done = chunk.len() - words.remainder().len();
        for (i, &b) in words.remainder().iter().enumerate() {
            let mut eight = [0u8; 8];
            eight[0] = b;
            let (s, m) = whitespace_bytes(u64::from_le_bytes(eight));
            space |= (s & 1) << (done + i);
            maybe |= (m & 1) << (done + i);
        }
        while maybe != 0 {
            let i = maybe.trailing_zeros() as usize;
            maybe &= maybe - 1;
            if let Some(c) = text.get(base + i..).and_then(|rest| rest.chars().next())
                && c.is_whitespace()
            {
                space |= ((1u64 << c.len_utf8()) - 1) << i;
            }
        }
        let n = chunk.len();
        let valid = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        let before_is_space = (space << 1) | u64::from(self.prev_space);
        self.starts = !space & before_is_space & valid;
        self.ends = space & !before_is_space & valid;
        self.prev_space = n > 0 && space & (1u64 << (n - 1)) != 0;
        self.base = base;
        self.next = end;
        true
    }
}

/// Eight bytes at once (SWAR, byte `i` of `x` = bit `i` of each mask): which are ASCII
/// whitespace (`char::is_whitespace` on ASCII: \t \n \x0b \x0c \r and space), and which are the
/// lead byte of a character that may be Unicode whitespace (U+0085 and U+00A0 start with 0xC2,
/// U+1680 with 0xE1, U+2000..U+205F with 0xE2, U+3000 with 0xE3: every one).
fn whitespace_bytes(x: u64) -> (u64, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // High bit of each byte that is zero (exact: no borrow crosses bytes).
    let zero = |t: u64| !((((t & LOW7) + LOW7) | t) | LOW7);
    // High bit of each byte whose low seven bits are in lo..=hi.
    let low7_in = |lo: u8, hi: u8| {
        let at_least = (x & LOW7) + ONES * u64::from(0x80 - lo);
        let above = (x & LOW7) + ONES * u64::from(0x7f - hi);
        at_least & !above & HIGH
    };
    let space = zero(x ^ (ONES * 0x20)) | (low7_in(b'\t', b'\r') & !x);
    let lead = zero(x ^ (ONES * 0xc2)) | (low7_in(0x61, 0x63) & x);
    // Gather the eight high bits into the low byte (distinct partial products: no carries).
    let pack = |m: u64| ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
    (pack(space), pack(lead))
}

impl Iterator for Tokens<'_> {
    type Item = Range<usize>;

    #[inline]
    fn next(&mut self) -> Option<Range<usize>> {
        // Starts and ends alternate in text order, so the lowest pending bit of the one looked
        // for is the next boundary.
        loop {
            match self.open {
                None if self.starts != 0 => {
                    self.open = Some(self.base + self.starts.trailing_zeros() as usize);
                    self.starts &= self.starts - 1;
                }
                Some(start) if self.ends != 0 => {
                    let end = self.base + self.ends.trailing_zeros() as usize;
                    self.ends &= self.ends - 1;
                    self.open = None;
                    return Some(start..end);
                }
                _ => {
                    if !self.advance() {
                        return self.open.take().map(|start| start..self.text.len());
                    }
                }
            }
        }
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

    /// The tokens as `char::is_whitespace` defines them: what the byte-class scan must equal.
    fn split_tokens(text: &str) -> Vec<&str> {
        text.split(char::is_whitespace)
            .filter(|s| !s.is_empty())
            .collect()
    }

    #[test]
    fn every_unicode_whitespace_character_separates_tokens_and_no_other_does() {
        // The scan decodes only the lead bytes BYTE_CLASS marks: a whitespace character starting
        // with any other byte would be missed here.
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let t = format!("a{c}b");
            let got: Vec<&str> = Tokens::new(&t).map(|r| &t[r]).collect();
            assert_eq!(got, split_tokens(&t), "U+{:04X}", u32::from(c));
        }
    }

    proptest::proptest! {
        #[test]
        fn tokens_agree_with_char_is_whitespace(text in "(\\PC|\\s|\u{85}|\u{a0}|\u{3000}|\u{2029}){0,200}") {
            let got: Vec<&str> = Tokens::new(&text).map(|r| &text[r]).collect();
            proptest::prop_assert_eq!(got, split_tokens(&text));
        }
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
