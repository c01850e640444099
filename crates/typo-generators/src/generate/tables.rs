//! Language-table generators (Needs = language): `gi gr vs hr hs cm cns ons`.
//!
//! Each table is indexed once when the registry is built (homoglyphs by character, word groups
//! by an Aho-Corasick automaton over every member, numerals as a sorted key list), so a call does
//! work proportional to what occurs in the input, not to the size of the table.

#[cfg(test)]
use std::collections::HashSet;
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use foldhash::fast::FixedState;

use super::rules::insert_everywhere;
use super::{CharMap, boundaries, push3, replace_all};
use crate::Variant;

/// A grapheme or vowel list, plus (when every entry is one character) the sorted unique
/// characters for the sorted-emission fast paths.
pub(crate) struct Symbols {
    list: Vec<String>,
    chars: Option<Vec<char>>,
}

impl Symbols {
    pub(crate) fn new(list: &[String]) -> Self {
        let chars: Option<Vec<char>> = list
            .iter()
            .map(|g| {
                let mut it = g.chars();
                match (it.next(), it.next()) {
                    (Some(c), None) => Some(c),
                    _ => None,
                }
            })
            .collect();
        let chars = chars.map(|mut c| {
            c.sort_unstable();
            c.dedup();
            c
        });
        Symbols {
            list: list.to_vec(),
            chars,
        }
    }

    /// The entries in table order.
    pub(crate) fn list(&self) -> &[String] {
        &self.list
    }

    /// Sorted unique characters, when every entry is exactly one.
    pub(crate) fn chars(&self) -> Option<&[char]> {
        self.chars.as_deref()
    }

    /// The number of entries and the longest, in bytes (for output estimates).
    pub(crate) fn sizes(&self) -> (u64, u64) {
        let longest = self.list.iter().map(String::len).max().unwrap_or(0);
        (self.list.len() as u64, longest as u64)
    }
}

/// `gi`: each grapheme inserted (whole) in every gap.
pub(crate) fn grapheme_insertion(t: &str, graphemes: &[String], out: &mut Vec<Variant>) {
    out.reserve(graphemes.len() * (t.len() + 1));
    for g in graphemes {
        insert_everywhere(t, g, out);
    }
}

/// `gr`: each rune replaced by each grapheme.
pub(crate) fn grapheme_replacement(t: &str, graphemes: &[String], out: &mut Vec<Variant>) {
    let b = boundaries(t);
    out.reserve(graphemes.len() * b.len());
    for w in b.windows(2) {
        let (head, tail) = (&t[..w[0]], &t[w[1]..]);
        for g in graphemes {
            push3(out, head, g, tail);
        }
    }
}

/// `vs` over single-character vowels (`set` sorted, unique), emitted sorted: each single swap
/// is a one-character substitution; the systematic swaps (every occurrence at once) are few and
/// placed by binary search (with one occurrence they coincide with a single swap).
pub(crate) fn vowel_swapping_chars(t: &str, set: &[char], out: &mut Vec<Variant>) {
    super::ordered::substitute_chars(
        t,
        |c| {
            if set.binary_search(&c).is_ok() {
                set
            } else {
                &[]
            }
        },
        out,
    );
    let mut buf = [0u8; 4];
    let mut to_buf = [0u8; 4];
    for &from in set {
        let from_s = &*from.encode_utf8(&mut buf);
        if t.matches(from_s).nth(1).is_none() {
            // Zero occurrences: nothing to swap; one: already emitted as a single swap.
            continue;
        }
        for &to in set.iter().filter(|&&to| to != from) {
            let v = replace_all(t, from_s, to.encode_utf8(&mut to_buf));
            super::ordered::insert_sorted(out, v, t);
        }
    }
}

/// `vs`: each occurrence of each vowel replaced by each other vowel alone, then every occurrence
/// at once. Occurrences are non-overlapping substring matches, left to right.
pub(crate) fn vowel_swapping(t: &str, vowels: &[String], out: &mut Vec<Variant>) {
    for from in vowels.iter().filter(|v| !v.is_empty()) {
        let mut any = false;
        for (at, _) in t.match_indices(from.as_str()) {
            any = true;
            let (head, tail) = (&t[..at], &t[at + from.len()..]);
            for to in vowels.iter().filter(|to| *to != from) {
                push3(out, head, to, tail);
            }
        }
        if any {
            for to in vowels.iter().filter(|to| *to != from) {
                out.push(replace_all(t, from, to));
            }
        }
    }
}

/// The homoglyph table indexed by its one-character keys (longer keys are never looked up).
pub(crate) struct Homoglyphs {
    /// In table order, for the reference implementation in tests.
    #[cfg(test)]
    by_char: CharMap<Vec<String>>,
    /// The same, prepared for sorted emission.
    prepared: CharMap<super::ordered::Replacements>,
    /// The most look-alikes of one character, and the longest look-alike in bytes.
    sizes: (u64, u64),
}

impl Homoglyphs {
    pub(crate) fn new(table: &BTreeMap<String, Vec<String>>) -> Self {
        let mut by_char = CharMap::new();
        for (key, values) in table {
            let mut chars = key.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                by_char
                    .get_or_insert_with(c, Vec::new)
                    .extend(values.iter().cloned());
            }
        }
        let mut sizes = (0u64, 0u64);
        for (key, values) in table {
            if key.chars().count() == 1 {
                let longest = values.iter().map(String::len).max().unwrap_or(0) as u64;
                sizes = (sizes.0.max(values.len() as u64), sizes.1.max(longest));
            }
        }
        let mut prepared = CharMap::new();
        for key in table.keys() {
            let mut chars = key.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                let values = by_char.get(c).map_or(&[][..], Vec::as_slice);
                prepared.get_or_insert_with(c, || super::ordered::Replacements::new(c, values));
            }
        }
        Homoglyphs {
            #[cfg(test)]
            by_char,
            prepared,
            sizes,
        }
    }

    /// The most look-alikes of one character (keys repeated in the table counted once each, so
    /// an upper bound), and the longest look-alike in bytes.
    pub(crate) fn sizes(&self) -> (u64, u64) {
        self.sizes
    }

    /// `c`'s look-alikes prepared for sorted emission.
    pub(crate) fn prepared(&self, c: char) -> Option<&super::ordered::Replacements> {
        self.prepared.get(c)
    }
}

impl Homoglyphs {
    /// The look-alikes of `c`, in table order.
    #[cfg(test)]
    pub(crate) fn values(&self, c: char) -> &[String] {
        self.by_char.get(c).map_or(&[], Vec::as_slice)
    }
}

/// `hr`: each rune replaced by each of its look-alikes, in list order (the reference; the task
/// runs [`ordered::substitute_strs`](super::ordered::substitute_strs), which emits the same set
/// already sorted).
#[cfg(test)]
pub(crate) fn homoglyph_swapping(t: &str, table: &Homoglyphs, out: &mut Vec<Variant>) {
    for (i, c) in t.char_indices() {
        if let Some(values) = table.by_char.get(c) {
            let (head, tail) = (&t[..i], &t[i + c.len_utf8()..]);
            for v in values {
                push3(out, head, v, tail);
            }
        }
    }
}

/// Word groups (`hs`, `cm`) indexed for "which members occur in this input".
pub(crate) struct WordSets {
    /// Distinct words; ids index this.
    words: Vec<String>,
    /// Each group as word ids, in member order.
    groups: Vec<Vec<u32>>,
    /// `shadowers[g][m]`: the members of group `g` longer than member `m` that contain it.
    shadowers: Vec<Vec<Vec<u32>>>,
    /// Word id → the groups it is a member of (sorted, unique).
    word_groups: Vec<Vec<u32>>,
    /// Finds every occurrence of every non-empty word, overlaps included.
    automaton: Option<AhoCorasick>,
    /// Automaton pattern id → word id.
    pattern_word: Vec<u32>,
    /// The id of `""`, which occurs in every input, if some group has it.
    empty_word: Option<u32>,
    /// The longest word, in bytes.
    longest: u64,
    /// The shortest non-empty word, in bytes (`usize::MAX` when there is none): no such word
    /// occurs in a shorter input.
    shortest: usize,
    /// The words' starts: see [`WordSets::may_occur`].
    starts: Starts,
    /// Each non-empty word's own finished set (the input *is* the word), computed on first use:
    /// see [`WordSets::set_of_word`].
    by_word: OnceLock<HashMap<Box<str>, Box<[Variant]>, FixedState>>,
}

impl WordSets {
    pub(crate) fn new(groups: &[Vec<String>]) -> Self {
        let mut ids: HashMap<&str, u32> = HashMap::new();
        let mut words: Vec<String> = Vec::new();
        let mut word_groups: Vec<Vec<u32>> = Vec::new();
        let mut indexed = Vec::with_capacity(groups.len());
        for (g, group) in groups.iter().enumerate() {
            let g = u32::try_from(g).unwrap_or(u32::MAX);
            let mut members = Vec::with_capacity(group.len());
            for w in group {
                let id = *ids.entry(w.as_str()).or_insert_with(|| {
                    words.push(w.clone());
                    word_groups.push(Vec::new());
                    u32::try_from(words.len() - 1).unwrap_or(u32::MAX)
                });
                members.push(id);
                if let Some(list) = word_groups.get_mut(id as usize)
                    && list.last() != Some(&g)
                {
                    list.push(g);
                }
            }
            indexed.push(members);
        }
        let empty_word = ids.get("").copied();
        let word = |id: u32| words.get(id as usize).map_or("", String::as_str);
        let shadowers = indexed
            .iter()
            .map(|members: &Vec<u32>| {
                members
                    .iter()
                    .map(|&w| {
                        let inner = word(w);
                        members
                            .iter()
                            .copied()
                            .filter(|&o| word(o).len() > inner.len() && word(o).contains(inner))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let (patterns, pattern_word): (Vec<&str>, Vec<u32>) = words
            .iter()
            .enumerate()
            .filter(|(_, w)| !w.is_empty())
            .map(|(id, w)| (w.as_str(), u32::try_from(id).unwrap_or(u32::MAX)))
            .unzip();
        // A build failure (only possible for absurd table sizes) degrades to "no word occurs".
        let automaton = AhoCorasick::new(&patterns).ok();
        let longest = words.iter().map(String::len).max().unwrap_or(0) as u64;
        let shortest = patterns.iter().map(|w| w.len()).min().unwrap_or(usize::MAX);
        let starts = Starts::new(&patterns, shortest);
        WordSets {
            longest,
            shortest,
            starts,
            words,
            groups: indexed,
            shadowers,
            word_groups,
            automaton,
            pattern_word,
            empty_word,
            by_word: OnceLock::new(),
        }
    }

    /// Whether some non-empty word may occur in `t` (`false`: certainly none does): `t` is long
    /// enough, and one of its windows of [`Starts`]' width is a word's start. A word occurring at
    /// byte `p` puts its own start at `p`, so no occurrence is ever missed; most words of a text
    /// are ruled out by a few table lookups, without running the automaton.
    pub(crate) fn may_occur(&self, t: &str) -> bool {
        t.len() >= self.shortest && self.starts.any_in(t.as_bytes())
    }

    /// The finished set of `t` when it is known without a run: empty when no word can occur in
    /// `t` ([`WordSets::may_occur`]; never when a group holds `""`, which occurs everywhere), a
    /// table word's own set ([`WordSets::set_of_word`]); `None` otherwise.
    pub(crate) fn known_set(&self, t: &str) -> Option<&[Variant]> {
        if self.empty_word.is_none() && !self.may_occur(t) {
            return Some(&[]);
        }
        self.set_of_word(t)
    }

    /// The finished set (sorted, unique, without `""` or the input) of an input that is exactly
    /// one of the table's words, or `None` for any other input.
    ///
    /// A text's words are what the transform catalogue feeds `hs` and `cm`, one word at a time,
    /// and a table word is the input that has a set: answering it from an index built once (the
    /// table's words run through [`swap_word_sets`] on the first call, a few milliseconds) makes
    /// it one hash lookup instead of an automaton run, a sort and a string per variant. The sets
    /// are the generator's own output, so nothing an index answers differs from a run.
    pub(crate) fn set_of_word(&self, t: &str) -> Option<&[Variant]> {
        // Most of a text's words are no table word by their length alone.
        if t.len() < self.shortest || t.len() as u64 > self.longest {
            return None;
        }
        self.by_word
            .get_or_init(|| {
                self.words
                    .iter()
                    .filter(|w| !w.is_empty())
                    .map(|w| {
                        let mut set = Vec::new();
                        swap_word_sets(w, self, &mut set);
                        super::finish_in_place(&mut set, w);
                        (w.as_str().into(), set.into_boxed_slice())
                    })
                    .collect()
            })
            .get(t)
            .map(|set| &**set)
    }

    fn word(&self, id: u32) -> &str {
        self.words.get(id as usize).map_or("", String::as_str)
    }

    /// An upper bound of the candidates [`swap_word_sets`] makes for `t`: every member of every
    /// group of every word that occurs (one scan, no string built).
    pub(crate) fn candidates(&self, t: &str) -> u64 {
        let mut occurring: Vec<u32> = Vec::new();
        if let Some(ac) = &self.automaton {
            for m in ac.find_overlapping_iter(t) {
                occurring.extend(self.pattern_word.get(m.pattern().as_usize()));
            }
        }
        occurring.extend(self.empty_word);
        occurring.sort_unstable();
        occurring.dedup();
        occurring
            .iter()
            .flat_map(|&w| self.word_groups.get(w as usize).into_iter().flatten())
            .map(|&g| self.groups.get(g as usize).map_or(0, Vec::len) as u64)
            .sum()
    }

    /// The longest word, in bytes.
    pub(crate) fn longest(&self) -> u64 {
        self.longest
    }
}

/// The first `width` bytes of every word (`width` = the shortest word's length, at most 3), as
/// bits of a 65,536-bit table indexed by a hash of those bytes: a superset test (collisions only
/// ever answer "maybe").
struct Starts {
    width: usize,
    bits: Box<[u64]>,
}

impl Starts {
    const WORDS: usize = 1 << 10;

    fn new(words: &[&str], shortest: usize) -> Starts {
        let width = shortest.clamp(1, 3);
        let mut bits = vec![0u64; Self::WORDS].into_boxed_slice();
        for w in words {
            if let Some(start) = w.as_bytes().get(..width) {
                let h = Self::hash(start);
                if let Some(slot) = bits.get_mut(h >> 6) {
                    *slot |= 1 << (h & 63);
                }
            }
        }
        Starts { width, bits }
    }

    /// 16 bits of a hash of up to 3 bytes.
    fn hash(bytes: &[u8]) -> usize {
        let x = bytes
            .iter()
            .enumerate()
            .fold(0u32, |x, (i, &b)| x | (u32::from(b) << (8 * i)));
        (x.wrapping_mul(0x9E37_79B1) >> 16) as usize
    }

    /// Whether some window of `t` of this width has its bit set.
    fn any_in(&self, t: &[u8]) -> bool {
        t.windows(self.width).any(|w| {
            let h = Self::hash(w);
            self.bits
                .get(h >> 6)
                .is_some_and(|b| (b >> (h & 63)) & 1 != 0)
        })
    }
}

/// `hs` / `cm` (`swapWordSets`): in each group, each member that occurs in the input and is not
/// shadowed (contained in a longer member that also occurs) is replaced everywhere by each other
/// member.
pub(crate) fn swap_word_sets(t: &str, sets: &WordSets, out: &mut Vec<Variant>) {
    if sets.empty_word.is_none() && !sets.may_occur(t) {
        // Nothing occurs (the common case for a text's words).
        return;
    }
    let mut occurring: Vec<u32> = Vec::new();
    if let Some(ac) = &sets.automaton {
        for m in ac.find_overlapping_iter(t) {
            if let Some(&w) = sets.pattern_word.get(m.pattern().as_usize()) {
                occurring.push(w);
            }
        }
    }
    occurring.extend(sets.empty_word);
    occurring.sort_unstable();
    occurring.dedup();
    if occurring.is_empty() {
        return;
    }
    let mut groups: Vec<u32> = occurring
        .iter()
        .flat_map(|&w| {
            sets.word_groups
                .get(w as usize)
                .into_iter()
                .flatten()
                .copied()
        })
        .collect();
    groups.sort_unstable();
    groups.dedup();
    let occurs = |w: u32| occurring.binary_search(&w).is_ok();
    // Every candidate is `ReplaceAll(t, w, x)`, so it is decided by the pair `(w, x)`; groups
    // overlap a lot (every member of a clique has its own group), so pairs are deduplicated
    // before any string is built.
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for g in groups {
        let (Some(members), Some(shadowers)) =
            (sets.groups.get(g as usize), sets.shadowers.get(g as usize))
        else {
            continue;
        };
        for (&w, shadows) in members.iter().zip(shadowers) {
            if !occurs(w) || shadows.iter().any(|&o| occurs(o)) {
                continue;
            }
            pairs.extend(members.iter().filter(|&&x| x != w).map(|&x| (w, x)));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    out.reserve(pairs.len());
    for (w, x) in pairs {
        out.push(replace_all(t, sets.word(w), sets.word(x)));
    }
}

/// One position of the numeral table (`cns`: 0, `ons`: 1) as `(key, value)` pairs with both
/// sides non-empty, keys in bytewise order, plus every key and value prepared for the walk (one
/// automaton), so a call finds the pairs that can take part in one pass (most names have none).
pub(crate) struct Numerals {
    pairs: Vec<(String, String)>,
    patterns: super::numeral_walk::Patterns,
    /// See [`Numerals::growth`].
    growth: u64,
}

impl Numerals {
    pub(crate) fn new(table: &BTreeMap<String, Vec<String>>, position: usize) -> Self {
        let pairs: Vec<(String, String)> = table
            .iter()
            .filter_map(|(k, list)| Some((k.clone(), list.get(position)?.clone())))
            .filter(|(k, v)| !k.is_empty() && !v.is_empty())
            .collect();
        let patterns = super::numeral_walk::Patterns::new(&pairs);
        let growth = pairs
            .iter()
            .flat_map(|(k, v)| [(k, v), (v, k)])
            .map(|(from, to)| {
                let from = (from.len() as u64).max(1);
                crate::json::escaped_str_len(to).div_ceil(from)
            })
            .max()
            .unwrap_or(1)
            .max(1);
        Numerals {
            pairs,
            patterns,
            growth,
        }
    }

    /// `occurs[2i]`: key `i` is a substring of `t`; `occurs[2i + 1]`: value `i` is.
    fn occurring(&self, t: &str) -> Vec<bool> {
        self.patterns.occurring(t, self.pairs.len() * 2)
    }

    /// An upper bound of the variants the walk makes for `t`: with `k` numerals taking part in
    /// a direction, a path is an ordered choice of distinct numerals, so there are at most
    /// `Σ_{j=1..k} k!/(k-j)!` strings, and never more than
    /// [`NUMERAL_WALK_LIMIT`](crate::NUMERAL_WALK_LIMIT) in all.
    pub(crate) fn variants_bound(&self, t: &str) -> u64 {
        let occurs = self.occurring(t);
        let count = |side: usize| {
            (0..self.pairs.len())
                .filter(|&i| occurs[2 * i + side])
                .count()
        };
        let paths = |k: usize| {
            let (mut total, mut product) = (0u64, 1u64);
            for j in 0..k {
                product = product.saturating_mul((k - j) as u64);
                total = total.saturating_add(product);
            }
            total
        };
        let limit = super::NUMERAL_WALK_LIMIT as u64;
        paths(count(0)).saturating_add(paths(count(1))).min(limit)
    }

    /// How many times longer a numeral's replacement can be, JSON-escaped, than the text it
    /// replaces (either way), rounded up: a bound on how much the walk lengthens a name's JSON,
    /// for tables (like the shipped ones) where a replacement never creates another numeral of
    /// its direction.
    pub(crate) fn growth(&self) -> u64 {
        self.growth
    }
}

/// `numeralSwap`: a walk that keeps rewriting, value → key (forward) then key → value (reverse),
/// each key at most once per path, only keys whose pattern occurs in the original input, with
/// one `seen` set across both walks. The exploration order is normative (it decides what `seen`
/// prunes), so keys are visited in bytewise order and the forward walk comes first.
pub(crate) fn numeral_swap(t: &str, numerals: &Numerals, out: &mut Vec<Variant>) {
    let pairs = &numerals.pairs;
    let occurs = numerals.occurring(t);
    if !occurs.contains(&true) {
        return;
    }
    // Forward replaces a value, so the value must occur; reverse replaces a key.
    let allow = |rev: bool| -> Vec<usize> {
        (0..pairs.len())
            .filter(|&i| occurs[2 * i + usize::from(!rev)])
            .collect()
    };
    super::numeral_walk::walk_both(
        t,
        pairs,
        &numerals.patterns,
        [allow(false), allow(true)],
        out,
    );
}

/// The walk as first written (every edge a whole-string `replace`): the reference the fast walk
/// is checked against.
#[cfg(test)]
pub(crate) fn numeral_swap_reference(t: &str, numerals: &Numerals, out: &mut Vec<Variant>) {
    let pairs = &numerals.pairs;
    let occurs = numerals.occurring(t);
    if !occurs.contains(&true) {
        return;
    }
    let mut seen: HashSet<String> = HashSet::from([t.to_owned()]);
    let mut used = vec![false; pairs.len()];
    for rev in [false, true] {
        let allow: Vec<usize> = (0..pairs.len())
            .filter(|&i| occurs[2 * i + usize::from(!rev)])
            .collect();
        walk(t, rev, pairs, &allow, &mut used, &mut seen, out);
    }
}

#[cfg(test)]
use super::NUMERAL_WALK_LIMIT;

#[cfg(test)]
fn walk(
    s: &str,
    rev: bool,
    pairs: &[(String, String)],
    allow: &[usize],
    used: &mut [bool],
    seen: &mut HashSet<String>,
    out: &mut Vec<Variant>,
) {
    for &num in allow {
        if seen.len() > NUMERAL_WALK_LIMIT {
            return;
        }
        if used[num] {
            continue;
        }
        let (k, v) = &pairs[num];
        let (from, to) = if rev { (k, v) } else { (v, k) };
        if from.is_empty() || to.contains(from.as_str()) {
            continue;
        }
        let next = s.replace(from.as_str(), to);
        if next == s || seen.contains(&next) {
            continue;
        }
        seen.insert(next.clone());
        out.push(Variant::from(next.as_str()));
        used[num] = true;
        walk(&next, rev, pairs, allow, used, seen, out);
        used[num] = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(out: Vec<Variant>, t: &str) -> Vec<String> {
        crate::generate::finish(out, t)
            .into_iter()
            .map(|v| v.to_string())
            .collect()
    }

    fn az() -> Vec<String> {
        ('a'..='z').map(String::from).collect()
    }

    #[test]
    fn each_words_indexed_set_is_the_run_on_that_word() {
        let data = crate::Data::english();
        for groups in [&data.homophones, &data.misspellings] {
            let sets = WordSets::new(groups);
            for word in groups.iter().flatten() {
                let mut run = Vec::new();
                swap_word_sets(word, &sets, &mut run);
                let run = crate::generate::finish(run, word);
                assert!(!run.is_empty(), "{word}: a table word has a set");
                assert_eq!(sets.set_of_word(word), Some(run.as_slice()), "{word}");
            }
            // Anything else is not indexed, even when a word occurs in it.
            assert_eq!(sets.set_of_word(&format!("{}.", groups[0][0])), None);
            assert_eq!(sets.set_of_word(""), None);
        }
        // A group holding "" (it occurs in every input) is indexed like any other.
        let sets = WordSets::new(&[vec![String::new(), "ab".into()]]);
        let mut run = Vec::new();
        swap_word_sets("ab", &sets, &mut run);
        let run = crate::generate::finish(run, "ab");
        assert_eq!(sets.set_of_word("ab"), Some(run.as_slice()));
    }

    #[test]
    fn graphemes() {
        let mut out = Vec::new();
        grapheme_insertion("ab", &az(), &mut out);
        assert_eq!(strings(out, "ab").len(), 76);
        let mut out = Vec::new();
        grapheme_replacement("a", &az(), &mut out);
        assert_eq!(strings(out, "a").len(), 25);
    }

    #[test]
    fn homoglyph_fast_path_matches_the_reference() {
        let mut table = BTreeMap::new();
        table.insert(
            "b".to_owned(),
            ["d", "lb", "b\u{314}\"", "ib", "ʙ", "d", ""]
                .map(String::from)
                .to_vec(),
        );
        table.insert(
            "o".to_owned(),
            ["0", "ο", "o", "oo"].map(String::from).to_vec(),
        );
        table.insert("rn".to_owned(), vec!["m".to_owned()]);
        let h = Homoglyphs::new(&table);
        for t in ["", "b", "o", "bob.com", "boo", "rn", "ábó"] {
            let mut raw = Vec::new();
            homoglyph_swapping(t, &h, &mut raw);
            let mut fast = Vec::new();
            super::super::ordered::substitute_strs(t, |c| h.values(c), &mut fast);
            assert_eq!(fast, crate::generate::finish(raw.clone(), t), "{t:?}");
            let mut prepared = Vec::new();
            super::super::ordered::substitute_prepared(t, |c| h.prepared(c), &mut prepared);
            assert_eq!(prepared, fast, "{t:?}");
        }
    }

    #[test]
    fn vowel_fast_path_matches_the_reference() {
        let v: Vec<String> = ["a", "e", "i", "o", "u"].map(String::from).to_vec();
        let set = Symbols::new(&v);
        for t in [
            "",
            "a",
            "aa",
            "google",
            "banana.ie",
            "école",
            "queue",
            "xyz",
            "aeiou",
        ] {
            let mut raw = Vec::new();
            vowel_swapping(t, &v, &mut raw);
            let mut fast = Vec::new();
            vowel_swapping_chars(t, set.chars().unwrap(), &mut fast);
            assert_eq!(fast, crate::generate::finish(raw, t), "{t:?}");
        }
    }

    #[test]
    fn vowels() {
        let v: Vec<String> = ["a", "e", "i", "o", "u"].map(String::from).to_vec();
        let mut out = Vec::new();
        vowel_swapping("a.b", &v, &mut out);
        assert_eq!(strings(out, "a.b"), ["e.b", "i.b", "o.b", "u.b"]);
        let mut out = Vec::new();
        vowel_swapping("école", &v, &mut out);
        assert_eq!(
            strings(out, "école"),
            [
                "écale", "écele", "écile", "écola", "écoli", "écolo", "écolu", "écule"
            ]
        );
    }

    #[test]
    fn word_sets_shadowing() {
        let groups = vec![
            vec!["i".to_owned(), "aye".to_owned(), "eye".to_owned()],
            vec![".".to_owned(), "dot".to_owned()],
        ];
        let sets = WordSets::new(&groups);
        let mut out = Vec::new();
        swap_word_sets("i.io", &sets, &mut out);
        assert_eq!(strings(out, "i.io"), ["aye.ayeo", "eye.eyeo", "idotio"]);
        // "eye" occurs, so "e"-free "i"... here "aye" shadows nothing; "eye" contains no "i".
        let mut out = Vec::new();
        swap_word_sets("eye", &sets, &mut out);
        assert_eq!(strings(out, "eye"), ["aye", "i"]);
    }

    #[test]
    fn empty_word_occurs_everywhere() {
        let sets = WordSets::new(&[vec![String::new(), "x".to_owned()]]);
        let mut out = Vec::new();
        swap_word_sets("ab", &sets, &mut out);
        assert_eq!(strings(out, "ab"), ["xaxbx"]);
    }

    #[test]
    fn numeral_walk_is_bounded() {
        let data = crate::Data::english();
        let n = Numerals::new(&data.numerals, 0);
        let words: String = data.numerals.values().map(|v| v[0].as_str()).collect();
        let mut out = Vec::new();
        numeral_swap(&words, &n, &mut out);
        assert!(out.len() <= NUMERAL_WALK_LIMIT, "{}", out.len());
        assert!(out.len() >= NUMERAL_WALK_LIMIT / 2, "{}", out.len());
        let mut again = Vec::new();
        numeral_swap(&words, &n, &mut again);
        assert_eq!(out, again);
    }

    /// Numerals in upstream's clique shape: every word of a line maps to the others, sorted
    /// (`1 → [first, one]`, `one → [1, first]`, ...).
    fn clique_table(lines: &[[&str; 3]]) -> BTreeMap<String, Vec<String>> {
        let mut table = BTreeMap::new();
        for line in lines {
            for (i, k) in line.iter().enumerate() {
                let mut partners: Vec<String> = line
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, w)| (*w).to_owned())
                    .collect();
                partners.sort();
                table.insert((*k).to_owned(), partners);
            }
        }
        table
    }

    #[test]
    fn numerals_clique_terminates() {
        let table = clique_table(&[["1", "one", "first"], ["2", "two", "second"]]);
        for p in [0, 1] {
            let n = Numerals::new(&table, p);
            for t in ["shop1", "one", "first", "1and2"] {
                let mut out = Vec::new();
                numeral_swap(t, &n, &mut out);
                let raw = out.len();
                let set = strings(out, t);
                assert!(!set.is_empty(), "{t} {p}");
                assert_eq!(set.len(), raw, "{t}: the walk repeats itself");
            }
        }
    }

    /// Inputs where replacements overlap, shadow and create one another.
    const WALK_INPUTS: [&str; 12] = [
        "",
        "shop1",
        "one1two2three3",
        "10110111",
        "eleventhousand",
        "onetwothreefourfivesixseveneightnineten",
        "12-first.second.1000000000",
        "zerozero00oneone",
        "hundredthousandmillionbillion",
        "1a10a100a1000a1000000",
        "thirteenthirteenth13th",
        "0123456789101112131415161718192021",
    ];

    /// The fast walk gives the reference walk's variants in the reference's order.
    #[test]
    fn numeral_walk_matches_the_reference() {
        let data = crate::Data::english();
        for p in [0, 1] {
            let n = Numerals::new(&data.numerals, p);
            for t in WALK_INPUTS {
                let (mut fast, mut slow) = (Vec::new(), Vec::new());
                numeral_swap(t, &n, &mut fast);
                numeral_swap_reference(t, &n, &mut slow);
                assert_eq!(fast, slow, "{t:?} position {p}");
            }
        }
    }

    /// Found by the `generators` fuzz target: a 31-byte name with many overlapping digit keys
    /// walks 5,631 variants (336 KB; 123 ms in the first fast walk, which led to a cap of 4,096
    /// that changed such answers). Under the cap of 65,536 it walks them all, like upstream and
    /// the reference walk, in a few milliseconds.
    #[test]
    fn fuzz_found_numeral_walk_of_overlapping_digit_keys() {
        let data = crate::Data::english();
        for p in [0, 1] {
            let n = Numerals::new(&data.numerals, p);
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            numeral_swap("oi990126i92>58bookk401925111i2", &n, &mut fast);
            numeral_swap_reference("oi990126i92>58bookk401925111i2", &n, &mut slow);
            assert_eq!(fast.len(), 5_631, "position {p}");
            assert!(fast == slow, "position {p}");
        }
    }

    /// Found by the `generators` fuzz target: 123 bytes of mostly repeated digits, where every
    /// node has hundreds of overlapping numeral occurrences (138 ms of CPU before the walk's
    /// occurrences were grouped by counting sort and hashed modulo 2^64). Still the reference's
    /// variants, in order.
    #[test]
    fn fuzz_found_digit_runs_walk_like_the_reference() {
        let name = format!(
            "{}\u{49d}-\u{18}D\u{1}{}5349197369905425065%0000oE20X2i\u{4}ookk11111\u{14}",
            "1".repeat(32),
            "0".repeat(36)
        );
        let data = crate::Data::english();
        for p in [0, 1] {
            let n = Numerals::new(&data.numerals, p);
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            numeral_swap(&name, &n, &mut fast);
            numeral_swap_reference(&name, &n, &mut slow);
            assert_eq!(fast.len(), 16_383, "position {p}");
            assert!(fast == slow, "position {p}");
        }
    }

    /// At the variant limit the two walks stop at the same variant.
    #[test]
    fn numeral_walk_matches_the_reference_at_the_limit() {
        let data = crate::Data::english();
        let n = Numerals::new(&data.numerals, 0);
        let words: String = data.numerals.values().map(|v| v[0].as_str()).collect();
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        numeral_swap(&words, &n, &mut fast);
        numeral_swap_reference(&words, &n, &mut slow);
        assert_eq!(fast.len(), slow.len());
        assert!(fast == slow);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
        /// Random concatenations of numeral keys, words and filler: the same variants in the
        /// same order as the reference.
        #[test]
        fn numeral_walk_equals_the_reference(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "0", "1", "10", "11", "100", "2", "12", "20", "one", "ten", "eleven", "first",
                    "tenth", "hundred", "hundredth", "zero", "twelve", "twentieth", "-", ".", "a",
                    "on", "e", "th",
                ]),
                0..9,
            ),
            position in 0usize..2,
        ) {
            let t = parts.concat();
            let data = crate::Data::english();
            let n = Numerals::new(&data.numerals, position);
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            numeral_swap(&t, &n, &mut fast);
            numeral_swap_reference(&t, &n, &mut slow);
            proptest::prop_assert_eq!(fast, slow);
        }

        /// The same with clique-shaped numerals (upstream's own data shape: `1 → [first, one]`,
        /// `one → [1, first]`, ...), where several keys share a value and words contain others.
        #[test]
        fn clique_numeral_walk_equals_the_reference(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "1", "one", "first", "2", "two", "second", "10", "ten", "tenth", "0", "-",
                    "e", "on", "t",
                ]),
                0..9,
            ),
            position in 0usize..2,
        ) {
            let table = clique_table(&[
                ["1", "one", "first"],
                ["2", "two", "second"],
                ["10", "ten", "tenth"],
            ]);
            let t = parts.concat();
            let n = Numerals::new(&table, position);
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            numeral_swap(&t, &n, &mut fast);
            numeral_swap_reference(&t, &n, &mut slow);
            proptest::prop_assert_eq!(fast, slow);
        }
    }
}
