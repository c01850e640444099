//! Numbers: spelt out (`number_to_words`), read back (`words_to_number`), replaced by other
//! numbers (`swap_numbers`), and ages nudged (`randomize_age`). The English number words are
//! written here (facts, no data file), so none of these needs the `tables` feature.
//!
//! A *numeral* is an ASCII digit run not touching a letter, digit or mark on either side, with
//! optional thousands groups (`1,234,567`) and an optional fraction (`3.14`); its integer part
//! must be below 10^18 with no leading zero (`007`, `v1`, `3rd`, 20-digit runs stay as written).

use suite_core::{ResolveError, Transform};

use crate::descriptor::{Descriptor, Kind, Level};
use crate::param::{Param, ParamType, Params};
use crate::rng::seeded;
use std::borrow::Cow;
use std::ops::Range;

use super::{is_mark, lexical_words, splice, table_key};
use crate::rng::{Probability, TextRng};

const SMALL: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 10] = [
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];
/// Scales, largest first, up to what a numeral's integer part (< 10^18) needs.
const SCALES: [(u64, &str); 5] = [
    (1_000_000_000_000_000, "quadrillion"),
    (1_000_000_000_000, "trillion"),
    (1_000_000_000, "billion"),
    (1_000_000, "million"),
    (1_000, "thousand"),
];
/// The largest integer part a numeral may have.
const MAX_NUMERAL: u64 = 999_999_999_999_999_999;

/// `n` in English words, American style without "and": `forty-two`, `one hundred five`,
/// `two million three thousand`.
pub fn spell(n: u64) -> String {
    let mut out = String::new();
    spell_into(n, &mut out);
    out
}

fn spell_into(n: u64, out: &mut String) {
    if n == 0 {
        out.push_str("zero");
        return;
    }
    let mut rest = n;
    let sep = |out: &mut String| {
        if !out.is_empty() {
            out.push(' ');
        }
    };
    for (scale, name) in SCALES {
        if rest >= scale {
            spell_into(rest / scale, out);
            out.push(' ');
            out.push_str(name);
            rest %= scale;
        }
    }
    if rest >= 100 {
        sep(out);
        out.push_str(SMALL[(rest / 100) as usize]);
        out.push_str(" hundred");
        rest %= 100;
    }
    if rest > 0 {
        sep(out);
        if rest < 20 {
            out.push_str(SMALL[rest as usize]);
        } else {
            out.push_str(TENS[(rest / 10) as usize]);
            if !rest.is_multiple_of(10) {
                out.push('-');
                out.push_str(SMALL[(rest % 10) as usize]);
            }
        }
    }
}

/// A numeral found in a text.
struct Numeral {
    /// Its bytes in the text.
    range: Range<usize>,
    /// Its integer part.
    value: u64,
    /// The digits after the decimal point, if any.
    fraction: Option<Range<usize>>,
}

fn touches_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || is_mark(c))
}

/// The numerals of `text`, left to right.
fn numerals(text: &str) -> Vec<Numeral> {
    let b = text.as_bytes();
    let digits_from = |i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let first = digits_from(i);
        i += first;
        let mut int: String = text[start..i].to_owned();
        // Thousands groups: only after a lead of 1-3 digits, each exactly three digits.
        if first <= 3 {
            while b.get(i) == Some(&b',') && digits_from(i + 1) == 3 {
                int.push_str(&text[i + 1..i + 4]);
                i += 4;
            }
        }
        let mut fraction = None;
        if b.get(i) == Some(&b'.') && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
            let n = digits_from(i + 1);
            fraction = Some(i + 1..i + 1 + n);
            i += 1 + n;
        }
        let before = text[..start].chars().next_back();
        let after = text[i..].chars().next();
        if touches_word(before) || touches_word(after) || before == Some('.') {
            // Part of a word, version or identifier: skip the rest of it.
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            continue;
        }
        if int.len() > 1 && int.starts_with('0') {
            continue;
        }
        match int.parse::<u64>() {
            Ok(value) if value <= MAX_NUMERAL => out.push(Numeral {
                range: start..i,
                value,
                fraction,
            }),
            _ => {}
        }
    }
    out
}

/// `number_to_words`: every numeral spelt out (`42` → `forty-two`, `1,500` → `one thousand five
/// hundred`, `3.14` → `three point one four`). Meaning-preserving, and idempotent (its output has
/// no digits).
pub fn number_to_words(text: &str) -> String {
    let edits: Vec<(Range<usize>, String)> = numerals(text)
        .into_iter()
        .map(|n| {
            let mut words = spell(n.value);
            if let Some(f) = n.fraction {
                words.push_str(" point");
                for d in text[f].bytes() {
                    words.push(' ');
                    words.push_str(SMALL[usize::from(d - b'0')]);
                }
            }
            (n.range, words)
        })
        .collect();
    splice(text, &edits)
}

/// The value of one number word: (value, is a scale or `hundred`).
fn word_value(key: &str) -> Option<u64> {
    if let Some(i) = SMALL.iter().position(|w| *w == key) {
        return Some(i as u64);
    }
    if let Some(i) = TENS.iter().position(|w| !w.is_empty() && *w == key) {
        return Some(10 * i as u64);
    }
    if key == "hundred" {
        return Some(100);
    }
    SCALES.iter().find(|(_, w)| *w == key).map(|(s, _)| *s)
}

/// The value the words spell, if they are exactly [`spell`]'s form of it (so `one two` and
/// `hundred` are no numbers).
fn read_words(keys: &[&str]) -> Option<u64> {
    let (mut total, mut current) = (0u64, 0u64);
    for key in keys {
        let v = word_value(key)?;
        if v < 100 {
            current = current.checked_add(v)?;
        } else if v == 100 {
            current = current.checked_mul(100)?;
        } else {
            total = total.checked_add(current.checked_mul(v)?)?;
            current = 0;
        }
    }
    let value = total.checked_add(current)?;
    let canonical = spell(value);
    canonical
        .split([' ', '-'])
        .eq(keys.iter().copied())
        .then_some(value)
}

/// The longest run of number words considered at once.
const MAX_RUN: usize = 40;

/// `words_to_number`: every run of English number words that is exactly how [`spell`] writes a
/// number (hyphens or spaces between the words, an `and` allowed between number words) written
/// in digits (`forty-two` → `42`, `One hundred and five` → `105`); other runs are read from their
/// longest such prefix. Meaning-preserving and idempotent (its output's numbers are digits).
pub fn words_to_number(text: &str) -> String {
    let words = lexical_words(text);
    let keys: Vec<Cow<str>> = words.iter().map(|r| table_key(&text[r.clone()])).collect();
    let joined = |j: usize| {
        let gap = &text[words[j].end..words[j + 1].start];
        gap == "-" || (!gap.is_empty() && gap.chars().all(char::is_whitespace))
    };
    let mut edits = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if word_value(&keys[i]).is_none() {
            i += 1;
            continue;
        }
        // The run: number words, and `and` between two of them.
        let mut end = i + 1;
        while end < words.len() && end - i < MAX_RUN && joined(end - 1) {
            if word_value(&keys[end]).is_some() {
                end += 1;
            } else if keys[end] == "and"
                && end + 1 < words.len()
                && joined(end)
                && word_value(&keys[end + 1]).is_some()
            {
                end += 2;
            } else {
                break;
            }
        }
        let mut taken = 1;
        for len in (1..=end - i).rev() {
            let run: Vec<&str> = keys[i..i + len]
                .iter()
                .map(|k| &**k)
                .filter(|k| *k != "and")
                .collect();
            if keys[i + len - 1] == "and" {
                continue;
            }
            if let Some(value) = read_words(&run) {
                edits.push((words[i].start..words[i + len - 1].end, value.to_string()));
                taken = len;
                break;
            }
        }
        i += taken;
    }
    splice(text, &edits)
}

/// `swap_numbers`: each numeral's integer part replaced, with probability `rate`, by a different
/// number of as many digits (thousands separators dropped, fraction kept).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwapNumbers {
    rate: Probability,
}

impl SwapNumbers {
    /// At `rate` in `[0, 1]` (the severity).
    pub fn new(rate: f64) -> SwapNumbers {
        SwapNumbers {
            rate: Probability::new(rate),
        }
    }

    /// Applies it: one decision per numeral, then digit draws for a replaced one.
    pub fn apply(&self, text: &str, rng: &mut TextRng) -> String {
        if self.rate.is_zero() {
            return text.to_owned();
        }
        let mut edits = Vec::new();
        for n in numerals(text) {
            if !rng.chance(self.rate) {
                continue;
            }
            let digits = n.value.to_string().len();
            let (low, high) = if digits == 1 {
                (0, 10)
            } else {
                (10u64.pow(digits as u32 - 1), 10u64.pow(digits as u32))
            };
            // At least 8 other values exist, so this ends after a few draws.
            let new = loop {
                let v = low + rng.below((high - low) as usize) as u64;
                if v != n.value {
                    break v;
                }
            };
            let mut with = new.to_string();
            if let Some(f) = n.fraction {
                with.push('.');
                with.push_str(&text[f]);
            }
            edits.push((n.range, with));
        }
        splice(text, &edits)
    }
}

/// `randomize_age`: each age (a number of 1-3 digits followed by `year(s) old`, `yr(s) old` or
/// `-year-old`, or after `age`/`aged`) moved, with probability `rate`, by 1 to `max_change`
/// years up or down (never below 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RandomizeAge {
    rate: Probability,
    max_change: u32,
}

impl RandomizeAge {
    /// At `rate` in `[0, 1]` (the severity), by at most `max_change` years (at least 1).
    pub fn new(rate: f64, max_change: u32) -> RandomizeAge {
        RandomizeAge {
            rate: Probability::new(rate),
            max_change: max_change.max(1),
        }
    }

    /// Applies it: one decision per age, then a change and a direction per moved age.
    pub fn apply(&self, text: &str, rng: &mut TextRng) -> String {
        if self.rate.is_zero() {
            return text.to_owned();
        }
        let words = lexical_words(text);
        let key = |j: usize| table_key(&text[words[j].clone()]);
        let gap_ok = |j: usize| {
            let gap = &text[words[j].end..words[j + 1].start];
            !gap.is_empty()
                && gap
                    .chars()
                    .all(|c| c.is_whitespace() || c == '-' || c == ':')
        };
        let mut edits = Vec::new();
        for (i, w) in words.iter().enumerate() {
            let word = &text[w.clone()];
            if word.len() > 3 || !word.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let followed = i + 2 < words.len()
                && gap_ok(i)
                && gap_ok(i + 1)
                && matches!(&*key(i + 1), "year" | "years" | "yr" | "yrs")
                && key(i + 2) == "old";
            let preceded = i > 0 && gap_ok(i - 1) && matches!(&*key(i - 1), "age" | "aged");
            if !(followed || preceded) {
                continue;
            }
            let Ok(age) = word.parse::<u32>() else {
                continue;
            };
            if !rng.chance(self.rate) {
                continue;
            }
            let delta = 1 + rng.below(self.max_change as usize) as u32;
            let down = rng.below(2) == 0;
            let new = if down && age > delta {
                age - delta
            } else {
                age + delta
            };
            edits.push((w.clone(), new.to_string()));
        }
        splice(text, &edits)
    }
}

fn build_swap_numbers(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let swap = SwapNumbers::new(p.f64("rate")?);
    if swap.rate.is_zero() {
        return Ok(Transform::new(str::to_owned));
    }
    Ok(seeded("swap_numbers", p.u64("seed")?, move |text, rng| {
        swap.apply(text, rng)
    }))
}

fn build_randomize_age(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let max_change = u32::try_from(p.u64("max_change")?)
        .map_err(|_| ResolveError::Invalid("max_change is too large".into()))?;
    let ages = RandomizeAge::new(p.f64("rate")?, max_change);
    if ages.rate.is_zero() {
        return Ok(Transform::new(str::to_owned));
    }
    Ok(seeded("randomize_age", p.u64("seed")?, move |text, rng| {
        ages.apply(text, rng)
    }))
}

/// The number transforms.
pub(crate) static DESCRIPTORS: &[Descriptor] = &[
    Descriptor {
        name: "number_to_words",
        level: Level::Word,
        kind: Kind::MeaningPreserving,
        description: "numerals spelt out in English words (42 -> forty-two, 3.5 -> three point five)",
        params: &[],
        example: "She paid 1,250 dollars for 3 tickets and waited 2.5 hours.",
        example_params: "{}",
        build: |_| Ok(Transform::new(number_to_words)),
    },
    Descriptor {
        name: "words_to_number",
        level: Level::Word,
        kind: Kind::MeaningPreserving,
        description: "English number words written in digits (forty-two -> 42)",
        params: &[],
        example: "She paid one thousand two hundred fifty dollars for three tickets.",
        example_params: "{}",
        build: |_| Ok(Transform::new(words_to_number)),
    },
    Descriptor {
        name: "swap_numbers",
        level: Level::Word,
        kind: Kind::Corruption { severity: "rate" },
        description: "each number replaced with probability rate by another of as many digits",
        params: &[Param::rate("probability per number", "0.5"), Param::seed()],
        example: "Call 555 1234 before 9 or after 10.30.",
        example_params: r#"{"rate": 1.0}"#,
        build: build_swap_numbers,
    },
    Descriptor {
        name: "randomize_age",
        level: Level::Word,
        kind: Kind::Corruption { severity: "rate" },
        description: "each age (N years old, aged N) moved by 1 to max_change years with probability rate",
        params: &[
            Param::rate("probability per age", "1.0"),
            Param {
                name: "max_change",
                ty: ParamType::Count { min: 1, max: 100 },
                default: Some("5"),
                doc: "largest change, in years",
            },
            Param::seed(),
        ],
        example: "My son is 12 years old and my mother, aged 70, is retired.",
        example_params: "{}",
        build: build_randomize_age,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::word::test_rng;

    #[test]
    fn spelling() {
        for (n, want) in [
            (0, "zero"),
            (7, "seven"),
            (42, "forty-two"),
            (100, "one hundred"),
            (105, "one hundred five"),
            (1_500, "one thousand five hundred"),
            (2_000_003, "two million three"),
            (
                MAX_NUMERAL,
                "nine hundred ninety-nine quadrillion nine hundred ninety-nine trillion nine \
                 hundred ninety-nine billion nine hundred ninety-nine million nine hundred \
                 ninety-nine thousand nine hundred ninety-nine",
            ),
        ] {
            assert_eq!(spell(n), want);
        }
    }

    #[test]
    fn numerals_to_words_and_back() {
        let text = "I have 42 cats, 1,500 dogs and 3.14 pies; v2 and 3rd and 007 stay.";
        let words = number_to_words(text);
        assert_eq!(
            words,
            "I have forty-two cats, one thousand five hundred dogs and three point one four \
             pies; v2 and 3rd and 007 stay."
        );
        assert_eq!(number_to_words(&words), words);
        assert_eq!(
            words_to_number("Forty-two cats and one hundred and five dogs, one two three"),
            "42 cats and 105 dogs, 1 2 3"
        );
        assert_eq!(words_to_number("hundred and"), "hundred and");
        for n in [
            0,
            9,
            13,
            40,
            99,
            101,
            999,
            1_001,
            20_020,
            7_000_000,
            MAX_NUMERAL,
        ] {
            assert_eq!(words_to_number(&spell(n)), n.to_string(), "{n}");
        }
    }

    #[test]
    fn swaps_keep_digit_counts() {
        let t = SwapNumbers::new(1.0);
        let out = t.apply("7 and 123 and 4.5", &mut test_rng(2));
        let nums: Vec<&str> = out.split(" and ").collect();
        assert_eq!(nums[0].len(), 1);
        assert_ne!(nums[0], "7");
        assert_eq!(nums[1].len(), 3);
        assert!(!nums[1].starts_with('0'));
        assert!(nums[2].ends_with(".5"));
    }

    #[test]
    fn ages_move_within_max_change() {
        let t = RandomizeAge::new(1.0, 3);
        for seed in 0..20 {
            let out = t.apply(
                "She is 30 years old, aged 2; a 5-year-old; 30 cats",
                &mut test_rng(seed),
            );
            let nums: Vec<u32> = out
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|s| s.parse().ok())
                .collect();
            assert_eq!(nums.len(), 4, "{out}");
            assert!(
                nums[0].abs_diff(30) >= 1 && nums[0].abs_diff(30) <= 3,
                "{out}"
            );
            assert!(nums[1] >= 1 && nums[1] != 2 && nums[1] <= 5, "{out}");
            assert!(nums[2] != 5, "{out}");
            assert_eq!(nums[3], 30, "{out}");
        }
    }
}
