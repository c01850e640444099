//! Random word operations over tokens (maximal runs of non-whitespace characters, punctuation
//! travelling with its word, as nlpaug's `RandomWordAug`/`SplitAug` see words): delete, swap with
//! the next token, split in two, merge with the next token, crop a contiguous run.
//!
//! Whitespace is kept as it was wherever a token stays: a deleted token takes the whitespace
//! before it with it (the first token, the whitespace after it), so no double spaces appear.

use suite_core::{ResolveError, Transform};

use crate::descriptor::{BuildFn, Descriptor, Kind, Level};
use crate::param::{Param, Params};
use crate::rng::seeded;
use std::ops::Range;

use super::{is_mark, tokens};
use crate::rng::{Probability, TextRng};

/// Which operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordOp {
    /// `word_delete`: each token removed with probability `rate`.
    Delete,
    /// `word_swap`: walking left to right, each token swapped with the next with probability
    /// `rate` (so a token may travel further right).
    Swap,
    /// `word_split`: each token with a split point picked with probability `rate` and cut in two
    /// by a space at a uniformly chosen split point (a boundary between two alphanumeric
    /// characters, never before a combining mark).
    Split,
    /// `word_merge`: each gap between two tokens removed with probability `rate`.
    Merge,
    /// `word_crop`: one contiguous run of `round(rate × tokens)` tokens removed, its start
    /// chosen uniformly.
    Crop,
}

impl WordOp {
    /// Every operation, in catalogue order.
    #[cfg(test)]
    pub const ALL: [WordOp; 5] = [
        WordOp::Delete,
        WordOp::Swap,
        WordOp::Split,
        WordOp::Merge,
        WordOp::Crop,
    ];

    /// The transform name (`word_delete`, …).
    const fn name(self) -> &'static str {
        match self {
            WordOp::Delete => "word_delete",
            WordOp::Swap => "word_swap",
            WordOp::Split => "word_split",
            WordOp::Merge => "word_merge",
            WordOp::Crop => "word_crop",
        }
    }

    /// The one-line description.
    pub const fn description(self) -> &'static str {
        match self {
            WordOp::Delete => "deletes each word with probability `rate`",
            WordOp::Swap => "swaps each word with the next one with probability `rate`",
            WordOp::Split => "splits each word in two with a space with probability `rate`",
            WordOp::Merge => "joins each pair of neighbouring words with probability `rate`",
            WordOp::Crop => "removes one contiguous run of `rate` × the words",
        }
    }
}

/// A random word operation at a rate (its severity).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RandomWord {
    op: WordOp,
    rate: f64,
    p: Probability,
}

impl RandomWord {
    /// `op` at `rate` (in `[0, 1]`, checked by the catalogue).
    pub fn new(op: WordOp, rate: f64) -> RandomWord {
        RandomWord {
            op,
            rate,
            p: Probability::new(rate),
        }
    }

    /// Applies the operation to `text`, drawing from `rng`.
    pub fn apply(&self, text: &str, rng: &mut TextRng) -> String {
        if self.p.is_zero() {
            return text.to_owned();
        }
        let toks = tokens(text);
        match self.op {
            WordOp::Delete => {
                let keep: Vec<bool> = toks.iter().map(|_| !rng.chance(self.p)).collect();
                keep_tokens(text, &toks, &keep)
            }
            WordOp::Crop => {
                let n = toks.len();
                let k = ((self.rate * n as f64).round() as usize).min(n);
                if k == 0 {
                    return text.to_owned();
                }
                let start = rng.below(n - k + 1);
                let keep: Vec<bool> = (0..n).map(|i| i < start || i >= start + k).collect();
                keep_tokens(text, &toks, &keep)
            }
            WordOp::Swap => {
                let mut order: Vec<usize> = (0..toks.len()).collect();
                for i in 0..order.len().saturating_sub(1) {
                    if rng.chance(self.p) {
                        order.swap(i, i + 1);
                    }
                }
                let mut out = String::with_capacity(text.len());
                let mut at = 0;
                for (slot, &from) in toks.iter().zip(&order) {
                    out.push_str(&text[at..slot.start]);
                    out.push_str(&text[toks[from].clone()]);
                    at = slot.end;
                }
                out.push_str(&text[at..]);
                out
            }
            WordOp::Merge => {
                let mut out = String::with_capacity(text.len());
                let mut at = 0;
                for pair in toks.windows(2) {
                    if rng.chance(self.p) {
                        out.push_str(&text[at..pair[0].end]);
                        at = pair[1].start;
                    }
                }
                out.push_str(&text[at..]);
                out
            }
            WordOp::Split => {
                let mut edits = Vec::new();
                for range in toks {
                    if !rng.chance(self.p) {
                        continue;
                    }
                    let points = split_points(&text[range.clone()]);
                    if points.is_empty() {
                        continue;
                    }
                    let at = range.start + points[rng.below(points.len())];
                    edits.push((at..at, " ".to_owned()));
                }
                super::splice(text, &edits)
            }
        }
    }
}

/// Byte offsets inside `token` where a split leaves two non-empty alphanumeric halves: between
/// an alphanumeric character (or a mark after one) and an alphanumeric character.
fn split_points(token: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut prev_alnum = false;
    for (i, c) in token.char_indices() {
        let alnum = c.is_alphanumeric();
        if alnum && prev_alnum && i > 0 {
            out.push(i);
        }
        prev_alnum = alnum || (prev_alnum && is_mark(c));
    }
    out
}

/// `text` with the tokens whose `keep` is false removed, each with the whitespace before it (the
/// whitespace after it when no kept token precedes it).
fn keep_tokens(text: &str, toks: &[Range<usize>], keep: &[bool]) -> String {
    let Some(first) = toks.first() else {
        return text.to_owned();
    };
    let last_end = toks.last().map_or(0, |t| t.end);
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first.start]);
    let mut any = false;
    for (i, t) in toks.iter().enumerate() {
        if !keep[i] {
            continue;
        }
        if any {
            // The whitespace that preceded this token in the text.
            let gap_start = toks[i - 1].end;
            out.push_str(&text[gap_start..t.start]);
        }
        out.push_str(&text[t.clone()]);
        any = true;
    }
    out.push_str(&text[last_end..]);
    out
}

fn build(op: WordOp, p: &Params<'_>) -> Result<Transform, ResolveError> {
    let words = RandomWord::new(op, p.f64("rate")?);
    if words.p.is_zero() {
        return Ok(Transform::new(str::to_owned));
    }
    Ok(seeded(op.name(), p.u64("seed")?, move |text, rng| {
        words.apply(text, rng)
    }))
}

const RATE_SEED: &[Param] = &[
    Param::rate(
        "probability per word (per gap for word_merge; crop: fraction of the words)",
        "0.1",
    ),
    Param::seed(),
];

const fn random_word(op: WordOp, build: BuildFn) -> Descriptor {
    Descriptor {
        name: op.name(),
        level: Level::Word,
        kind: Kind::Corruption { severity: "rate" },
        description: op.description(),
        params: RATE_SEED,
        example: "The quick brown fox jumps over the lazy dog",
        example_params: r#"{"rate": 0.3}"#,
        build,
    }
}

/// The random word operations.
pub(crate) static DESCRIPTORS: &[Descriptor] = &[
    random_word(WordOp::Delete, |p| build(WordOp::Delete, p)),
    random_word(WordOp::Swap, |p| build(WordOp::Swap, p)),
    random_word(WordOp::Split, |p| build(WordOp::Split, p)),
    random_word(WordOp::Merge, |p| build(WordOp::Merge, p)),
    random_word(WordOp::Crop, |p| build(WordOp::Crop, p)),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::word::test_rng;

    fn run(op: WordOp, rate: f64, text: &str) -> String {
        RandomWord::new(op, rate).apply(text, &mut test_rng(5))
    }

    #[test]
    fn rate_one_and_zero() {
        let t = " the quick  brown fox ";
        assert_eq!(run(WordOp::Delete, 1.0, t), "  ");
        assert_eq!(run(WordOp::Crop, 1.0, t), "  ");
        assert_eq!(run(WordOp::Merge, 1.0, t), " thequickbrownfox ");
        assert_eq!(run(WordOp::Swap, 1.0, t), " quick brown  fox the ");
        let split = run(WordOp::Split, 1.0, t);
        assert_eq!(tokens(&split).len(), 8, "{split}");
        for op in WordOp::ALL {
            assert_eq!(run(op, 0.0, t), t);
        }
    }

    #[test]
    fn delete_keeps_the_spacing_of_kept_words() {
        let toks = tokens("a b\tc  d");
        assert_eq!(
            keep_tokens("a b\tc  d", &toks, &[false, true, false, true]),
            "b  d"
        );
        assert_eq!(
            keep_tokens(" a b ", &tokens(" a b "), &[true, false]),
            " a "
        );
    }

    #[test]
    fn split_points_never_cut_marks_or_punctuation() {
        assert_eq!(split_points("ab"), [1]);
        assert_eq!(split_points("a\u{301}b"), [3]);
        assert!(split_points("a.b").is_empty());
        assert!(split_points("x").is_empty());
    }
}
