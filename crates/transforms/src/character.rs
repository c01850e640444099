//! Character-level transforms: each eligible character (a letter or digit, `char::is_alphanumeric`)
//! is changed with probability `rate`, independently, by the text's seeded generator.

use suite_core::{ResolveError, Transform};

use crate::descriptor::{Descriptor, Kind, Level};
use crate::param::{Param, Params};
use crate::rng::{Probability, TextRng, seeded};

/// The characters character-level transforms change: letters and digits.
pub fn eligible(c: char) -> bool {
    c.is_alphanumeric()
}

/// `(rate, seed)` of a rate transform, and the identity when the rate is 0.
fn rate_seed(p: &Params<'_>) -> Result<(Probability, u64), ResolveError> {
    Ok((Probability::new(p.f64("rate")?), p.u64("seed")?))
}

/// A transform that calls `op(c, rng, out)` on each eligible character chosen with probability
/// `rate` (pushing its replacement into `out`) and copies every other character.
fn per_char(
    name: &'static str,
    p: &Params<'_>,
    op: impl Fn(char, &mut TextRng, &mut String) + Send + Sync + 'static,
) -> Result<Transform, ResolveError> {
    let (rate, seed) = rate_seed(p)?;
    if rate.is_zero() {
        return Ok(Transform::new(str::to_owned));
    }
    Ok(seeded(name, seed, move |text, rng| {
        let mut out = String::with_capacity(text.len() + text.len() / 4);
        for c in text.chars() {
            if eligible(c) && rng.chance(rate) {
                op(c, rng, &mut out);
            } else {
                out.push(c);
            }
        }
        out
    }))
}

/// The usual parameters of a character-level corruption.
const RATE_SEED: &[Param] = &[
    Param::rate("probability per letter or digit", "0.1"),
    Param::seed(),
];

fn repeat_char(p: &Params<'_>) -> Result<Transform, ResolveError> {
    per_char("repeat_char", p, |c, _, out| {
        out.push(c);
        out.push(c);
    })
}

fn char_delete(p: &Params<'_>) -> Result<Transform, ResolveError> {
    per_char("char_delete", p, |_, _, _| {})
}

/// Swaps each chosen character with the next one when that is eligible too (a chosen
/// character is swapped at most once; the pair is then skipped).
fn neighbour_swap(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let (rate, seed) = rate_seed(p)?;
    if rate.is_zero() {
        return Ok(Transform::new(str::to_owned));
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

/// A character-level corruption with the usual `rate` and `seed`.
const fn rate_corruption(
    name: &'static str,
    description: &'static str,
    build: crate::descriptor::BuildFn,
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
        "repeat_char",
        "letters and digits doubled with probability rate",
        repeat_char,
    ),
    rate_corruption(
        "char_delete",
        "letters and digits deleted with probability rate",
        char_delete,
    ),
    rate_corruption(
        "neighbour_swap",
        "a letter or digit swapped with the next one (also a letter or digit) with probability rate",
        neighbour_swap,
    ),
];
