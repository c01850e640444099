//! `synonym` and `antonym`: WordNet swaps, the database read at run time from a directory the
//! user gives (`wordnet`: Debian's `wordnet-base` installs it as `/usr/share/wordnet`); nothing
//! of WordNet is compiled in or downloaded.
//!
//! For each lexical word (or run of words: WordNet lemmas such as `ice cream` match as phrases)
//! that is a lemma of the chosen part of speech, with probability `rate`:
//!
//! * `synonym` replaces it by another word of its most frequent sense's synset (the first synset
//!   the index lists);
//! * `antonym` replaces it by one of its direct antonyms (WordNet's `!` pointers from that lemma,
//!   in any of its senses; adjective satellites have none of their own).
//!
//! No part-of-speech tagger runs: a word is swapped whenever it is a lemma of `pos`, in whatever
//! role the sentence gives it (`fast` the adjective and `fast` the verb alike), which is why both
//! are declared corruptions (rate as severity) rather than meaning-preserving rewrites. Only the
//! base forms WordNet lists match (`happier` is no lemma; WordNet's morphology is not applied).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use suite_core::{ResolveError, Transform};

use super::table::PhraseMap;
use super::{Case, splice};
use crate::descriptor::{Descriptor, Kind, Level};
use crate::param::{Param, ParamType, Params};
use crate::rng::{Probability, TextRng, seeded};

/// The parts of speech, as `pos` names them, with WordNet's file suffix.
const POS: [(&str, &str); 4] = [
    ("adj", "adj"),
    ("adv", "adv"),
    ("noun", "noun"),
    ("verb", "verb"),
];

/// Which swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    /// `synonym`.
    Synonym,
    /// `antonym`.
    Antonym,
}

impl Relation {
    const fn name(self) -> &'static str {
        match self {
            Relation::Synonym => "synonym",
            Relation::Antonym => "antonym",
        }
    }
}

/// One synset of a data file: its words (WordNet's spelling, `_` for spaces, markers such as
/// `(a)` removed) and its antonym pointers (source word index, 1-based, 0 = all; target offset;
/// target word index).
#[derive(Debug, Default)]
struct Synset {
    words: Vec<String>,
    antonyms: Vec<(usize, u64, usize)>,
}

/// The swaps of one relation and part of speech, ready to apply.
#[derive(Debug, Clone)]
pub struct WordNet {
    map: PhraseMap,
    values: Vec<Vec<String>>,
}

fn read(dir: &Path, name: &str) -> Result<String, String> {
    let path = dir.join(name);
    std::fs::read_to_string(&path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
}

/// `data.POS`: offset → synset.
fn parse_data(file: &str, text: &str) -> Result<HashMap<u64, Synset>, String> {
    let mut out = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        // The licence header's lines start with two spaces.
        if line.starts_with(' ') || line.trim().is_empty() {
            continue;
        }
        let bad = |what: &str| format!("{file}:{}: {what}", i + 1);
        let fields: Vec<&str> = line
            .split('|')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let offset: u64 = fields
            .first()
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| bad("expected a synset offset"))?;
        let w_cnt = fields
            .get(3)
            .and_then(|f| usize::from_str_radix(f, 16).ok())
            .ok_or_else(|| bad("expected the word count (hexadecimal) in field 4"))?;
        let mut synset = Synset::default();
        for k in 0..w_cnt {
            let word = fields
                .get(4 + 2 * k)
                .ok_or_else(|| bad("fewer words than its word count"))?;
            // Adjective markers: `(a)`, `(p)`, `(ip)` after the word.
            let word = word.split('(').next().unwrap_or(word);
            synset.words.push(word.to_owned());
        }
        let at = 4 + 2 * w_cnt;
        let p_cnt: usize = fields
            .get(at)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| bad("expected the pointer count after the words"))?;
        for k in 0..p_cnt {
            let ptr = fields
                .get(at + 1 + 4 * k..at + 5 + 4 * k)
                .ok_or_else(|| bad("fewer pointers than its pointer count"))?;
            if ptr[0] != "!" {
                continue;
            }
            let target: u64 = ptr[1].parse().map_err(|_| bad("bad pointer offset"))?;
            let st = ptr[3];
            let (source, target_word) = match (
                usize::from_str_radix(st.get(..2).unwrap_or(""), 16),
                usize::from_str_radix(st.get(2..).unwrap_or(""), 16),
            ) {
                (Ok(s), Ok(t)) => (s, t),
                _ => return Err(bad("bad pointer source/target")),
            };
            synset.antonyms.push((source, target, target_word));
        }
        out.insert(offset, synset);
    }
    Ok(out)
}

impl WordNet {
    /// The `relation` swaps of part of speech `pos` (`adj`, `adv`, `noun`, `verb`) from the
    /// WordNet database in `dir` (`index.POS` and `data.POS`).
    pub fn load(dir: &Path, relation: Relation, pos: &str) -> Result<WordNet, String> {
        let suffix = POS
            .iter()
            .find(|(name, _)| *name == pos)
            .map(|(_, s)| *s)
            .ok_or_else(|| format!("unknown part of speech `{pos}`"))?;
        let data_name = format!("data.{suffix}");
        let index_name = format!("index.{suffix}");
        let data = parse_data(&data_name, &read(dir, &data_name)?)?;
        let index = read(dir, &index_name)?;
        let mut wn = WordNet {
            map: PhraseMap::default(),
            values: Vec::new(),
        };
        for (i, line) in index.lines().enumerate() {
            if line.starts_with(' ') || line.trim().is_empty() {
                continue;
            }
            let bad = |what: &str| format!("{index_name}:{}: {what}", i + 1);
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(lemma), Some(synset_cnt)) = (
                fields.first(),
                fields.get(2).and_then(|f| f.parse::<usize>().ok()),
            ) else {
                return Err(bad("expected `lemma pos synset_cnt ...`"));
            };
            if fields.len() < synset_cnt {
                return Err(bad("fewer synsets than its synset count"));
            }
            let offsets: Vec<u64> = fields[fields.len() - synset_cnt..]
                .iter()
                .map(|f| f.parse().map_err(|_| bad("bad synset offset")))
                .collect::<Result<_, _>>()?;
            let same = |w: &str| w.eq_ignore_ascii_case(lemma);
            let mut values: Vec<String> = Vec::new();
            match relation {
                Relation::Synonym => {
                    // Numeral synsets (`3 three iii trey`) are skipped whole: `three` -> `iii`
                    // is no synonym a text means.
                    if let Some(synset) = offsets.first().and_then(|o| data.get(o))
                        && !synset
                            .words
                            .iter()
                            .any(|w| w.contains(|c: char| c.is_ascii_digit()))
                    {
                        values.extend(synset.words.iter().filter(|w| !same(w)).cloned());
                    }
                }
                Relation::Antonym => {
                    for synset in offsets.iter().filter_map(|o| data.get(o)) {
                        let position = synset.words.iter().position(|w| same(w)).map(|p| p + 1);
                        for &(source, target, word) in &synset.antonyms {
                            if source != 0 && Some(source) != position {
                                continue;
                            }
                            if let Some(t) = data.get(&target) {
                                let words = if word == 0 {
                                    &t.words[..]
                                } else {
                                    t.words.get(word - 1..word).unwrap_or(&[])
                                };
                                values.extend(words.iter().cloned());
                            }
                        }
                    }
                }
            }
            let mut seen = Vec::new();
            values.retain(|v| {
                let fresh = !seen.contains(v);
                seen.push(v.clone());
                fresh
            });
            if values.is_empty() {
                continue;
            }
            // Lemmas that are no run of lexical words (`a-one`, `u.s.`) can never match, and
            // one-letter lemmas and numerals (`i` -> `ane`, `42` -> `xlii`) are no words a text
            // means as adjectives: skipped, and so are replacements with digits.
            values.retain(|v| !v.contains(|c: char| c.is_ascii_digit()));
            if values.is_empty()
                || lemma.chars().count() < 2
                || lemma.contains(|c: char| c.is_ascii_digit())
            {
                continue;
            }
            let key = lemma.replace('_', " ");
            if let Ok(true) = wn.map.insert(&key, wn.values.len()) {
                wn.values
                    .push(values.into_iter().map(|v| v.replace('_', " ")).collect());
            }
        }
        Ok(wn)
    }

    /// [`WordNet::load`], once per (directory, relation, part of speech) and process: a suite
    /// building several entries over one database reads it once.
    pub fn shared(dir: &Path, relation: Relation, pos: &str) -> Result<Arc<WordNet>, String> {
        type Cache = Mutex<HashMap<(PathBuf, Relation, String), Arc<WordNet>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let key = (dir.to_path_buf(), relation, pos.to_owned());
        let cache = CACHE.get_or_init(Cache::default);
        if let Some(wn) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(Arc::clone(wn));
        }
        // Loaded outside the lock; two threads loading at once both succeed, one is kept.
        let wn = Arc::new(WordNet::load(dir, relation, pos)?);
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        Ok(Arc::clone(cache.entry(key).or_insert(wn)))
    }

    /// Applies it at `rate`: one decision per lemma found, then one choice per replaced one;
    /// with `insert`, the chosen word is inserted after the lemma (`fast` -> `fast quick`:
    /// TextAttack's random synonym insertion, at the word instead of a random place) instead of
    /// replacing it.
    pub fn apply(&self, text: &str, rate: Probability, insert: bool, rng: &mut TextRng) -> String {
        if rate.is_zero() {
            return text.to_owned();
        }
        let mut edits = Vec::new();
        for (range, id) in self.map.matches(text) {
            if !rng.chance(rate) {
                continue;
            }
            let values = &self.values[id];
            let value = &values[rng.below(values.len())];
            let mut with = String::new();
            if insert {
                with.push_str(&text[range.clone()]);
                with.push(' ');
                with.push_str(value);
            } else {
                Case::of(&text[range.clone()]).write(value, &mut with);
            }
            edits.push((range, with));
        }
        splice(text, &edits)
    }
}

fn build(relation: Relation, insert: bool, p: &Params<'_>) -> Result<Transform, ResolveError> {
    let dir = p.str("wordnet")?;
    if dir.is_empty() {
        return Err(ResolveError::Invalid(
            "wordnet: give the directory of a WordNet database (e.g. /usr/share/wordnet from \
             Debian's wordnet-base)"
                .into(),
        ));
    }
    let wn = WordNet::shared(Path::new(dir), relation, p.str("pos")?)
        .map_err(|e| ResolveError::Invalid(format!("wordnet: {e}")))?;
    let rate = Probability::new(p.f64("rate")?);
    if rate.is_zero() {
        return Ok(Transform::new(str::to_owned));
    }
    let name = if insert {
        "synonym_insert"
    } else {
        relation.name()
    };
    Ok(seeded(name, p.u64("seed")?, move |text, rng| {
        wn.apply(text, rate, insert, rng)
    }))
}

const PARAMS: &[Param] = &[
    Param {
        name: "wordnet",
        ty: ParamType::Text,
        default: None,
        doc: "directory of a WordNet 3 database (index.POS, data.POS), e.g. /usr/share/wordnet",
    },
    Param::rate("probability per lemma found", "0.5"),
    Param::seed(),
    Param {
        name: "pos",
        ty: ParamType::Choice(&["adj", "adv", "noun", "verb"]),
        default: Some("\"adj\""),
        doc: "part of speech whose lemmas are swapped",
    },
];

const fn wordnet(
    name: &'static str,
    description: &'static str,
    build: crate::descriptor::BuildFn,
) -> Descriptor {
    Descriptor {
        name,
        level: Level::Word,
        kind: Kind::Corruption { severity: "rate" },
        description,
        params: PARAMS,
        example: "The quick brown fox is happy and fast.",
        example_params: r#"{"rate": 1.0, "wordnet": "/usr/share/wordnet"}"#,
        build,
    }
}

/// The WordNet transforms. Their examples read Debian's `/usr/share/wordnet`; where it is
/// missing, a listing marks the example "needs WordNet" ([`Descriptor::needs`]) instead of
/// showing its output.
pub(crate) static DESCRIPTORS: &[Descriptor] = &[
    wordnet(
        "synonym",
        "words replaced by a WordNet synonym (most frequent sense) with probability rate; the database is read from `wordnet`",
        |p| build(Relation::Synonym, false, p),
    ),
    wordnet(
        "antonym",
        "words replaced by a WordNet antonym with probability rate; the database is read from `wordnet`",
        |p| build(Relation::Antonym, false, p),
    ),
    wordnet(
        "synonym_insert",
        "a WordNet synonym inserted after words with probability rate; the database is read from `wordnet`",
        |p| build(Relation::Synonym, true, p),
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::word::test_rng;

    /// A WordNet-format fixture written for this test (three adjective synsets).
    fn fixture(dir: &Path) {
        let data = "  1 This is a fixture in WordNet 3.0's format, written for capkit.\n\
            00001740 00 a 02 happy 0 felicitous(p) 0 001 ! 00002000 a 0101 | enjoying\n\
            00002000 00 a 01 unhappy 0 001 ! 00001740 a 0101 | not happy\n\
            00003000 00 a 03 fast 0 quick 0 speedy 0 000 | moving quickly\n";
        let index = "  1 fixture\n\
            fast a 1 0 1 0 00003000\n\
            felicitous a 1 0 1 0 00001740\n\
            happy a 1 1 ! 1 0 00001740\n\
            quick a 1 0 1 0 00003000\n\
            unhappy a 1 1 ! 1 0 00002000\n";
        std::fs::write(dir.join("data.adj"), data).unwrap();
        std::fs::write(dir.join("index.adj"), index).unwrap();
    }

    #[test]
    fn synonyms_and_antonyms_from_a_database_directory() {
        // Removed when dropped, even when an assertion fails.
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        fixture(dir);
        let all = Probability::new(1.0);
        let syn = WordNet::load(dir, Relation::Synonym, "adj").unwrap();
        let out = syn.apply("Happy and FAST, quick.", all, false, &mut test_rng(1));
        assert!(out.starts_with("Felicitous and "), "{out}");
        assert!(!out.contains("FAST,") && !out.contains(" quick."), "{out}");
        assert_eq!(
            syn.apply("so happy", all, true, &mut test_rng(1)),
            "so happy felicitous"
        );
        let ant = WordNet::load(dir, Relation::Antonym, "adj").unwrap();
        assert_eq!(
            ant.apply("happy, Unhappy, fast", all, false, &mut test_rng(1)),
            "unhappy, Happy, fast"
        );
        let err = WordNet::load(dir, Relation::Synonym, "noun").unwrap_err();
        assert!(err.contains("index.noun: cannot read") || err.contains("data.noun: cannot read"));
        std::fs::write(dir.join("data.adj"), "00001740 00 a zz happy 0 000 |\n").unwrap();
        let err = WordNet::load(dir, Relation::Synonym, "adj").unwrap_err();
        assert_eq!(
            err,
            "data.adj:1: expected the word count (hexadecimal) in field 4"
        );
    }
}
