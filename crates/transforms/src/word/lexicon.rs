//! Table rewrites of words and phrases: contractions expanded and added, American ↔ British
//! spelling, abbreviations, slang, speech-to-text confusions, dyslexia word swaps and homophones.
//!
//! Each matches its table's keys against the text's lexical words (longest key first, see
//! [`PhraseMap`]) and writes the replacement in the case of the matched text (`Colour` →
//! `Color`, `DON'T` → `DO NOT`; a replacement in lower case is otherwise used as written). The
//! meaning-preserving ones rewrite every match; the corruptions rewrite each match with
//! probability `rate` (their severity). A key with several replacements gets one chosen by the
//! seeded draw.

use suite_core::{ResolveError, Transform};

use crate::descriptor::{BuildFn, Descriptor, Kind, Level};
use crate::param::{Param, Params};
use crate::rng::seeded;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::Case;
use super::table::{PhraseMap, Rows};
use crate::rng::{Probability, TextRng};

/// Which rewrite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lexical {
    /// `contraction_expand`: `don't` → `do not` (meaning-preserving).
    ContractionExpand,
    /// `contraction_add`: `do not` → `don't` (meaning-preserving).
    ContractionAdd,
    /// `us_to_uk`: `color` → `colour` (meaning-preserving).
    UsToUk,
    /// `uk_to_us`: `colour` → `color` (meaning-preserving).
    UkToUs,
    /// `abbreviation`: `as soon as possible` → `ASAP`, `you` → `u` (corruption).
    Abbreviation,
    /// `slang`: `friend` → `buddy` (corruption).
    Slang,
    /// `speech_to_text`: sound-alike confusions of dictation (`would have` → `would of`).
    SpeechToText,
    /// `dyslexia_swap`: commonly confused words (`from` ↔ `form`, `their` ↔ `there`).
    Dyslexia,
    /// `homophone`: a word replaced by one pronounced the same (CMU-derived groups).
    Homophone,
}

impl Lexical {
    /// Every rewrite, in catalogue order.
    pub const ALL: [Lexical; 9] = [
        Lexical::ContractionExpand,
        Lexical::ContractionAdd,
        Lexical::UsToUk,
        Lexical::UkToUs,
        Lexical::Abbreviation,
        Lexical::Slang,
        Lexical::SpeechToText,
        Lexical::Dyslexia,
        Lexical::Homophone,
    ];

    /// The transform name.
    const fn name(self) -> &'static str {
        match self {
            Lexical::ContractionExpand => "contraction_expand",
            Lexical::ContractionAdd => "contraction_add",
            Lexical::UsToUk => "us_to_uk",
            Lexical::UkToUs => "uk_to_us",
            Lexical::Abbreviation => "abbreviation",
            Lexical::Slang => "slang",
            Lexical::SpeechToText => "speech_to_text",
            Lexical::Dyslexia => "dyslexia_swap",
            Lexical::Homophone => "homophone",
        }
    }

    /// The one-line description.
    pub const fn description(self) -> &'static str {
        match self {
            Lexical::ContractionExpand => "expands English contractions (don't -> do not)",
            Lexical::ContractionAdd => "contracts English phrases (do not -> don't)",
            Lexical::UsToUk => "American spellings to British (color -> colour)",
            Lexical::UkToUs => "British spellings to American (colour -> color)",
            Lexical::Abbreviation => "abbreviates words and phrases with probability `rate`",
            Lexical::Slang => "replaces words and phrases by slang with probability `rate`",
            Lexical::SpeechToText => {
                "replaces words and phrases by dictation sound-alikes with probability `rate`"
            }
            Lexical::Dyslexia => "swaps commonly confused words with probability `rate`",
            Lexical::Homophone => "replaces words by homophones with probability `rate`",
        }
    }

    /// Whether the rewrite keeps the meaning (an invariance), rather than corrupting (with
    /// `rate` as severity). Contractions and the two spellings are the same words written
    /// another standard way; the others change the words a reader sees.
    pub fn meaning_preserving(self) -> bool {
        matches!(
            self,
            Lexical::ContractionExpand
                | Lexical::ContractionAdd
                | Lexical::UsToUk
                | Lexical::UkToUs
        )
    }

    /// The compiled-in table: (file name under `data/`, text).
    pub fn builtin(self) -> (&'static str, &'static str) {
        match self {
            Lexical::ContractionExpand | Lexical::ContractionAdd => (
                "contractions.tsv",
                include_str!("../../data/contractions.tsv"),
            ),
            Lexical::UsToUk | Lexical::UkToUs => {
                ("us_uk.tsv", include_str!("../../data/us_uk.tsv"))
            }
            Lexical::Abbreviation => (
                "abbreviations.tsv",
                include_str!("../../data/abbreviations.tsv"),
            ),
            Lexical::Slang => ("slang.tsv", include_str!("../../data/slang.tsv")),
            Lexical::SpeechToText => (
                "speech_to_text.tsv",
                include_str!("../../data/speech_to_text.tsv"),
            ),
            Lexical::Dyslexia => ("dyslexia.tsv", include_str!("../../data/dyslexia.tsv")),
            // typo-tasks' CMU-derived groups, read through its public API (see `homophones`).
            Lexical::Homophone => ("homophones (typo-tasks)", ""),
        }
    }

    /// The row format, for documentation and errors.
    pub fn format(self) -> &'static str {
        match self {
            Lexical::ContractionExpand | Lexical::ContractionAdd => {
                "`CONTRACTION<TAB>EXPANSION[<TAB>expand]` (`expand`: used for expanding only)"
            }
            Lexical::UsToUk | Lexical::UkToUs => "`AMERICAN<TAB>BRITISH`",
            Lexical::Abbreviation | Lexical::Slang | Lexical::SpeechToText => {
                "`PHRASE<TAB>REPLACEMENT[<TAB>REPLACEMENT...]`"
            }
            Lexical::Dyslexia | Lexical::Homophone => "`WORD<TAB>WORD[<TAB>WORD...]` (a group)",
        }
    }
}

/// A table rewrite's table, ready to apply.
#[derive(Debug, Clone)]
pub struct Lexicon {
    kind: Lexical,
    map: PhraseMap,
    values: Vec<Vec<String>>,
}

impl Lexicon {
    /// The rewrite `kind` with its compiled-in table (parsed once per process and shared).
    pub fn builtin(kind: Lexical) -> Result<Arc<Lexicon>, String> {
        static TABLES: [OnceLock<Result<Arc<Lexicon>, String>>; 9] = [const { OnceLock::new() }; 9];
        let i = Lexical::ALL.iter().position(|k| *k == kind).unwrap_or(0);
        TABLES[i]
            .get_or_init(|| Lexicon::new(kind, None).map(Arc::new))
            .clone()
    }

    /// The rewrite `kind` with its compiled-in table, or the table at `table_path`.
    pub fn new(kind: Lexical, table_path: Option<&Path>) -> Result<Lexicon, String> {
        let rows = match (kind, table_path) {
            #[cfg(feature = "typo-tasks")]
            (Lexical::Homophone, None) => homophones(),
            #[cfg(not(feature = "typo-tasks"))]
            (Lexical::Homophone, None) => {
                return Err("the built-in homophones need the `typo-tasks` feature".into());
            }
            _ => {
                let (name, text) = kind.builtin();
                Rows::load(name, text, table_path)?
            }
        };
        let mut lexicon = Lexicon {
            kind,
            map: PhraseMap::default(),
            values: Vec::new(),
        };
        lexicon.fill(&rows)?;
        Ok(lexicon)
    }

    fn add(
        &mut self,
        rows: &Rows,
        line: usize,
        key: &str,
        values: Vec<String>,
    ) -> Result<(), String> {
        let id = self.values.len();
        if self.map.insert(key, id).map_err(|m| rows.error(line, m))? {
            self.values.push(values);
        }
        Ok(())
    }

    fn fill(&mut self, rows: &Rows) -> Result<(), String> {
        let kind = self.kind;
        match kind {
            Lexical::ContractionExpand | Lexical::ContractionAdd => {
                rows.check_fields(2, 3, kind.format())?;
                for (line, f) in &rows.rows {
                    let expand_only = match f.get(2).map(String::as_str) {
                        None => false,
                        Some("expand") => true,
                        Some(other) => {
                            return Err(rows.error(
                                *line,
                                format!("third field must be `expand`, found `{other}`"),
                            ));
                        }
                    };
                    if kind == Lexical::ContractionExpand {
                        self.add(rows, *line, &f[0], vec![f[1].clone()])?;
                    } else if !expand_only {
                        self.add(rows, *line, &f[1], vec![f[0].clone()])?;
                    }
                }
            }
            Lexical::UsToUk | Lexical::UkToUs => {
                rows.check_fields(2, 2, kind.format())?;
                let (from, to) = if kind == Lexical::UsToUk {
                    (0, 1)
                } else {
                    (1, 0)
                };
                for (line, f) in &rows.rows {
                    self.add(rows, *line, &f[from], vec![f[to].clone()])?;
                }
            }
            Lexical::Abbreviation | Lexical::Slang | Lexical::SpeechToText => {
                rows.check_fields(2, usize::MAX, kind.format())?;
                for (line, f) in &rows.rows {
                    self.add(rows, *line, &f[0], f[1..].to_vec())?;
                }
            }
            Lexical::Dyslexia | Lexical::Homophone => {
                rows.check_fields(2, usize::MAX, kind.format())?;
                for (line, group) in &rows.rows {
                    for (i, member) in group.iter().enumerate() {
                        let others: Vec<String> = group
                            .iter()
                            .enumerate()
                            .filter(|&(j, m)| j != i && !m.eq_ignore_ascii_case(member))
                            .map(|(_, m)| m.clone())
                            .collect();
                        if !others.is_empty() {
                            self.add(rows, *line, member, others)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Rewrites `text`, drawing from `rng`: every match, or with `rate` (a corruption) each
    /// match with that probability (one decision per match, in order); then one choice per
    /// rewritten match with several replacements.
    pub fn apply(&self, text: &str, rate: Option<Probability>, rng: &mut TextRng) -> String {
        if rate.is_some_and(Probability::is_zero) {
            return text.to_owned();
        }
        let mut edits = Vec::new();
        for (range, id) in self.map.matches(text) {
            if let Some(rate) = rate
                && !rng.chance(rate)
            {
                continue;
            }
            let values = &self.values[id];
            let value = match values.len() {
                1 => &values[0],
                n => &values[rng.below(n)],
            };
            let mut with = String::new();
            Case::of(&text[range.clone()]).write(value, &mut with);
            edits.push((range, with));
        }
        super::splice(text, &edits)
    }
}

#[cfg(feature = "typo-tasks")]
/// typo-tasks' homophone groups (CMU Pronouncing Dictionary, BSD; common words per SCOWL, MIT;
/// see typo-tasks' `data/README.md`) as group rows, keeping only members that are single lexical
/// words (the rest could never match).
fn homophones() -> Rows {
    let data = typo_generators::Data::english();
    let rows = data
        .homophones
        .into_iter()
        .map(|group| {
            group
                .into_iter()
                .filter(|w| {
                    let lex = super::lexical_words(w);
                    lex.len() == 1 && lex[0] == (0..w.len())
                })
                .collect::<Vec<String>>()
        })
        .filter(|g| g.len() >= 2)
        .enumerate()
        .map(|(i, g)| (i + 1, g))
        .collect();
    Rows {
        source: "builtin:homophones (typo-tasks)".into(),
        rows,
    }
}

/// The table rewrites' builder: meaning-preserving ones rewrite every match (no rate), the
/// corruptions each match with probability `rate`.
fn build(kind: Lexical, p: &Params<'_>) -> Result<Transform, ResolveError> {
    let lexicon = match super::table_path(p)? {
        None => Lexicon::builtin(kind),
        Some(path) => Lexicon::new(kind, Some(&path)).map(Arc::new),
    }
    .map_err(|e| ResolveError::Invalid(format!("table: {e}")))?;
    if kind.meaning_preserving() {
        return Ok(seeded(kind.name(), 0, move |text, rng| {
            lexicon.apply(text, None, rng)
        }));
    }
    let rate = Probability::new(p.f64("rate")?);
    if rate.is_zero() {
        return Ok(Transform::new(str::to_owned));
    }
    Ok(seeded(kind.name(), p.u64("seed")?, move |text, rng| {
        lexicon.apply(text, Some(rate), rng)
    }))
}

const RATE_SEED_TABLE: &[Param] = &[
    Param::rate("probability per match of the table", "0.5"),
    Param::seed(),
    super::TABLE_PARAM,
];

const fn preserving(kind: Lexical, example: &'static str, build: BuildFn) -> Descriptor {
    Descriptor {
        name: kind.name(),
        level: Level::Word,
        kind: Kind::MeaningPreserving,
        description: kind.description(),
        params: &[super::TABLE_PARAM],
        example,
        example_params: "{}",
        build,
    }
}

const fn corrupting(kind: Lexical, example: &'static str, build: BuildFn) -> Descriptor {
    super::table_corruption(
        kind.name(),
        kind.description(),
        RATE_SEED_TABLE,
        example,
        build,
    )
}

/// The table rewrites (the homophones need typo-tasks' table: see [`HOMOPHONE`]).
pub(crate) static DESCRIPTORS: &[Descriptor] = &[
    preserving(
        Lexical::ContractionExpand,
        "I'm sure you don't mind; it's fine.",
        |p| build(Lexical::ContractionExpand, p),
    ),
    preserving(
        Lexical::ContractionAdd,
        "I am sure you do not mind; it is fine.",
        |p| build(Lexical::ContractionAdd, p),
    ),
    preserving(
        Lexical::UsToUk,
        "My neighbor organized a theater trip; the color was gray.",
        |p| build(Lexical::UsToUk, p),
    ),
    preserving(
        Lexical::UkToUs,
        "My neighbour organised a theatre trip; the colour was grey.",
        |p| build(Lexical::UkToUs, p),
    ),
    corrupting(
        Lexical::Abbreviation,
        "Please let me know as soon as possible, thank you.",
        |p| build(Lexical::Abbreviation, p),
    ),
    corrupting(
        Lexical::Slang,
        "My friend has a lot of money and a very good car.",
        |p| build(Lexical::Slang, p),
    ),
    corrupting(
        Lexical::SpeechToText,
        "I would have told you their car is right there.",
        |p| build(Lexical::SpeechToText, p),
    ),
    corrupting(
        Lexical::Dyslexia,
        "I saw a letter from their dog on the quiet street.",
        |p| build(Lexical::Dyslexia, p),
    ),
];

/// `homophone`, whose built-in groups are typo-tasks'.
#[cfg(feature = "typo-tasks")]
pub(crate) static HOMOPHONE: &[Descriptor] = &[corrupting(
    Lexical::Homophone,
    "I knew their two cats would wait here.",
    |p| build(Lexical::Homophone, p),
)];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::word::test_rng;

    fn run(kind: Lexical, rate: Option<f64>, text: &str) -> String {
        Lexicon::builtin(kind)
            .unwrap()
            .apply(text, rate.map(Probability::new), &mut test_rng(9))
    }

    #[test]
    fn every_builtin_table_loads() {
        for kind in Lexical::ALL {
            let lex = Lexicon::builtin(kind).unwrap();
            assert!(
                lex.values.len() >= 20,
                "{}: {}",
                kind.name(),
                lex.values.len()
            );
        }
    }

    #[test]
    fn contractions_and_spellings_keep_case() {
        assert_eq!(
            run(
                Lexical::ContractionExpand,
                None,
                "Don't! I'M sure it’s fine."
            ),
            "Do not! I AM sure it is fine."
        );
        assert_eq!(
            run(Lexical::ContractionAdd, None, "Do not go; I am sure it is"),
            "Don't go; I'm sure it's"
        );
        assert_eq!(
            run(Lexical::UsToUk, None, "The Color of the CENTER"),
            "The Colour of the CENTRE"
        );
        assert_eq!(
            run(Lexical::UkToUs, None, "colour, centre; Organise"),
            "color, center; Organize"
        );
    }

    #[test]
    fn meaning_preserving_rewrites_are_idempotent_on_their_tables() {
        // The law: no output of a table is itself a key of the same table.
        for kind in [
            Lexical::ContractionExpand,
            Lexical::ContractionAdd,
            Lexical::UsToUk,
            Lexical::UkToUs,
        ] {
            let lex = Lexicon::builtin(kind).unwrap();
            for values in &lex.values {
                for v in values {
                    let once = lex.apply(v, None, &mut test_rng(0));
                    assert_eq!(&once, v, "{}: `{v}` is also a key", kind.name());
                }
            }
        }
    }

    #[test]
    fn rate_zero_is_the_identity() {
        assert_eq!(run(Lexical::Slang, Some(0.0), "my friend"), "my friend");
    }

    #[test]
    fn user_tables_replace_builtins_and_errors_name_the_line() {
        // Removed when dropped, even when an assertion fails.
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let good = dir.join("good.tsv");
        std::fs::write(&good, "# mine\nhello\thowdy\thiya\n").unwrap();
        let lex = Lexicon::new(Lexical::Slang, Some(&good)).unwrap();
        let out = lex.apply("Hello there", Some(Probability::new(1.0)), &mut test_rng(0));
        assert!(out == "Howdy there" || out == "Hiya there", "{out}");
        let bad = dir.join("bad.tsv");
        std::fs::write(&bad, "a\tb\nc\n").unwrap();
        let err = Lexicon::new(Lexical::UsToUk, Some(&bad)).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}:2: expected `AMERICAN<TAB>BRITISH`, found 1 field(s)",
                bad.display()
            )
        );
        std::fs::write(&bad, "e.g.\tfor example\n").unwrap();
        let err = Lexicon::new(Lexical::Abbreviation, Some(&bad)).unwrap_err();
        assert!(err.to_string().contains(":1: key `e.g.`"), "{err}");
    }

    #[test]
    fn groups_swap_within_the_group() {
        let out = run(Lexical::Homophone, Some(1.0), "I knew their two cats");
        assert_ne!(out, "I knew their two cats");
        let out = run(Lexical::Dyslexia, Some(1.0), "from");
        assert_eq!(out, "form");
    }
}
