//! Examples of each kind of outcome, per stage: the texts behind the counts.
//!
//! A report's counts say how often the student's answer changed under a corruption; its examples
//! say *which* texts, what they became and what each side answered. Per stage and kind (the
//! student changed alone, the teacher alone, both; on the clean texts, a disagreement) a report
//! keeps the `k` texts with the smallest keys, the key being the first 64 bits of the clean
//! text's blake3 hash (ties, which need a 64-bit collision, broken by the text). That choice
//! depends on the set of texts alone, never on their order, chunks, shards or threads, so
//! [`Examples::merge`] keeps exactly the examples one run over the union would, in memory
//! `O(k × stages)`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::stages::named;

/// The examples a report keeps per stage and kind unless told otherwise (`--examples K`).
pub const DEFAULT_EXAMPLES: usize = 5;

/// Characters of a text kept in an example; a longer text is cut there and marked
/// ([`Example::text_cut`]).
pub const EXAMPLE_CHARS: usize = 240;

/// One side's answers on an example's text (labels in their comparison form, Python `str()`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExampleAnswers {
    /// The answer on the clean text.
    pub clean: String,
    /// The answer on the transformed text (absent for a clean-text example, and for the
    /// teacher on a text outside its sample).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transformed: Option<String>,
    /// Whether the side's decision API escalated the clean text (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalated: Option<bool>,
}

/// One text, what the stage made of it and what each side answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// 16 hex digits: the first 64 bits of blake3(clean text). Examples are the smallest keys of
    /// their kind; a ledger line of the same text carries the same key.
    pub key: String,
    /// The clean text (its first [`EXAMPLE_CHARS`] characters).
    pub text: String,
    /// Whether `text` was cut.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub text_cut: bool,
    /// The transformed text (absent for a clean-text example).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transformed: Option<String>,
    /// Whether `transformed` was cut.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub transformed_cut: bool,
    /// The student's answers.
    pub student: ExampleAnswers,
    /// The teacher's answers.
    pub teacher: ExampleAnswers,
}

/// A text cut to [`EXAMPLE_CHARS`] characters, and whether it was.
pub fn cut_for_display(text: &str) -> (String, bool) {
    match text.char_indices().nth(EXAMPLE_CHARS) {
        Some((at, _)) => (text[..at].to_owned(), true),
        None => (text.to_owned(), false),
    }
}

/// The key of a text from its blake3 hash: the first 8 bytes, big-endian, so that the order of
/// keys is the order of their hex strings.
pub fn example_key(hash: &[u8; 32]) -> u64 {
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash[..8]);
    u64::from_be_bytes(first)
}

/// The examples of one kind: at most `k`, in key order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ExampleList(pub Vec<Example>);

impl ExampleList {
    /// Whether a text with `key` would be kept among `k` (check before building the example).
    #[inline]
    pub fn admits(&self, key: u64, k: usize) -> bool {
        k > 0 && (self.0.len() < k || self.0.last().is_none_or(|last| key <= parse_key(&last.key)))
    }

    /// Adds an example, keeping the `k` smallest keys (a text already listed is not listed
    /// twice).
    pub fn insert(&mut self, example: Example, k: usize) {
        fn order(e: &Example) -> (u64, &str) {
            (parse_key(&e.key), e.text.as_str())
        }
        let new = order(&example);
        let at = self.0.partition_point(|e| order(e) < new);
        if self.0.get(at).is_some_and(|e| order(e) == new) {
            return;
        }
        self.0.insert(at, example);
        self.0.truncate(k);
    }

    fn merge(&mut self, other: &ExampleList, k: usize) {
        for e in &other.0 {
            if self.admits(parse_key(&e.key), k) {
                self.insert(e.clone(), k);
            }
        }
    }
}

fn parse_key(key: &str) -> u64 {
    u64::from_str_radix(key, 16).unwrap_or(u64::MAX)
}

/// A text's key as written in examples and ledgers.
pub fn key_hex(key: u64) -> String {
    format!("{key:016x}")
}

/// The examples of one corruption or invariance, by whose answer changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageExamples {
    /// The student's answer changed, the teacher's did not.
    pub student_only: ExampleList,
    /// The teacher's answer changed, the student's did not.
    pub teacher_only: ExampleList,
    /// Both changed.
    pub both: ExampleList,
}

impl StageExamples {
    /// The list of a kind of change (`None` when neither side changed: not an example).
    pub fn kind_mut(&mut self, student: bool, teacher: bool) -> Option<&mut ExampleList> {
        match (student, teacher) {
            (true, false) => Some(&mut self.student_only),
            (false, true) => Some(&mut self.teacher_only),
            (true, true) => Some(&mut self.both),
            (false, false) => None,
        }
    }

    fn merge(&mut self, other: &StageExamples, k: usize) {
        self.student_only.merge(&other.student_only, k);
        self.teacher_only.merge(&other.teacher_only, k);
        self.both.merge(&other.both, k);
    }
}

/// The examples of a report: up to `k` per stage and kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Examples {
    /// At most this many per stage and kind.
    pub k: usize,
    /// Clean texts on which the two sides disagree.
    pub clean: ExampleList,
    /// Per corruption, in suite order.
    pub corruptions: IndexMap<String, StageExamples>,
    /// Per invariance, in suite order.
    pub invariances: IndexMap<String, StageExamples>,
}

impl Examples {
    /// No examples yet, for a suite's stages.
    pub fn new<'a>(
        k: usize,
        corruptions: impl IntoIterator<Item = &'a str>,
        invariances: impl IntoIterator<Item = &'a str>,
    ) -> Examples {
        Examples {
            k,
            clean: ExampleList::default(),
            corruptions: named(corruptions),
            invariances: named(invariances),
        }
    }

    /// Adds the examples of other texts: exactly the examples of one run over both.
    pub fn merge(&mut self, other: &Examples) -> Result<(), Error> {
        if self.k != other.k {
            return Err(Error::Mismatch {
                what: "examples per kind".into(),
                left: self.k.to_string(),
                right: other.k.to_string(),
            });
        }
        crate::stages::same_stages("example corruptions", &self.corruptions, &other.corruptions)?;
        crate::stages::same_stages("example invariances", &self.invariances, &other.invariances)?;
        let k = self.k;
        self.clean.merge(&other.clean, k);
        for (a, b) in self
            .corruptions
            .values_mut()
            .zip(other.corruptions.values())
        {
            a.merge(b, k);
        }
        for (a, b) in self
            .invariances
            .values_mut()
            .zip(other.invariances.values())
        {
            a.merge(b, k);
        }
        Ok(())
    }

    /// Every example listed, with where: (`"clean"` or the stage's section, stage name, kind).
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str, &'static str, &Example)> {
        let clean = self
            .clean
            .0
            .iter()
            .map(|e| ("clean", "clean", "disagree", e));
        clean
            .chain(stage_examples("corruptions", &self.corruptions))
            .chain(stage_examples("invariances", &self.invariances))
    }

    /// Checks every list: at most `k` examples, keys of 16 hex digits in increasing order.
    pub fn validate(&self) -> Result<(), Error> {
        let mut lists: Vec<(String, &ExampleList)> = vec![("examples.clean".into(), &self.clean)];
        for (section, m) in [
            ("corruptions", &self.corruptions),
            ("invariances", &self.invariances),
        ] {
            for (name, s) in m {
                for (kind, list) in [
                    ("student_only", &s.student_only),
                    ("teacher_only", &s.teacher_only),
                    ("both", &s.both),
                ] {
                    lists.push((format!("examples.{section}.{name}.{kind}"), list));
                }
            }
        }
        for (at, list) in lists {
            if list.0.len() > self.k {
                return Err(Error::Invalid {
                    at,
                    message: format!("lists {} examples, more than k = {}", list.0.len(), self.k),
                });
            }
            let mut last: Option<u64> = None;
            for e in &list.0 {
                let bad = e.key.len() != 16 || u64::from_str_radix(&e.key, 16).is_err();
                let key = parse_key(&e.key);
                if bad || last.is_some_and(|l| key < l) {
                    return Err(Error::Invalid {
                        at: at.clone(),
                        message: format!(
                            "key {:?} is not 16 hex digits in increasing order",
                            e.key
                        ),
                    });
                }
                last = Some(key);
            }
        }
        Ok(())
    }
}

/// Every example of a section's stages, with (section, stage, kind).
fn stage_examples<'a>(
    section: &'static str,
    m: &'a IndexMap<String, StageExamples>,
) -> impl Iterator<Item = (&'static str, &'a str, &'static str, &'a Example)> {
    m.iter().flat_map(move |(name, s)| {
        [
            ("student_only", &s.student_only),
            ("teacher_only", &s.teacher_only),
            ("both", &s.both),
        ]
        .into_iter()
        .flat_map(move |(kind, list)| {
            list.0
                .iter()
                .map(move |e| (section, name.as_str(), kind, e))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(key: u64, text: &str) -> Example {
        Example {
            key: key_hex(key),
            text: text.into(),
            text_cut: false,
            transformed: None,
            transformed_cut: false,
            student: ExampleAnswers {
                clean: "a".into(),
                transformed: None,
                escalated: None,
            },
            teacher: ExampleAnswers {
                clean: "b".into(),
                transformed: None,
                escalated: None,
            },
        }
    }

    #[test]
    fn a_list_keeps_the_k_smallest_keys_whatever_the_order() {
        let keys = [9u64, 3, 7, 1, 3, 12, 0, 5];
        let mut forward = ExampleList::default();
        let mut backward = ExampleList::default();
        for &k in &keys {
            if forward.admits(k, 3) {
                forward.insert(example(k, &k.to_string()), 3);
            }
        }
        for &k in keys.iter().rev() {
            if backward.admits(k, 3) {
                backward.insert(example(k, &k.to_string()), 3);
            }
        }
        let listed: Vec<u64> = forward.0.iter().map(|e| parse_key(&e.key)).collect();
        assert_eq!(listed, [0, 1, 3]);
        assert_eq!(forward, backward);
        assert!(!forward.admits(4, 3));
        assert!(!ExampleList::default().admits(0, 0));
    }

    #[test]
    fn merging_halves_is_the_list_of_the_whole() {
        let mut a = Examples::new(2, ["t"], ["c"]);
        let mut b = Examples::new(2, ["t"], ["c"]);
        let mut all = Examples::new(2, ["t"], ["c"]);
        for (i, k) in [8u64, 2, 6, 4, 2].into_iter().enumerate() {
            let half = if i % 2 == 0 { &mut a } else { &mut b };
            for e in [
                &mut half.corruptions["t"].both,
                &mut all.corruptions["t"].both,
            ] {
                if e.admits(k, 2) {
                    e.insert(example(k, &k.to_string()), 2);
                }
            }
        }
        a.merge(&b).unwrap();
        assert_eq!(a, all);
        a.validate().unwrap();
        assert!(a.merge(&Examples::new(3, ["t"], ["c"])).is_err());
    }

    #[test]
    fn long_texts_are_cut_at_a_character() {
        let long = "é".repeat(EXAMPLE_CHARS + 3);
        let (shown, cut) = cut_for_display(&long);
        assert!(cut);
        assert_eq!(shown.chars().count(), EXAMPLE_CHARS);
        assert_eq!(cut_for_display("short"), ("short".into(), false));
    }
}
