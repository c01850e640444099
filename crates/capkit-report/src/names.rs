//! The names a page calls its models by: a short, distinct name per student (and the teacher),
//! from what tells them apart, so that sections, legends and the recommendation read
//! "student_b" and "exact" rather than "A" and "B" (issue 36).
//!
//! The rule, per model, first that applies:
//! 1. an alias the user gave (`capkit profile compare --alias exact=MODEL`);
//! 2. a model name that is already short (a Python name such as `tfidf_lr`: at most
//!    [`MAX_NAME`] characters, no white space);
//! 3. the words of its spec that differ from the other models' specs, a path cut to its file
//!    name without extension (`cmd:python3 examples/profile/student_b.py` beside
//!    `…/student.py` is `student_b`; `--variant exact` beside `--variant shouty` is `exact`);
//!    the same words whole (`127.0.0.1:8001/extract`) when that is what tells them apart;
//! 4. the derived alias (`A`, `B`, …), which a page then keys to its spec.
//!
//! Names are distinct whatever the specs: a candidate that would repeat another model's name
//! is not used.

/// Names longer than this are not used as they are.
pub const MAX_NAME: usize = 24;

/// A model's name on the page and whether it is only a letter (so a key must say which spec).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelName {
    /// What the page calls it.
    pub shown: String,
    /// Whether `shown` is the derived alias (A, B, …): no better name was found.
    pub letter: bool,
}

/// Short, distinct names for `models` (their specs or names, in order); `given[k]` is model
/// `k`'s user-given alias, `fallback[k]` its derived alias.
pub fn short_names(models: &[&str], given: &[Option<&str>], fallback: &[&str]) -> Vec<ModelName> {
    let words: Vec<Vec<&str>> = models.iter().map(|m| spec_words(m)).collect();
    // Words every model's spec has are what they share; the rest tells them apart.
    // A number alone names nothing: it keeps the word before it (`--variant 0`).
    let distinct: Vec<Vec<&str>> = words
        .iter()
        .map(|w| {
            let differs = |x: &&str| models.len() < 2 || !words.iter().all(|o| o.contains(x));
            let mut kept: Vec<&str> = Vec::new();
            for (k, x) in w.iter().enumerate() {
                if !differs(x) {
                    continue;
                }
                if x.chars().all(|c| c.is_ascii_digit())
                    && let Some(before) = k.checked_sub(1).and_then(|b| w.get(b))
                    && !kept.contains(before)
                {
                    // `--variant 0` reads as `variant 0`.
                    kept.push(before.trim_start_matches('-'));
                }
                kept.push(x);
            }
            kept
        })
        .collect();
    // A model on its own: the words that name a file, when there are any (`python3` is not a
    // name of `cmd:python3 teacher.py`).
    let distinct: Vec<Vec<&str>> = distinct
        .into_iter()
        .map(|w| {
            let paths: Vec<&str> = w.iter().copied().filter(|x| x.contains('/')).collect();
            if models.len() < 2 && !paths.is_empty() {
                paths
            } else {
                w
            }
        })
        .collect();
    let stemmed: Vec<String> = distinct
        .iter()
        .map(|w| w.iter().map(|x| stem(x)).collect::<Vec<_>>().join(" "))
        .collect();
    let whole: Vec<String> = distinct.iter().map(|w| w.join(" ")).collect();
    let usable = |s: &str| !s.is_empty() && s.chars().count() <= MAX_NAME;
    let unique = |all: &[String], s: &str| all.iter().filter(|o| o.as_str() == s).count() == 1;
    let mut out: Vec<ModelName> = Vec::with_capacity(models.len());
    for (k, model) in models.iter().enumerate() {
        let letter = fallback.get(k).copied().unwrap_or("?");
        let bare = without_scheme(model);
        let short = (bare.chars().count() <= MAX_NAME && !bare.chars().any(char::is_whitespace))
            .then(|| bare.to_owned());
        let taken = |s: &str| out.iter().any(|n| n.shown == s);
        let derived = [
            short,
            Some(stemmed[k].clone()).filter(|s| usable(s) && unique(&stemmed, s)),
            Some(whole[k].clone()).filter(|s| usable(s) && unique(&whole, s)),
        ];
        // A given alias is the user's word; a derived name never repeats another model's
        // name nor reads as another model's letter.
        let name = given
            .get(k)
            .copied()
            .flatten()
            .map(str::to_owned)
            .or_else(|| {
                derived
                    .into_iter()
                    .flatten()
                    .find(|c| !taken(c) && !fallback.contains(&c.as_str()))
            });
        out.push(match name {
            Some(shown) => ModelName {
                shown,
                letter: false,
            },
            None => ModelName {
                shown: letter.to_owned(),
                letter: true,
            },
        });
    }
    out
}

/// The words of a spec, its scheme (`cmd:`, `http://`, `openai:`, `file:`) left out of the
/// first.
fn spec_words(spec: &str) -> Vec<&str> {
    without_scheme(spec).split_whitespace().collect()
}

/// A spec without its scheme (`cmd:`, `http://`, `https://`, `file:`; `openai:` is kept: it
/// says what the model is).
fn without_scheme(spec: &str) -> &str {
    ["cmd:", "https://", "http://", "file:"]
        .iter()
        .find_map(|s| spec.strip_prefix(s))
        .unwrap_or(spec)
}

/// A path's file name without its extension (`examples/profile/student_b.py` → `student_b`);
/// any other word as it is.
fn stem(word: &str) -> &str {
    let name = match word.rsplit_once('/') {
        Some((_, name)) if !name.is_empty() => name,
        _ => word,
    };
    match name.rsplit_once('.') {
        Some((base, ext))
            if !base.is_empty()
                && (1..=4).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && !ext.chars().all(|c| c.is_ascii_digit()) =>
        {
            base
        }
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(models: &[&str]) -> Vec<String> {
        let letters: Vec<String> = (0..models.len())
            .map(|k| ((b'A' + k as u8) as char).to_string())
            .collect();
        let letters: Vec<&str> = letters.iter().map(String::as_str).collect();
        short_names(models, &vec![None; models.len()], &letters)
            .into_iter()
            .map(|n| n.shown)
            .collect()
    }

    #[test]
    fn names_come_from_what_tells_the_specs_apart() {
        assert_eq!(
            shown(&[
                "cmd:python3 examples/profile/student.py",
                "cmd:python3 examples/profile/student_b.py"
            ]),
            ["student", "student_b"]
        );
        assert_eq!(
            shown(&[
                "cmd:python3 s.py --variant exact",
                "cmd:python3 s.py --variant shouty"
            ]),
            ["exact", "shouty"]
        );
        assert_eq!(
            shown(&[
                "http://127.0.0.1:8001/extract",
                "http://127.0.0.1:8002/extract"
            ]),
            ["127.0.0.1:8001/extract", "127.0.0.1:8002/extract"]
        );
        // Short names (Python's) stay as they are; a short spec loses its scheme.
        assert_eq!(shown(&["tfidf_lr", "nb"]), ["tfidf_lr", "nb"]);
        assert_eq!(
            shown(&["cmd:exact", "openai:gpt-4o"]),
            ["exact", "openai:gpt-4o"]
        );
        // Nothing short tells them apart: letters (the page keys them to their specs).
        let long = format!("cmd:run {}", "x".repeat(40));
        let names = short_names(&[&long, &format!("{long}y")], &[None, None], &["A", "B"]);
        assert!(names.iter().all(|n| n.letter), "{names:?}");
        // A given alias wins.
        let names = short_names(&["cmd:a b", "cmd:a c"], &[Some("fast"), None], &["A", "B"]);
        assert_eq!(names[0].shown, "fast");
        assert_eq!(names[1].shown, "c");
        assert_eq!(stem("v1.2"), "v1.2");
        assert_eq!(
            shown(&[
                "cmd:s.py --variant 0 --pad x",
                "cmd:s.py --variant 1 --pad x"
            ]),
            ["variant 0", "variant 1"]
        );
    }
}
