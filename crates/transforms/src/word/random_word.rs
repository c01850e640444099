//! Random word operations over tokens (maximal runs of non-whitespace characters, punctuation
//! travelling with its word, as nlpaug's `RandomWordAug`/`SplitAug` see words): delete, swap with
//! the next token, split in two, merge with the next token, crop a contiguous run.
//!
//! Whitespace is kept as it was wherever a token stays: a deleted token takes the whitespace
//! before it with it (the first token, the whitespace after it), so no double spaces appear.

use std::ops::Range;

use suite_core::{ResolveError, Transform};

use crate::descriptor::{BuildFn, Descriptor, Kind, Level};
use crate::param::{Param, Params};
use crate::rng::seeded;

use super::{Tokens, is_mark};
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
    /// `word_shuffle`: walking left to right, each token swapped with probability `rate` with
    /// another token chosen uniformly (TextAttack's random inner swap).
    Shuffle,
    /// `word_crop`: one contiguous run of `round(rate × tokens)` tokens removed, its start
    /// chosen uniformly.
    Crop,
}

impl WordOp {
    /// Every operation, in catalogue order.
    #[cfg(test)]
    pub const ALL: [WordOp; 6] = [
        WordOp::Delete,
        WordOp::Swap,
        WordOp::Split,
        WordOp::Merge,
        WordOp::Crop,
        WordOp::Shuffle,
    ];

    /// The transform name (`word_delete`, …).
    const fn name(self) -> &'static str {
        match self {
            WordOp::Delete => "word_delete",
            WordOp::Swap => "word_swap",
            WordOp::Split => "word_split",
            WordOp::Merge => "word_merge",
            WordOp::Crop => "word_crop",
            WordOp::Shuffle => "word_shuffle",
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
            WordOp::Shuffle => "swaps each word with a random other word with probability `rate`",
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

    /// Applies the operation to `text`, drawing from `rng`. One pass over the text (two for
    /// `word_crop`, which needs the token count first), writing the output as it goes.
    pub fn apply(&self, text: &str, rng: &mut TextRng) -> String {
        if self.p.is_zero() {
            return text.to_owned();
        }
        match self.op {
            WordOp::Delete => keep_tokens(text, |_| !rng.chance(self.p)),
            WordOp::Crop => {
                let n = Tokens::new(text).count();
                let k = ((self.rate * n as f64).round() as usize).min(n);
                if k == 0 {
                    return text.to_owned();
                }
                without_run(text, rng.below(n - k + 1), k)
            }
            WordOp::Swap => {
                // The sequential swaps of neighbours (0,1), (1,2), ... as one pass: slot i is
                // final once pair (i, i+1) is decided, and holds either the token carried
                // into it or the next one (then the carried token moves on to slot i + 1).
                let mut out = Slices::new(text);
                let mut toks = Tokens::new(text);
                let Some(mut carry) = toks.next() else {
                    return text.to_owned();
                };
                let mut slot = carry.clone();
                let mut at = 0;
                for next in toks {
                    let fill = if rng.chance(self.p) {
                        next.clone()
                    } else {
                        std::mem::replace(&mut carry, next.clone())
                    };
                    out.push(at..slot.start);
                    out.push(fill);
                    at = slot.end;
                    slot = next;
                }
                out.push(at..slot.start);
                out.push(carry);
                out.push(slot.end..text.len());
                out.finish()
            }
            WordOp::Shuffle => {
                let mut content: Vec<std::ops::Range<usize>> = Tokens::new(text).collect();
                let n = content.len();
                if n < 2 {
                    return text.to_owned();
                }
                for i in 0..n {
                    if rng.chance(self.p) {
                        let mut j = rng.below(n - 1);
                        if j >= i {
                            j += 1;
                        }
                        content.swap(i, j);
                    }
                }
                let mut out = String::with_capacity(text.len());
                let mut at = 0;
                for (slot, from) in Tokens::new(text).zip(content) {
                    out.push_str(&text[at..slot.start]);
                    out.push_str(&text[from]);
                    at = slot.end;
                }
                out.push_str(&text[at..]);
                out
            }
            WordOp::Merge => {
                let mut out = String::with_capacity(text.len());
                let mut at = 0;
                let mut prev_end: Option<usize> = None;
                for t in Tokens::new(text) {
                    if let Some(end) = prev_end
                        && rng.chance(self.p)
                    {
                        out.push_str(&text[at..end]);
                        at = t.start;
                    }
                    prev_end = Some(t.end);
                }
                out.push_str(&text[at..]);
                out
            }
            WordOp::Split => {
                let mut out = String::with_capacity(text.len() + text.len() / 8);
                let mut at = 0;
                for t in Tokens::new(text) {
                    if !rng.chance(self.p) {
                        continue;
                    }
                    let token = &text[t.clone()];
                    let n = split_points(token).count();
                    if n == 0 {
                        continue;
                    }
                    if let Some(point) = split_points(token).nth(rng.below(n)) {
                        out.push_str(&text[at..t.start + point]);
                        out.push(' ');
                        at = t.start + point;
                    }
                }
                out.push_str(&text[at..]);
                out
            }
        }
    }
}

/// Byte offsets inside `token` where a split leaves two non-empty alphanumeric halves: between
/// an alphanumeric character (or a mark after one) and an alphanumeric character.
fn split_points(token: &str) -> impl Iterator<Item = usize> + '_ {
    let mut prev_alnum = false;
    token.char_indices().filter_map(move |(i, c)| {
        let alnum = c.is_alphanumeric();
        let point = (alnum && prev_alnum && i > 0).then_some(i);
        prev_alnum = alnum || (prev_alnum && is_mark(c));
        point
    })
}

/// `text` with the tokens for whose index `keep` is false removed, each with the whitespace
/// before it (the whitespace after it when no kept token precedes it). `keep` is called once per
/// token, in order.
fn keep_tokens(text: &str, mut keep: impl FnMut(usize) -> bool) -> String {
    // A kept token brings the text from the end of the token before it (its whitespace) to its
    // own end.
    let mut out = Slices::new(text);
    let mut prev_end: Option<usize> = None;
    let mut any = false;
    for (i, t) in Tokens::new(text).enumerate() {
        if prev_end.is_none() {
            out.push(0..t.start);
        }
        if keep(i) {
            match (any, prev_end) {
                (true, Some(end)) => out.push(end..t.end),
                _ => out.push(t.clone()),
            }
            any = true;
        }
        prev_end = Some(t.end);
    }
    match prev_end {
        None => text.to_owned(),
        Some(end) => {
            out.push(end..text.len());
            out.finish()
        }
    }
}

/// An output written as slices of its input, where consecutive slices that are contiguous in the
/// input are copied as one (most of a lightly corrupted text is copied in a few pieces, not
/// token by token).
struct Slices<'a> {
    text: &'a str,
    out: String,
    /// The slice not yet copied.
    run: Range<usize>,
}

impl<'a> Slices<'a> {
    fn new(text: &'a str) -> Slices<'a> {
        Slices {
            text,
            out: String::with_capacity(text.len()),
            run: 0..0,
        }
    }

    fn push(&mut self, piece: Range<usize>) {
        if piece.start == self.run.end {
            self.run.end = piece.end;
        } else {
            self.out.push_str(&self.text[self.run.clone()]);
            self.run = piece;
        }
    }

    fn finish(mut self) -> String {
        self.out.push_str(&self.text[self.run]);
        self.out
    }
}

/// `text` without tokens `start..start + k` (`k >= 1`), spaced as [`keep_tokens`] spaces it (the
/// run takes the whitespace before it, or after it when it starts the text), found in one partial
/// pass and written as two slices.
fn without_run(text: &str, start: usize, k: usize) -> String {
    let (mut from, mut to) = (0, text.len());
    let mut last_end = None;
    for (i, t) in Tokens::new(text).enumerate() {
        if i == 0 && start == 0 {
            from = t.start;
        } else if i + 1 == start {
            from = t.end;
        }
        if start == 0 && i == k {
            // A run at the start takes the whitespace after it: the text resumes at the next token.
            to = t.start;
            last_end = None;
            break;
        }
        if i + 1 == start + k {
            last_end = Some(t.end);
            if start > 0 {
                break;
            }
        }
    }
    if let Some(end) = last_end {
        to = end;
    }
    let mut out = String::with_capacity(text.len() - (to - from));
    out.push_str(&text[..from]);
    out.push_str(&text[to..]);
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
    random_word(WordOp::Shuffle, |p| build(WordOp::Shuffle, p)),
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
        assert_eq!(Tokens::new(&split).count(), 8, "{split}");
        let shuffled = run(WordOp::Shuffle, 1.0, t);
        let mut words: Vec<&str> = shuffled.split_whitespace().collect();
        assert_ne!(words, ["the", "quick", "brown", "fox"]);
        words.sort_unstable();
        assert_eq!(words, ["brown", "fox", "quick", "the"]);
        assert_eq!(run(WordOp::Shuffle, 1.0, " one "), " one ");
        for op in WordOp::ALL {
            assert_eq!(run(op, 0.0, t), t);
        }
    }

    #[test]
    fn delete_keeps_the_spacing_of_kept_words() {
        let pattern = [false, true, false, true];
        assert_eq!(keep_tokens("a b\tc  d", |i| pattern[i]), "b  d");
        assert_eq!(keep_tokens(" a b ", |i| i == 0), " a ");
        assert_eq!(keep_tokens(" a b ", |_| false), "  ");
        assert_eq!(keep_tokens("  ", |_| false), "  ");
    }

    #[test]
    fn a_cropped_run_is_spaced_as_deleted_tokens() {
        for t in ["a b c d", "  a\tb  c d ", "one", " x  y ", "é  ü\u{3000}ö"] {
            let n = Tokens::new(t).count();
            for k in 1..=n {
                for start in 0..=n - k {
                    let expected = keep_tokens(t, |i| i < start || i >= start + k);
                    assert_eq!(without_run(t, start, k), expected, "{t:?} {start} {k}");
                }
            }
        }
    }

    #[test]
    fn split_points_never_cut_marks_or_punctuation() {
        let points = |t| split_points(t).collect::<Vec<_>>();
        assert_eq!(points("ab"), [1]);
        assert_eq!(points("a\u{301}b"), [3]);
        assert!(points("a.b").is_empty());
        assert!(points("x").is_empty());
    }
}
