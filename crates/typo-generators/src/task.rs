//! [`Task`]: one typo generator as an exact task, and the catalogue of all 22.

use std::fmt;
use std::sync::Arc;

use crate::generate::{self, keys, tables};
use crate::{Needs, Variant};

/// A table of [`Data`](crate::Data) that a task reads; its name is the JSON field name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Table {
    /// `graphemes` (gi, gr).
    Graphemes,
    /// `vowels` (vs).
    Vowels,
    /// `homoglyphs` (hr).
    Homoglyphs,
    /// `homophones` (hs).
    Homophones,
    /// `misspellings` (cm).
    Misspellings,
    /// `numerals` (cns, ons).
    Numerals,
    /// `keyboard` (acs, aci, rar).
    Keyboard,
}

impl Table {
    /// The field name in the data JSON (`"homoglyphs"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Table::Graphemes => "graphemes",
            Table::Vowels => "vowels",
            Table::Homoglyphs => "homoglyphs",
            Table::Homophones => "homophones",
            Table::Misspellings => "misspellings",
            Table::Numerals => "numerals",
            Table::Keyboard => "keyboard",
        }
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Static facts about one task id, whether or not a registry has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskInfo {
    /// The short id (`"co"`, `"hr"`, ...).
    pub id: &'static str,
    /// The upstream title (`"Character Omission"`).
    pub title: &'static str,
    /// Rule or table.
    pub needs: Needs,
    /// The data table the task reads, if any (`sp`'s tables are built in, so `None`).
    pub table: Option<Table>,
}

const fn info(
    id: &'static str,
    title: &'static str,
    needs: Needs,
    table: Option<Table>,
) -> TaskInfo {
    TaskInfo {
        id,
        title,
        needs,
        table,
    }
}

/// All 22 task ids, sorted by id.
pub const CATALOG: [TaskInfo; 22] = {
    use Needs::{Keyboard as K, Language as L, Nothing as N};
    [
        info(
            "aci",
            "Adjacent Character Insertion",
            K,
            Some(Table::Keyboard),
        ),
        info(
            "acs",
            "Adjacent Character Substitution",
            K,
            Some(Table::Keyboard),
        ),
        info("bf", "Bit Flipping", N, None),
        info("cm", "Common Misspellings", L, Some(Table::Misspellings)),
        info("cns", "Cardinal Substitution", L, Some(Table::Numerals)),
        info("co", "Character Omission", N, None),
        info("cr", "Character Repetition", N, None),
        info("cs", "Character Swapping", N, None),
        info("dhs", "Dot Hyphen Substitution", N, None),
        info("di", "Dot Insertion", N, None),
        info("do", "Dot Omission", N, None),
        info("gi", "Grapheme Insertion", L, Some(Table::Graphemes)),
        info("gr", "Grapheme Replacement", L, Some(Table::Graphemes)),
        info("hi", "Hyphen Insertion", N, None),
        info("ho", "Hyphen Omission", N, None),
        info("hr", "Homoglyph Replacement", L, Some(Table::Homoglyphs)),
        info("hs", "Homophone Substitution", L, Some(Table::Homophones)),
        info("ons", "Ordinal Substitution", L, Some(Table::Numerals)),
        info(
            "rar",
            "Repetition Adjacent Replacement",
            K,
            Some(Table::Keyboard),
        ),
        info("sp", "Singular Pluralise", L, None),
        info("tos", "Token Order Swap", N, None),
        info("vs", "Vowel Swapping", L, Some(Table::Vowels)),
    ]
};

/// The catalogue entry of `id`, if it is one of the 22.
pub fn task_info(id: &str) -> Option<&'static TaskInfo> {
    CATALOG.iter().find(|t| t.id == id)
}

/// One typo generator as an exact task: a total, deterministic map from a name to a set of names.
///
/// Get tasks from a [`Registry`](crate::Registry); a task holds (shared, immutable) the tables it
/// was registered with, so it is cheap to clone and `Send + Sync`.
///
/// ```
/// use typo_generators::{Data, Registry};
/// let registry = Registry::new(&Data::default());
/// let co = registry.get("co").unwrap();
/// let got: Vec<String> = co.expect("google").iter().map(|v| v.to_string()).collect();
/// assert_eq!(got, ["gogle", "googe", "googl", "goole", "oogle"]);
/// ```
#[derive(Clone)]
pub struct Task {
    /// The short id (`"co"`).
    pub id: &'static str,
    /// The upstream title (`"Character Omission"`).
    pub title: &'static str,
    /// Rule (`Nothing`) or table (`Language`, `Keyboard`).
    pub needs: Needs,
    pub(crate) generator: Generator,
}

/// The generator behind a task, with its prepared (indexed) table.
#[derive(Clone)]
pub(crate) enum Generator {
    Co,
    Cs,
    Cr,
    Hi,
    Ho,
    Di,
    Do,
    Dhs,
    Tos,
    Bf,
    Sp,
    Gi(Arc<tables::Symbols>),
    Gr(Arc<tables::Symbols>),
    Vs(Arc<tables::Symbols>),
    Hr(Arc<tables::Homoglyphs>),
    Hs(Arc<tables::WordSets>),
    Cm(Arc<tables::WordSets>),
    Cns(Arc<tables::Numerals>),
    Ons(Arc<tables::Numerals>),
    Acs(Arc<keys::Neighbours>),
    Aci(Arc<keys::Neighbours>),
    Rar(Arc<keys::Neighbours>),
}

impl Task {
    pub(crate) fn new(info: &TaskInfo, generator: Generator) -> Task {
        Task {
            id: info.id,
            title: info.title,
            needs: info.needs,
            generator,
        }
    }

    /// The oracle: every name this task derives from `input`, sorted bytewise, without
    /// duplicates, never `""` and never `input` itself. An empty `Vec` is the empty set.
    pub fn expect(&self, input: &str) -> Vec<Variant> {
        let mut out = Vec::new();
        self.expect_into(input, &mut out);
        out
    }

    /// [`expect`](Task::expect) into `out` (cleared first): a caller asking for many sets
    /// reuses one buffer instead of allocating (and growing) one per set.
    ///
    /// ```
    /// use typo_generators::{Data, Registry};
    /// let registry = Registry::new(&Data::default());
    /// let mut set = Vec::new();
    /// for input in ["ab", "google"] {
    ///     registry.get("co").unwrap().expect_into(input, &mut set);
    ///     assert_eq!(set, registry.get("co").unwrap().expect(input));
    /// }
    /// ```
    pub fn expect_into(&self, input: &str, out: &mut Vec<Variant>) {
        use crate::generate::{inflect, ordered, rules};
        out.clear();
        // The high-volume generators emit their set already sorted and unique (see
        // `generate::ordered`); the rest push raw candidates and are finished here.
        let sorted = match &self.generator {
            Generator::Bf if input.is_ascii() => {
                ordered::bit_flips_ascii(input, out);
                true
            }
            Generator::Bf => {
                *out = rules::bit_flipping(input);
                false
            }
            Generator::Co => {
                ordered::deletions(input, out);
                true
            }
            Generator::Cs => {
                ordered::swaps(input, out);
                true
            }
            Generator::Cr => {
                ordered::repetitions(input, out);
                true
            }
            Generator::Hi => {
                ordered::insert_chars_everywhere(input, &['-'], out);
                true
            }
            Generator::Di => {
                ordered::inner_dots(input, out);
                true
            }
            Generator::Gi(g) => match g.chars() {
                Some(set) => {
                    ordered::insert_chars_everywhere(input, set, out);
                    true
                }
                None => {
                    tables::grapheme_insertion(input, g.list(), out);
                    false
                }
            },
            Generator::Gr(g) => match g.chars() {
                Some(set) => {
                    ordered::substitute_chars(input, |_| set, out);
                    true
                }
                None => {
                    tables::grapheme_replacement(input, g.list(), out);
                    false
                }
            },
            Generator::Vs(v) => match v.chars() {
                Some(set) => {
                    tables::vowel_swapping_chars(input, set, out);
                    true
                }
                None => {
                    tables::vowel_swapping(input, v.list(), out);
                    false
                }
            },
            Generator::Hr(h) => {
                ordered::substitute_prepared(input, |c| h.prepared(c), out);
                true
            }
            Generator::Acs(k) => {
                ordered::substitute_chars(input, |c| k.sorted_of(c), out);
                true
            }
            Generator::Aci(k) => {
                keys::adjacent_insertion_sorted(input, k, out);
                true
            }
            generator => {
                match generator {
                    Generator::Ho => rules::hyphen_omission(input, out),
                    Generator::Do => rules::dot_omission(input, out),
                    Generator::Dhs => rules::dot_hyphen_substitution(input, out),
                    Generator::Tos => rules::token_order_swap(input, out),
                    Generator::Sp => inflect::singular_pluralise(input, out),
                    Generator::Hs(w) | Generator::Cm(w) => match w.set_of_word(input) {
                        Some(set) => out.extend_from_slice(set),
                        None => tables::swap_word_sets(input, w, out),
                    },
                    Generator::Cns(n) | Generator::Ons(n) => tables::numeral_swap(input, n, out),
                    Generator::Rar(k) => keys::repetition_adjacent_replacement(input, k, out),
                    // Handled above.
                    Generator::Bf
                    | Generator::Co
                    | Generator::Cs
                    | Generator::Cr
                    | Generator::Hi
                    | Generator::Di
                    | Generator::Gi(_)
                    | Generator::Gr(_)
                    | Generator::Vs(_)
                    | Generator::Hr(_)
                    | Generator::Acs(_)
                    | Generator::Aci(_) => {}
                }
                false
            }
        };
        if sorted {
            debug_assert!(generate::is_finished(out, input), "{}: {input:?}", self.id);
        } else {
            generate::finish_in_place(out, input);
        }
    }

    /// The set of `input` when this task knows it without running its generator, borrowed:
    /// for `hs` and `cm` (the `homophones` and `misspellings` tables), an input that is one of
    /// the table's words (each word's set is computed once per registry, on the first call) and
    /// an input in which a quick scan finds that no table word can occur (the empty set). `None`
    /// for other inputs and every other task. When `Some`, it is exactly what
    /// [`expect`](Task::expect) returns for `input`, without a copy: a caller asking for the
    /// sets of a text's words one by one (the transform catalogue) does a lookup per word.
    ///
    /// ```
    /// use typo_generators::{Data, Registry};
    /// let registry = Registry::new(&Data::english());
    /// let cm = registry.get("cm").unwrap();
    /// let set = cm.precomputed("definitely").unwrap();
    /// assert_eq!(set, cm.expect("definitely").as_slice());
    /// assert_eq!(cm.precomputed("zq"), Some(&[][..])); // shorter than any table word
    /// assert!(cm.precomputed("definitely.").is_none()); // a word occurs: a run decides
    /// assert!(registry.get("co").unwrap().precomputed("definitely").is_none());
    /// ```
    pub fn precomputed(&self, input: &str) -> Option<&[Variant]> {
        match &self.generator {
            Generator::Hs(w) | Generator::Cm(w) => w.known_set(input),
            _ => None,
        }
    }

    /// This task's catalogue entry.
    pub fn info(&self) -> &'static TaskInfo {
        // Every Task is built from a catalogue entry, so the lookup always succeeds; the fallback
        // keeps this total anyway.
        task_info(self.id).unwrap_or(&CATALOG[0])
    }
}

impl fmt::Debug for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task")
            .field("id", &self.id)
            .field("title", &self.title)
            .field("needs", &self.needs)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_is_sorted_and_unique() {
        let ids: Vec<&str> = CATALOG.iter().map(|t| t.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids, sorted);
    }

    #[test]
    fn needs_match_the_spec() {
        let rules = ["bf", "co", "cr", "cs", "dhs", "di", "do", "hi", "ho", "tos"];
        for t in &CATALOG {
            let want = if rules.contains(&t.id) {
                Needs::Nothing
            } else if ["acs", "aci", "rar"].contains(&t.id) {
                Needs::Keyboard
            } else {
                Needs::Language
            };
            assert_eq!(t.needs, want, "{}", t.id);
            assert_eq!(
                t.table.is_none(),
                rules.contains(&t.id) || t.id == "sp",
                "{}",
                t.id
            );
        }
    }
}
