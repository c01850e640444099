//! The 22 generators, one module per family, and the oracle's normalisation.
//!
//! Generators push raw candidates (duplicates, `""` and the input allowed) into a `Vec`; the
//! oracle then sorts, deduplicates and drops `""` and the input once ([`finish`]). That is the
//! same set upstream's ordered collector `U` followed by `Task.Expect` yields, because `U` only
//! ever filters; the one generator whose dedup changes *what* is generated (the numeral walk)
//! keeps its own `seen` set.

pub(crate) mod inflect;
pub(crate) mod keys;
mod numeral_walk;
pub(crate) mod ordered;
pub(crate) mod rules;
pub(crate) mod tables;

use crate::Variant;

/// The most variants one numeral walk (`cns`, `ons`) produces. The walk is exponential in the
/// number of numeral words present (each can be rewritten or not, independently): 12 give 4,095
/// variants (the largest golden), 16 give 65,535, 32 would give 2^32, which upstream never
/// finishes. Stopping here is a deliberate, deterministic deviation (the walk order is fixed)
/// that only inputs walking more than 65,536 distinct strings can reach; every answer below it
/// is upstream's, whatever the number of numerals. At 253 bytes that keeps one name within
/// about 0.3 s and 80 MB (the worst cases per task are measured in `src/limits.rs`).
pub const NUMERAL_WALK_LIMIT: usize = 1 << 16;

/// Sorts bytewise, dedups, drops `""` and `input`.
#[cfg(test)]
pub(crate) fn finish(mut candidates: Vec<Variant>, input: &str) -> Vec<Variant> {
    finish_in_place(&mut candidates, input);
    candidates
}

/// [`finish`] in place.
pub(crate) fn finish_in_place(candidates: &mut Vec<Variant>, input: &str) {
    candidates.sort_unstable();
    candidates.dedup();
    candidates.retain(|c| !c.is_empty() && c.as_bytes() != input.as_bytes());
}

/// Whether `out` is already a finished set for `input`: strictly increasing, no `""`, no input.
pub(crate) fn is_finished(out: &[Variant], input: &str) -> bool {
    out.windows(2).all(|w| w[0] < w[1])
        && out
            .iter()
            .all(|v| !v.is_empty() && v.as_bytes() != input.as_bytes())
}

/// Byte offsets of every char boundary of `t`, both ends included: `n + 1` entries for `n`
/// chars. Candidates are built by slicing `t` at these offsets, never by collecting `Vec<char>`.
pub(crate) fn boundaries(t: &str) -> Vec<usize> {
    let mut b: Vec<usize> = t.char_indices().map(|(i, _)| i).collect();
    b.push(t.len());
    b
}

/// [`boundaries`] and the chars between them, once per call.
pub(crate) fn split_chars(t: &str) -> (Vec<usize>, Vec<char>) {
    let mut bounds = Vec::with_capacity(t.len() + 1);
    let mut chars = Vec::with_capacity(t.len());
    for (i, c) in t.char_indices() {
        bounds.push(i);
        chars.push(c);
    }
    bounds.push(t.len());
    (bounds, chars)
}

/// Go `strings.Replace(t, from, to, -1)`: non-overlapping matches, left to right; an empty
/// `from` inserts `to` before every char and at the end. A naive scan: names are short, and for
/// them it beats setting up a two-way searcher per call.
pub(crate) fn replace_all(t: &str, from: &str, to: &str) -> Variant {
    if from.is_empty() {
        return Variant::from(t.replace("", to));
    }
    let (h, n) = (t.as_bytes(), from.as_bytes());
    let mut out = String::with_capacity(t.len() + to.len());
    let (mut i, mut copied) = (0, 0);
    while i + n.len() <= h.len() {
        if h[i] == n[0] && h[i..].starts_with(n) {
            // A match of valid UTF-8 inside valid UTF-8 starts and ends on char boundaries.
            out.push_str(&t[copied..i]);
            out.push_str(to);
            i += n.len();
            copied = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&t[copied..]);
    Variant::from(out)
}

/// A map from `char`, with a direct-indexed table for ASCII (the common case) and a hash map for
/// the rest. Only ever looked up, never iterated, so hash order cannot reach any output.
pub(crate) struct CharMap<V> {
    ascii: Vec<Option<V>>,
    other: std::collections::HashMap<char, V>,
}

impl<V> CharMap<V> {
    pub(crate) fn new() -> Self {
        CharMap {
            ascii: (0..128).map(|_| None).collect(),
            other: std::collections::HashMap::new(),
        }
    }

    pub(crate) fn get(&self, c: char) -> Option<&V> {
        if c.is_ascii() {
            self.ascii.get(c as usize).and_then(Option::as_ref)
        } else {
            self.other.get(&c)
        }
    }

    pub(crate) fn get_or_insert_with(&mut self, c: char, make: impl FnOnce() -> V) -> &mut V {
        if c.is_ascii() {
            let slot = &mut self.ascii[c as usize];
            slot.get_or_insert_with(make)
        } else {
            self.other.entry(c).or_insert_with(make)
        }
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.other.is_empty() && self.ascii.iter().all(Option::is_none)
    }
}

/// `a + b + c`, inline when short, else in one allocation.
pub(crate) fn concat3(a: &str, b: &str, c: &str) -> Variant {
    Variant::concat(&[a, b, c])
}

/// Pushes `a + b + c` onto `out` (written in place when short).
pub(crate) fn push3(out: &mut Vec<Variant>, a: &str, b: &str, c: &str) {
    Variant::push_concat(out, &[a, b, c]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_all_is_go_replace() {
        for (t, from, to) in [
            ("aaa", "aa", "b"),
            ("abcabc", "bc", ""),
            ("日本日本", "本", "x"),
            ("", "a", "b"),
            ("ab", "", "-"),
            ("é", "", "-"),
            ("xyz", "q", "r"),
        ] {
            assert_eq!(
                replace_all(t, from, to).as_str(),
                Some(t.replace(from, to).as_str()),
                "{t} {from} {to}"
            );
        }
    }
}
