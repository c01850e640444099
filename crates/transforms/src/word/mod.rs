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
#[cfg(test)]
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
        let end = chunk_end(text, base);
        let chunk = text.as_bytes().get(base..end).unwrap_or_default();
        let (mut space, mut maybe) = chunk_masks(chunk, whitespace_bytes);
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

/// Where the chunk starting at `base` ends: 64 bytes on, or the text's end, moved back to a
/// character boundary (a chunk is never empty: a character has at most 4 bytes).
fn chunk_end(text: &str, base: usize) -> usize {
    let mut end = (base + 64).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// Two bit masks of a chunk of at most 64 bytes (bit `i`: byte `i`), from `eight`, which
/// classifies 8 bytes at a time (byte `i` of its argument: bit `i` of each mask). The last few
/// bytes are padded with zero bytes, which `eight` must put in neither mask.
fn chunk_masks(chunk: &[u8], eight: impl Fn(u64) -> (u64, u64)) -> (u64, u64) {
    let (mut a, mut b) = (0u64, 0u64);
    let mut parts = chunk.chunks_exact(8);
    for (k, part) in parts.by_ref().enumerate() {
        let mut buf = [0u8; 8];
        buf.copy_from_slice(part);
        let (x, y) = eight(u64::from_le_bytes(buf));
        a |= x << (8 * k);
        b |= y << (8 * k);
    }
    let rest = parts.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        for (b, &r) in buf.iter_mut().zip(rest) {
            *b = r;
        }
        let (x, y) = eight(u64::from_le_bytes(buf));
        let k = chunk.len() - rest.len();
        a |= x << k;
        b |= y << k;
    }
    (a, b)
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

/// `[0-9A-Za-z]` by byte (every other byte `false`).
const ASCII_ALNUM: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    table
};

/// The byte ranges of the lexical words of `text`: maximal runs of alphanumeric characters and
/// the combining marks after them, an apostrophe between two such characters included.
///
/// Runs of ASCII bytes are scanned by the byte, in tight loops (no ASCII character is a combining
/// mark, and ASCII's alphanumerics are `[0-9A-Za-z]`); only other characters are decoded and,
/// inside a word, looked up in the general-category table. A decode and a category lookup at
/// every character was most of a table rewrite's time.
pub(crate) fn lexical_words(text: &str) -> Vec<Range<usize>> {
    // English averages more than five bytes a word: one allocation for most texts.
    let mut out = Vec::with_capacity(text.len() / 4 + 4);
    scan_lexical_words(text, |range, _| out.push(range));
    out
}

/// [`lexical_words`] as a scan: `found(range, ascii)` for each word in order, `ascii` telling
/// whether the word is all ASCII (so its table key is the word lower-cased, as long).
///
/// The text is read in chunks of up to 64 bytes (cut at character boundaries), like [`Tokens`]:
/// a chunk of ASCII without an apostrophe is classified 8 bytes at a time into a bit mask of its
/// alphanumeric bytes, and its words start and end where that mask changes. A chunk with an
/// apostrophe or a non-ASCII byte is read a character at a time, with the same rules; the open
/// word (if any) carries from chunk to chunk either way.
pub(crate) fn scan_lexical_words(text: &str, mut found: impl FnMut(Range<usize>, bool)) {
    let bytes = text.as_bytes();
    let at = |i: usize| text.get(i..).and_then(|rest| rest.chars().next());
    let alnum_at = |i: usize| at(i).is_some_and(char::is_alphanumeric);
    // The open word: its start, and whether it is all ASCII so far.
    let mut open: Option<(usize, bool)> = None;
    let mut base = 0;
    while base < bytes.len() {
        let end = chunk_end(text, base);
        let chunk = bytes.get(base..end).unwrap_or_default();
        let (alnum, special) = lexical_masks(chunk);
        if special == 0 {
            let n = chunk.len();
            let valid = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
            let before = (alnum << 1) | u64::from(open.is_some());
            let (mut starts, mut ends) = (alnum & !before & valid, !alnum & before & valid);
            // Starts and ends alternate in text order.
            loop {
                match open {
                    None if starts != 0 => {
                        open = Some((base + starts.trailing_zeros() as usize, true));
                        starts &= starts - 1;
                    }
                    Some((start, ascii)) if ends != 0 => {
                        found(start..base + ends.trailing_zeros() as usize, ascii);
                        ends &= ends - 1;
                        open = None;
                    }
                    _ => break,
                }
            }
        } else {
            let mut i = base;
            while i < end {
                let Some(c) = at(i) else { break };
                let inside = if c.is_ascii() {
                    ASCII_ALNUM[c as usize] || (c == '\'' && open.is_some() && alnum_at(i + 1))
                } else {
                    c.is_alphanumeric()
                        || (open.is_some()
                            && (is_mark(c) || (is_apostrophe(c) && alnum_at(i + c.len_utf8()))))
                };
                match (inside, open) {
                    (true, None) => open = Some((i, c.is_ascii())),
                    (true, Some((start, ascii))) => open = Some((start, ascii && c.is_ascii())),
                    (false, Some((start, ascii))) => {
                        found(start..i, ascii);
                        open = None;
                    }
                    (false, None) => {}
                }
                i += c.len_utf8();
            }
        }
        base = end;
    }
    if let Some((start, ascii)) = open {
        found(start..bytes.len(), ascii);
    }
}

/// The bit masks (bit `i`: byte `i`) of a chunk of at most 64 bytes: its ASCII alphanumeric
/// bytes, and its "special" bytes (non-ASCII, or an apostrophe), which need the character-wise
/// reading. SWAR over 8 bytes at a time, as [`whitespace_bytes`].
fn lexical_masks(chunk: &[u8]) -> (u64, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let eight = |x: u64| {
        // High bit of each byte that is zero (exact: no borrow crosses bytes).
        let zero = |t: u64| !((((t & LOW7) + LOW7) | t) | LOW7);
        // High bit of each byte whose low seven bits are in lo..=hi.
        let low7_in = |lo: u8, hi: u8| {
            let at_least = (x & LOW7) + ONES * u64::from(0x80 - lo);
            let above = (x & LOW7) + ONES * u64::from(0x7f - hi);
            at_least & !above & HIGH
        };
        // An ASCII letter of either case ORed with 0x20 is in a..=z, and no other ASCII byte
        // is (the five that land beside it, from `@` and `[` to `_`, map to `` ` `` and `{`..`\x7f`).
        let folded = x | (ONES * 0x20);
        let letter = {
            let at_least = (folded & LOW7) + ONES * u64::from(0x80 - b'a');
            let above = (folded & LOW7) + ONES * u64::from(0x7f - b'z');
            at_least & !above & HIGH
        };
        let alnum = (low7_in(b'0', b'9') | letter) & !x;
        let special = (x & HIGH) | zero(x ^ (ONES * u64::from(b'\'')));
        let pack = |m: u64| ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
        (pack(alnum), pack(special))
    };
    chunk_masks(chunk, eight)
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

    /// [`lexical_words`] as first written, a character at a time: what the byte scan must equal.
    fn lexical_words_by_char(text: &str) -> Vec<Range<usize>> {
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

    proptest::proptest! {
        #[test]
        fn lexical_words_agree_with_the_char_scan(text in "(\\PC|\\s|['’\u{301}\u{0e33}0-9a-zA-Z]){0,120}") {
            proptest::prop_assert_eq!(lexical_words(&text), lexical_words_by_char(&text));
        }

        /// Long ASCII runs (the 8-bytes-at-a-time chunks) with the odd apostrophe, mark or
        /// non-ASCII letter (the character-wise chunks), so words cross chunks of both kinds.
        #[test]
        fn lexical_words_agree_across_chunk_kinds(text in "([a-zA-Z0-9 .,\\-]{0,90}(['’\u{301}é]|\\PC)?){0,5}") {
            proptest::prop_assert_eq!(lexical_words(&text), lexical_words_by_char(&text));
        }
    }

    #[test]
    fn lexical_words_agree_with_a_special_character_at_every_offset() {
        for special in ["'", "’", "\u{301}", "é", "\u{a0}", "漢"] {
            for at in 0..140 {
                let mut text: String = "ab cd'ef gh-ij ".chars().cycle().take(at).collect();
                text.push_str(special);
                text.push_str("xy z0 9q rst uvw ");
                text.push_str(&"kl mn ".repeat(12));
                assert_eq!(
                    lexical_words(&text),
                    lexical_words_by_char(&text),
                    "{special:?} at {at}"
                );
            }
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
