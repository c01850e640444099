//! Character-level transforms. Unless a description says otherwise, each eligible character
//! (a letter or digit, `char::is_alphanumeric`) is changed with probability `rate`,
//! independently, by the text's seeded generator; everything else is copied.

use suite_core::{ResolveError, Transform};
use unicode_normalization::char::{compose, decompose_canonical, is_combining_mark};

use crate::descriptor::{BuildFn, Descriptor, Kind, Level};
#[cfg(feature = "typo-tasks")]
use crate::param::ParamType;
use crate::param::{Param, Params};
use crate::rng::{Probability, TextRng, seeded};

/// The characters character-level transforms change: letters and digits.
pub fn eligible(c: char) -> bool {
    c.is_alphanumeric()
}

fn identity() -> Transform {
    Transform::new(str::to_owned)
}

/// `(rate, seed)` of a rate transform.
fn rate_seed(p: &Params<'_>) -> Result<(Probability, u64), ResolveError> {
    Ok((Probability::new(p.f64("rate")?), p.u64("seed")?))
}

/// A transform that calls `op(c, rng, out)` on each character `chosen` accepts, drawn with
/// probability `rate` (pushing its replacement into `out`), and copies every other character.
fn per_char_where(
    name: &'static str,
    p: &Params<'_>,
    chosen: impl Fn(char) -> bool + Send + Sync + 'static,
    op: impl Fn(char, &mut TextRng, &mut String) + Send + Sync + 'static,
) -> Result<Transform, ResolveError> {
    let (rate, seed) = rate_seed(p)?;
    if rate.is_zero() {
        return Ok(identity());
    }
    Ok(seeded(name, seed, move |text, rng| {
        let mut out = String::with_capacity(text.len() + text.len() / 4);
        for c in text.chars() {
            if chosen(c) && rng.chance(rate) {
                op(c, rng, &mut out);
            } else {
                out.push(c);
            }
        }
        out
    }))
}

/// [`per_char_where`] over letters and digits.
fn per_char(
    name: &'static str,
    p: &Params<'_>,
    op: impl Fn(char, &mut TextRng, &mut String) + Send + Sync + 'static,
) -> Result<Transform, ResolveError> {
    per_char_where(name, p, eligible, op)
}

/// A random character of the same class: a digit for a digit, else a letter `a`-`z` in the
/// case of `c` (upper for an upper-case letter), never `c` itself.
fn random_like(c: char, rng: &mut TextRng) -> char {
    let (base, n) = if c.is_ascii_digit() {
        (b'0', 10u8)
    } else if c.is_uppercase() {
        (b'A', 26)
    } else {
        (b'a', 26)
    };
    // Draw among the n - 1 others when c is in the class, so a chosen character always changes.
    let own = (c as u32)
        .checked_sub(u32::from(base))
        .filter(|&o| o < u32::from(n));
    match own {
        Some(own) => {
            let k = rng.below(usize::from(n) - 1) as u32;
            let k = if k >= own { k + 1 } else { k };
            char::from(base + k as u8)
        }
        None => char::from(base + rng.below(usize::from(n)) as u8),
    }
}

fn repeat_char(p: &Params<'_>) -> Result<Transform, ResolveError> {
    per_char("repeat_char", p, |c, _, out| {
        out.push(c);
        out.push(c);
    })
}

fn char_delete(p: &Params<'_>) -> Result<Transform, ResolveError> {
    per_char("char_delete", p, |_, _, _| {})
}

fn char_insert(p: &Params<'_>) -> Result<Transform, ResolveError> {
    per_char("char_insert", p, |c, rng, out| {
        out.push(c);
        out.push(random_like(c, rng));
    })
}

fn char_substitute(p: &Params<'_>) -> Result<Transform, ResolveError> {
    per_char("char_substitute", p, |c, rng, out| {
        out.push(random_like(c, rng))
    })
}

fn random_case(p: &Params<'_>) -> Result<Transform, ResolveError> {
    // Only letters with a one-character case partner, so lengths never change.
    let flips = |c: char| flip_case(c).is_some();
    per_char_where("random_case", p, flips, |c, _, out| {
        out.push(flip_case(c).unwrap_or(c));
    })
}

/// The other case of `c` when it is a single character different from `c`.
fn flip_case(c: char) -> Option<char> {
    let other: Vec<char> = if c.is_lowercase() {
        c.to_uppercase().collect()
    } else if c.is_uppercase() {
        c.to_lowercase().collect()
    } else {
        return None;
    };
    match other.as_slice() {
        [o] if *o != c => Some(*o),
        _ => None,
    }
}

/// Runs of letters and digits of `chars` as `start..end` ranges.
fn words(chars: &[char]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, &c) in chars.iter().enumerate() {
        match (eligible(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..chars.len());
    }
    out
}

/// Swaps each chosen character with the next one when that is eligible too (a chosen
/// character is swapped at most once; the pair is then skipped).
fn neighbour_swap(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let (rate, seed) = rate_seed(p)?;
    if rate.is_zero() {
        return Ok(identity());
    }
    Ok(seeded("neighbour_swap", seed, move |text, rng| {
        let mut chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i + 1 < chars.len() {
            if eligible(chars[i]) && eligible(chars[i + 1]) && rng.chance(rate) {
                chars.swap(i, i + 1);
                i += 2;
            } else {
                i += 1;
            }
        }
        chars.into_iter().collect()
    }))
}

/// Swaps each chosen character with another position of its word, drawn uniformly.
fn char_swap(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let (rate, seed) = rate_seed(p)?;
    if rate.is_zero() {
        return Ok(identity());
    }
    Ok(seeded("char_swap", seed, move |text, rng| {
        if text.is_ascii() {
            // ASCII letters and digits are exactly the ASCII characters `eligible` accepts, and
            // swapping ASCII bytes keeps the text UTF-8: the same draws without decoding.
            let mut bytes = text.as_bytes().to_vec();
            swap_within_words(&mut bytes, |b| b.is_ascii_alphanumeric(), rate, rng);
            return String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        }
        let mut chars: Vec<char> = text.chars().collect();
        swap_within_words(&mut chars, eligible, rate, rng);
        chars.into_iter().collect()
    }))
}

/// `char_swap`'s walk: for each run of two or more `in_word` items, left to right, each position
/// chosen with probability `rate` swapped with another position of its run drawn uniformly.
/// Swaps stay inside a run, so finding the runs as the walk goes sees the runs of the input.
fn swap_within_words<T: Copy>(
    items: &mut [T],
    in_word: impl Fn(T) -> bool,
    rate: Probability,
    rng: &mut TextRng,
) {
    let mut end = 0;
    while let Some(offset) = items
        .get(end..)
        .and_then(|rest| rest.iter().position(|&c| in_word(c)))
    {
        let start = end + offset;
        let len = items
            .get(start..)
            .map_or(0, |rest| rest.iter().take_while(|&&c| in_word(c)).count());
        end = start + len;
        if len < 2 {
            continue;
        }
        for i in start..end {
            if rng.chance(rate) {
                let k = rng.below(len - 1);
                let j = start + if start + k >= i { k + 1 } else { k };
                items.swap(i, j);
            }
        }
    }
}

/// `backspace_insert`: after a chosen letter or digit, a printable ASCII character (`!`..=`~`, drawn
/// uniformly) and BACKSPACE (U+0008), which erases it wherever backspace is honoured: the text
/// looks unchanged and its code points are not (TextAttack's `WordSwapDeletions`, after Boucher
/// et al. 2021, "Bad Characters").
fn backspace_insert(p: &Params<'_>) -> Result<Transform, ResolveError> {
    per_char("backspace_insert", p, |c, rng, out| {
        out.push(c);
        // 94 printable ASCII characters from '!' (0x21).
        out.push(char::from(b'!' + (rng.below(94) as u8)));
        out.push('\u{8}');
    })
}

/// Each word (a run of letters and digits, two or more) chosen with probability `rate` is
/// written reversed between RIGHT-TO-LEFT OVERRIDE and POP DIRECTIONAL FORMATTING: it renders
/// as before, its code points are backwards (the "bad characters" reordering attack).
fn bidi_reorder(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let (rate, seed) = rate_seed(p)?;
    if rate.is_zero() {
        return Ok(identity());
    }
    Ok(seeded("bidi_reorder", seed, move |text, rng| {
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::with_capacity(text.len() + 16);
        let mut at = 0;
        for word in words(&chars) {
            if word.len() < 2 || !rng.chance(rate) {
                continue;
            }
            out.extend(&chars[at..word.start]);
            out.push('\u{202e}');
            out.extend(chars[word.clone()].iter().rev());
            out.push('\u{202c}');
            at = word.end;
        }
        out.extend(&chars[at..]);
        out
    }))
}

/// The invisible characters `zero_width` inserts: ZERO WIDTH SPACE, ZERO WIDTH NON-JOINER,
/// ZERO WIDTH JOINER, WORD JOINER.
const INVISIBLE: [char; 4] = ['\u{200b}', '\u{200c}', '\u{200d}', '\u{2060}'];

fn zero_width(p: &Params<'_>) -> Result<Transform, ResolveError> {
    per_char("zero_width", p, |c, rng, out| {
        out.push(c);
        out.push(*rng.pick(&INVISIBLE).unwrap_or(&INVISIBLE[0]));
    })
}

/// Combining marks `add_diacritics` puts on letters: grave, acute, circumflex, tilde,
/// diaeresis, ring above, caron, cedilla.
const MARKS: [char; 8] = [
    '\u{300}', '\u{301}', '\u{302}', '\u{303}', '\u{308}', '\u{30a}', '\u{30c}', '\u{327}',
];

/// The precomposed letters `c` + one of [`MARKS`] makes (empty for most non-ASCII letters).
fn accented(c: char) -> Vec<char> {
    MARKS.iter().filter_map(|&m| compose(c, m)).collect()
}

fn add_diacritics(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let has = |c: char| c.is_ascii_alphabetic() && !accented(c).is_empty();
    per_char_where("add_diacritics", p, has, |c, rng, out| {
        let options = accented(c);
        out.push(*rng.pick(&options).unwrap_or(&c));
    })
}

/// Whether `c`'s canonical decomposition carries a combining mark.
fn has_mark(c: char) -> bool {
    let mut mark = false;
    decompose_canonical(c, |d| mark |= is_combining_mark(d));
    mark
}

fn strip_diacritics(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let chosen = |c: char| is_combining_mark(c) || has_mark(c);
    per_char_where("strip_diacritics", p, chosen, |c, _, out| {
        decompose_canonical(c, |d| {
            if !is_combining_mark(d) {
                out.push(d);
            }
        });
    })
}

/// Replaces each character with an entry in typo-tasks' homoglyph table (UTS #39 confusables,
/// single code points) by one of its look-alikes.
#[cfg(feature = "typo-tasks")]
fn homoglyph(p: &Params<'_>) -> Result<Transform, ResolveError> {
    use std::collections::HashMap;
    use std::sync::{Arc, OnceLock};
    static TABLE: OnceLock<Arc<HashMap<char, Vec<char>>>> = OnceLock::new();
    let table = Arc::clone(TABLE.get_or_init(|| {
        let single = |s: &String| {
            let mut cs = s.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => Some(c),
                _ => None,
            }
        };
        Arc::new(
            typo_generators::Data::english()
                .homoglyphs
                .iter()
                .filter_map(|(k, v)| {
                    let look: Vec<char> = v.iter().filter_map(single).collect();
                    Some((single(k)?, look)).filter(|(_, l)| !l.is_empty())
                })
                .collect(),
        )
    }));
    let has = Arc::clone(&table);
    per_char_where(
        "homoglyph",
        p,
        move |c| has.contains_key(&c),
        move |c, rng, out| {
            let look = table.get(&c).and_then(|l| rng.pick(l)).copied();
            out.push(look.unwrap_or(c));
        },
    )
}

/// Replaces each character found on the layout by one of its neighbours there (above, below,
/// left, right; upper case kept for letters).
#[cfg(feature = "typo-tasks")]
fn keyboard(p: &Params<'_>) -> Result<Transform, ResolveError> {
    use std::sync::Arc;
    let layout = typo_generators::Keyboard::by_name(p.str("layout")?)
        .map_err(|e| ResolveError::Invalid(format!("layout: {e}")))?;
    let grid: Vec<Vec<char>> = layout.rows().iter().map(|r| r.chars().collect()).collect();
    let key = |r: usize, c: usize| grid.get(r).and_then(|row| row.get(c)).copied();
    // Neighbours by ASCII code (the built-in layouts' keys are all ASCII): a lookup per
    // character is an index, not a hash (the transform runs on every character of a text).
    let mut neighbours: Vec<Vec<char>> = vec![Vec::new(); 128];
    for (r, row) in grid.iter().enumerate() {
        for (c, &k) in row.iter().enumerate() {
            if k == ' ' || !k.is_ascii() {
                continue;
            }
            let around = [
                r.checked_sub(1).and_then(|u| key(u, c)),
                key(r + 1, c),
                c.checked_sub(1).and_then(|l| key(r, l)),
                key(r, c + 1),
            ];
            neighbours[k as usize] = around.into_iter().flatten().filter(|&n| n != ' ').collect();
        }
    }
    let neighbours: Arc<[Vec<char>]> = neighbours.into();
    let has = Arc::clone(&neighbours);
    per_char_where(
        "keyboard",
        p,
        move |c| neighbours_of(&has, c).is_some(),
        move |c, rng, out| {
            let found = neighbours_of(&neighbours, c)
                .and_then(|l| rng.pick(l))
                .copied()
                .unwrap_or(c);
            out.push(if c.is_ascii_uppercase() {
                found.to_ascii_uppercase()
            } else {
                found
            });
        },
    )
}

/// The neighbours of `c` (case-folded) in a table indexed by ASCII code; `None` for a
/// character not on the layout.
#[cfg(feature = "typo-tasks")]
fn neighbours_of(table: &[Vec<char>], c: char) -> Option<&[char]> {
    let k = c.to_ascii_lowercase();
    if !k.is_ascii() {
        return None;
    }
    let list = table.get(k as usize)?;
    (!list.is_empty()).then_some(list.as_slice())
}

/// The usual parameters of a character-level corruption.
const RATE_SEED: &[Param] = &[
    Param::rate("probability per letter or digit", "0.1"),
    Param::seed(),
];

/// A character-level corruption with the usual `rate` and `seed`.
const fn rate_corruption(
    name: &'static str,
    description: &'static str,
    build: BuildFn,
) -> Descriptor {
    Descriptor {
        name,
        level: Level::Character,
        kind: Kind::Corruption { severity: "rate" },
        description,
        params: RATE_SEED,
        example: "The quick brown fox",
        example_params: r#"{"rate": 0.2}"#,
        build,
    }
}

/// The character-level transforms.
pub(crate) static DESCRIPTORS: &[Descriptor] = &[
    rate_corruption(
        "char_insert",
        "a random letter (a digit after a digit) inserted after letters and digits with probability rate",
        char_insert,
    ),
    rate_corruption(
        "char_delete",
        "letters and digits deleted with probability rate",
        char_delete,
    ),
    rate_corruption(
        "char_substitute",
        "letters and digits replaced by another random one of their class (a-z, A-Z, 0-9) with probability rate",
        char_substitute,
    ),
    rate_corruption(
        "char_swap",
        "letters and digits swapped with a random other position of their word with probability rate",
        char_swap,
    ),
    rate_corruption(
        "neighbour_swap",
        "a letter or digit swapped with the next one (also a letter or digit) with probability rate",
        neighbour_swap,
    ),
    rate_corruption(
        "repeat_char",
        "letters and digits doubled with probability rate",
        repeat_char,
    ),
    rate_corruption(
        "random_case",
        "letters with a one-letter case partner flipped to the other case with probability rate",
        random_case,
    ),
    rate_corruption(
        "add_diacritics",
        "ASCII letters given a random accent (grave, acute, circumflex, tilde, diaeresis, ring, caron, cedilla; precomposed) with probability rate",
        add_diacritics,
    ),
    Descriptor {
        name: "strip_diacritics",
        level: Level::Character,
        kind: Kind::Corruption { severity: "rate" },
        description: "accents removed (canonical decomposition, combining marks dropped) from each accented character with probability rate",
        params: &[
            Param::rate("probability per accented character", "1.0"),
            Param::seed(),
        ],
        example: "Crème brûlée à la française",
        example_params: "{}",
        build: strip_diacritics,
    },
    Descriptor {
        name: "zero_width",
        level: Level::Character,
        kind: Kind::Corruption { severity: "rate" },
        description: "an invisible character (ZWSP, ZWNJ, ZWJ or WORD JOINER) inserted after letters and digits with probability rate",
        params: RATE_SEED,
        example: "The quick brown fox",
        example_params: r#"{"rate": 0.2}"#,
        build: zero_width,
    },
    rate_corruption(
        "backspace_insert",
        "a printable ASCII character and a BACKSPACE (U+0008) that erases it inserted after letters and digits with probability rate",
        backspace_insert,
    ),
    Descriptor {
        name: "bidi_reorder",
        level: Level::Character,
        kind: Kind::Corruption { severity: "rate" },
        description: "words written backwards inside RLO ... PDF bidi controls (they render unchanged) with probability rate",
        params: &[Param::rate("probability per word", "0.1"), Param::seed()],
        example: "The quick brown fox",
        example_params: r#"{"rate": 0.5}"#,
        build: bidi_reorder,
    },
    #[cfg(feature = "typo-tasks")]
    rate_corruption(
        "homoglyph",
        "characters with a look-alike in typo-tasks' UTS #39 confusables table (ASCII letters, digits, - and .) replaced by one with probability rate",
        homoglyph,
    ),
    #[cfg(feature = "typo-tasks")]
    Descriptor {
        name: "keyboard",
        level: Level::Character,
        kind: Kind::Corruption { severity: "rate" },
        description: "keys of the layout replaced by a neighbouring key (above, below, left, right; case kept) with probability rate",
        params: &[
            Param::rate("probability per character on the layout", "0.1"),
            Param::seed(),
            Param {
                name: "layout",
                ty: ParamType::Choice(&typo_generators::Keyboard::NAMES),
                default: Some("\"qwerty\""),
                doc: "typo-tasks keyboard layout",
            },
        ],
        example: "The quick brown fox",
        example_params: r#"{"rate": 0.2}"#,
        build: keyboard,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_like_keeps_the_class_and_always_changes() {
        let mut rng = TextRng::new(
            &suite_core::TextHash::of("x"),
            &crate::rng::Domain::of("t"),
            0,
        );
        for c in ['a', 'z', 'A', 'Q', '0', '9', 'é', '日'] {
            for _ in 0..200 {
                let r = random_like(c, &mut rng);
                assert_ne!(r, c);
                if c.is_ascii_digit() {
                    assert!(r.is_ascii_digit());
                } else if c.is_uppercase() {
                    assert!(r.is_ascii_uppercase());
                } else {
                    assert!(r.is_ascii_lowercase());
                }
            }
        }
    }

    #[test]
    fn char_swap_draws_alike_on_ascii_bytes_and_on_characters() {
        let text = "Swap 42 letters, in words: a bc def0 ghij! x\ty";
        for seed in 0..50 {
            let rng = || {
                TextRng::new(
                    &suite_core::TextHash::of(text),
                    &crate::rng::Domain::of("t"),
                    seed,
                )
            };
            let mut bytes = text.as_bytes().to_vec();
            swap_within_words(
                &mut bytes,
                |b| b.is_ascii_alphanumeric(),
                Probability::new(0.4),
                &mut rng(),
            );
            let mut chars: Vec<char> = text.chars().collect();
            swap_within_words(&mut chars, eligible, Probability::new(0.4), &mut rng());
            assert_eq!(
                String::from_utf8(bytes).ok(),
                Some(chars.into_iter().collect::<String>())
            );
        }
    }

    #[test]
    fn backspace_insert_erases_what_it_inserts() {
        let params = serde_json::Map::from_iter([("rate".to_owned(), serde_json::json!(0.5))]);
        let Ok(t) = crate::Catalogue::standard().build("backspace_insert", &params) else {
            panic!("backspace_insert builds");
        };
        let text = "Typed text, 42 times: café!";
        let out = t.transform.apply(text);
        assert!(out.contains('\u{8}'), "{out:?}");
        // Apply the backspaces: each removes the character before it.
        let mut shown = String::new();
        for c in out.chars() {
            if c == '\u{8}' {
                assert!(shown.pop().is_some_and(|e| e.is_ascii_graphic()));
            } else {
                shown.push(c);
            }
        }
        assert_eq!(shown, text);
    }

    #[test]
    fn words_are_runs_of_letters_and_digits() {
        let chars: Vec<char> = "ab, c1d!e".chars().collect();
        assert_eq!(words(&chars), [0..2, 4..7, 8..9]);
    }
}
