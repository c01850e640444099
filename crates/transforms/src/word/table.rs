//! Word tables: the compiled-in files under `data/` and their user replacements (`table_path`).
//!
//! One format for every table: UTF-8 text, one row per line, fields separated by tabs; blank
//! lines and lines starting with `#` are skipped (the shipped files carry their source and
//! licence in such a header). Each table says how many fields a row has; errors name the file (or
//! `builtin:NAME`) and the line.
//!
//! Tables keyed by words are matched against lexical words (see [`super::lexical_words`]),
//! lower-cased, `’` read as `'`; a key of several words matches those words separated by
//! whitespace only, and the longest key wins where several start at one word.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use foldhash::fast::FixedState;

use super::{lexical_words, scan_lexical_words, table_key};

/// The rows of one table file: (1-based line, fields).
#[derive(Debug, Clone)]
pub struct Rows {
    /// Where the rows came from (`builtin:us_uk.tsv` or the user's path), for errors.
    pub source: String,
    /// Each row with its line number.
    pub rows: Vec<(usize, Vec<String>)>,
}

impl Rows {
    /// Parses `text`, read from `source`.
    pub fn parse(source: &str, text: &str) -> Result<Rows, String> {
        // A byte-order mark some editors write is no part of the first key.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<String> = line.split('\t').map(|f| f.trim().to_owned()).collect();
            if let Some(k) = fields.iter().position(String::is_empty) {
                return Err(table_error(
                    source,
                    i + 1,
                    format!("field {} is empty (fields are separated by tabs)", k + 1),
                ));
            }
            rows.push((i + 1, fields));
        }
        if rows.is_empty() {
            return Err(table_error(source, 0, "the table has no rows".into()));
        }
        Ok(Rows {
            source: source.to_owned(),
            rows,
        })
    }

    /// The built-in table `name` (its text compiled in), or the file at `path` when given.
    pub fn load(name: &str, builtin: &str, path: Option<&Path>) -> Result<Rows, String> {
        match path {
            None => Rows::parse(&format!("builtin:{name}"), builtin),
            Some(path) => {
                let source = path.display().to_string();
                let text = std::fs::read_to_string(path)
                    .map_err(|e| table_error(&source, 0, format!("cannot read: {e}")))?;
                Rows::parse(&source, &text)
            }
        }
    }

    /// An error about row `line` of this table.
    pub fn error(&self, line: usize, message: String) -> String {
        table_error(&self.source, line, message)
    }

    /// Checks every row has between `min` and `max` fields, `what` describing them.
    pub fn check_fields(&self, min: usize, max: usize, what: &str) -> Result<(), String> {
        for (line, fields) in &self.rows {
            if fields.len() < min || fields.len() > max {
                return Err(self.error(
                    *line,
                    format!("expected {what}, found {} field(s)", fields.len()),
                ));
            }
        }
        Ok(())
    }
}

fn table_error(source: &str, line: usize, message: String) -> String {
    if line == 0 {
        format!("{source}: {message}")
    } else {
        format!("{source}:{line}: {message}")
    }
}

/// Keys of one or more words, matched longest first against a text's lexical words.
#[derive(Debug, Clone)]
pub struct PhraseMap {
    /// Every key (its words joined by single spaces) and every word that starts a key of two or
    /// more words: one lookup of a text's word finds both what it is and what it starts.
    slots: HashMap<Box<str>, Slot, FixedState>,
    /// `ascii_first[b]`, bit `n`: some single-word key or first word of a key is ASCII, starts
    /// with byte `b` and is `n` bytes long (bit 63: 63 or more). An ASCII word's key is the word
    /// lower-cased, the same length, so an ASCII word whose bit is clear has no slot: most words
    /// of a text are ruled out without being hashed.
    ascii_first: [u64; 128],
}

/// What a key or a key's first word leads to.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// The key's id, when this is a key.
    id: Option<usize>,
    /// The most words of a key starting with this word (1 when it starts no longer key).
    longest: usize,
}

impl Default for PhraseMap {
    fn default() -> PhraseMap {
        PhraseMap {
            slots: HashMap::default(),
            ascii_first: [0; 128],
        }
    }
}

impl PhraseMap {
    /// Adds `key` (words separated by spaces) as id `id`, unless it is already there (the first
    /// row of a key wins; then `Ok(false)`). A key that is not made of whole lexical words could
    /// never match and is refused (`Err` holds the message).
    pub fn insert(&mut self, key: &str, id: usize) -> Result<bool, String> {
        let mut words = Vec::new();
        for word in key.split_whitespace() {
            let lex = lexical_words(word);
            if lex.len() != 1 || lex[0] != (0..word.len()) {
                return Err(format!(
                    "key `{key}`: `{word}` is not one word (letters, digits, marks, inner apostrophes)"
                ));
            }
            words.push(table_key(word).into_owned());
        }
        let Some(first) = words.first() else {
            return Err("empty key".into());
        };
        if let Some(&b) = first.as_bytes().first()
            && first.is_ascii()
        {
            self.ascii_first[usize::from(b & 0x7f)] |= 1u64 << first.len().min(63);
        }
        let first_slot = self.slots.entry(first.as_str().into()).or_default();
        first_slot.longest = first_slot.longest.max(words.len());
        let slot = self.slots.entry(words.join(" ").into()).or_default();
        if slot.id.is_some() {
            return Ok(false);
        }
        slot.id = Some(id);
        Ok(true)
    }

    /// Whether the text's word `bytes` (`ascii`: all ASCII) may have a slot (false: it certainly
    /// has none).
    fn may_start(&self, bytes: &[u8], ascii: bool) -> bool {
        match bytes.first() {
            Some(&b) if ascii => {
                (self.ascii_first[usize::from(b.to_ascii_lowercase() & 0x7f)]
                    >> bytes.len().min(63))
                    & 1
                    != 0
            }
            _ => true,
        }
    }

    /// The matches in `text`, left to right, non-overlapping, longest key first at each word:
    /// (byte range of the matched words, id).
    pub fn matches(&self, text: &str) -> Vec<(Range<usize>, usize)> {
        // Each word, and whether it may start a match (most words are ruled out as they are
        // found, by their first byte and length).
        let mut words: Vec<(Range<usize>, bool)> = Vec::with_capacity(text.len() / 4 + 4);
        let bytes = text.as_bytes();
        scan_lexical_words(text, |range, ascii| {
            let may = self.may_start(bytes.get(range.clone()).unwrap_or_default(), ascii);
            words.push((range, may));
        });
        let mut out = Vec::new();
        let mut key = String::new();
        let mut i = 0;
        while let Some((range, may)) = words.get(i) {
            let found = if *may {
                let first = table_key(&text[range.clone()]);
                self.slots.get(&*first).map(|slot| (first, slot))
            } else {
                None
            };
            let Some((first, slot)) = found else {
                i += 1;
                continue;
            };
            let mut matched = 0;
            for len in (2..=slot.longest.min(words.len() - i)).rev() {
                let joined_by_spaces = (i..i + len - 1).all(|j| {
                    let gap = &text[words[j].0.end..words[j + 1].0.start];
                    !gap.is_empty() && gap.chars().all(char::is_whitespace)
                });
                if !joined_by_spaces {
                    continue;
                }
                key.clear();
                key.push_str(&first);
                for (r, _) in &words[i + 1..i + len] {
                    key.push(' ');
                    key.push_str(&table_key(&text[r.clone()]));
                }
                if let Some(&Slot { id: Some(id), .. }) = self.slots.get(key.as_str()) {
                    out.push((range.start..words[i + len - 1].0.end, id));
                    matched = len;
                    break;
                }
            }
            if matched == 0
                && let Some(id) = slot.id
            {
                out.push((range.clone(), id));
                matched = 1;
            }
            i += matched.max(1);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_skip_comments_and_name_bad_lines() {
        let rows = Rows::parse("t", "\u{feff}# header\n\na\tb\r\nc\td\te\n").unwrap();
        assert_eq!(rows.rows.len(), 2);
        assert_eq!(rows.rows[1], (4, vec!["c".into(), "d".into(), "e".into()]));
        let bom = Rows::parse("t", "\u{feff}x\ty\n").unwrap();
        assert_eq!(bom.rows[0].1[0], "x");
        let err = rows.check_fields(2, 2, "`A<TAB>B`").unwrap_err();
        assert_eq!(err.to_string(), "t:4: expected `A<TAB>B`, found 3 field(s)");
        let err = Rows::parse("f.tsv", "a\t\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "f.tsv:1: field 2 is empty (fields are separated by tabs)"
        );
        assert!(Rows::parse("f", "# only\n").is_err());
        let err = Rows::load("x", "", Some(Path::new("/nonexistent/capkit.tsv"))).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("/nonexistent/capkit.tsv: cannot read")
        );
    }

    #[test]
    fn phrases_match_longest_first_over_whitespace_only() {
        let mut map = PhraseMap::default();
        map.insert("new york", 0).unwrap();
        map.insert("new", 1).unwrap();
        map.insert("don't", 2).unwrap();
        assert!(map.insert("e.g.", 3).is_err());
        let text = "New  York, new-york; DON’T new\nYORK";
        let got: Vec<(&str, usize)> = map
            .matches(text)
            .into_iter()
            .map(|(r, id)| (&text[r], id))
            .collect();
        assert_eq!(
            got,
            [("New  York", 0), ("new", 1), ("DON’T", 2), ("new\nYORK", 0)]
        );
    }
}
