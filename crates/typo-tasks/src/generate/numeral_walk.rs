//! The numeral walk of `cns`/`ons`, with cheap duplicate edges.
//!
//! The walk (see [`numeral_swap`](super::tables::numeral_swap)) is a depth-first search whose
//! order is normative: a string reached twice is expanded only the first time, so which strings
//! exist depends on the order edges are tried. Every (node, numeral) edge must therefore be
//! tried, and most edges lead to a string already seen. Building each candidate with
//! `str::replace` and hashing it made every edge cost a full copy and hash of the string, so a
//! 253-byte name full of numerals took seconds for tens of MB of output.
//!
//! Here a node's string is scanned once (an Aho-Corasick pass finding every numeral pattern, from
//! which each edge takes the leftmost non-overlapping occurrences, the positions `str::replace`
//! would rewrite) and hashed once (prefix hashes); an edge then costs a polynomial hash of the
//! candidate folded from its segments in O(occurrences). Only when that hash is already known is the
//! candidate compared, segment by segment with `memcmp`, against the stored strings (hashes may
//! collide, so equality is always checked on bytes, never assumed). A candidate is built only
//! when it is new, and then it is output. The work per variant is therefore proportional to its
//! length plus the occurrences of numerals in it, times the numerals tried (edges), with a
//! `memcmp` per edge that meets a string already seen.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use aho_corasick::AhoCorasick;

use crate::Variant;
use crate::limits::NUMERAL_WALK_LIMIT;

/// Base of the polynomial hash, computed modulo 2^64 (wrapping arithmetic: one multiply per
/// step). Such a hash can be made to collide, which costs only a byte comparison: equality is
/// always checked on bytes.
const BASE: u64 = 0x9e37_79b9_7f4a_7c15;

fn mul(a: u64, b: u64) -> u64 {
    a.wrapping_mul(b)
}

fn add(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}

fn sub(a: u64, b: u64) -> u64 {
    a.wrapping_sub(b)
}

/// Hash of `bytes`, and of every prefix (`prefix[i]` hashes `bytes[..i]`).
fn prefixes(bytes: &[u8], prefix: &mut Vec<u64>) {
    prefix.clear();
    prefix.reserve(bytes.len() + 1);
    let mut h = 0;
    prefix.push(h);
    for &b in bytes {
        h = add(mul(h, BASE), u64::from(b) + 1);
        prefix.push(h);
    }
}

/// Powers of [`BASE`], grown on demand.
struct Powers(Vec<u64>);

impl Powers {
    fn get(&mut self, n: usize) -> u64 {
        while self.0.len() <= n {
            let last = self.0.last().copied().unwrap_or(1);
            self.0.push(mul(last, BASE));
        }
        self.0[n]
    }
}

/// The map from hash to strings already seen is keyed by a hash already mixed: no rehashing.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Where a seen string lives: the walk's input, or `out[base + i]`.
const INPUT: u32 = u32::MAX;

/// The occurrences of one node's string, grouped by numeral.
struct Occurrences {
    offsets: Vec<usize>,
    starts: Vec<usize>,
}

struct Walk<'a> {
    input: &'a str,
    /// Finds every key (pattern `2i`) and value (pattern `2i + 1`) in one pass; `None`: search
    /// each pattern on its own.
    automaton: Option<&'a AhoCorasick>,
    /// Scratch: `(numeral, start)` of every occurrence of a replaceable pattern in the node.
    hits: Vec<(usize, usize)>,
    pairs: &'a [(String, String)],
    allow: Vec<usize>,
    rev: bool,
    used: Vec<bool>,
    seen: HashMap<u64, Vec<u32>, BuildHasherDefault<Identity>>,
    seen_count: usize,
    powers: Powers,
    /// Hash of each pair's replacement text in this direction.
    to_hash: Vec<u64>,
    base: usize,
    /// Scratch: match positions of the current edge.
    starts: Vec<usize>,
}

/// Runs both walks (forward, then reverse) with one `seen` set; see
/// [`numeral_swap`](super::tables::numeral_swap).
pub(crate) fn walk_both(
    t: &str,
    pairs: &[(String, String)],
    automaton: Option<&AhoCorasick>,
    allows: [Vec<usize>; 2],
    out: &mut Vec<Variant>,
) {
    let mut powers = Powers(vec![1]);
    let mut prefix = Vec::new();
    prefixes(t.as_bytes(), &mut prefix);
    let input_hash = prefix[t.len()];
    let mut seen: HashMap<u64, Vec<u32>, BuildHasherDefault<Identity>> = HashMap::default();
    seen.entry(input_hash).or_default().push(INPUT);
    let mut seen_count = 1;
    let base = out.len();
    for (rev, allow) in [false, true].into_iter().zip(allows) {
        let to_hash = pairs
            .iter()
            .map(|(k, v)| {
                let to = if rev { v } else { k };
                let mut p = Vec::new();
                prefixes(to.as_bytes(), &mut p);
                p[to.len()]
            })
            .collect();
        let mut walk = Walk {
            input: t,
            automaton,
            hits: Vec::new(),
            pairs,
            allow,
            rev,
            used: vec![false; pairs.len()],
            seen,
            seen_count,
            powers,
            to_hash,
            base,
            starts: Vec::new(),
        };
        walk.expand(t.to_owned(), &prefix, out);
        (seen, seen_count, powers) = (walk.seen, walk.seen_count, walk.powers);
    }
}

impl Walk<'_> {
    fn stored<'o>(&'o self, at: u32, out: &'o [Variant]) -> &'o [u8] {
        match at {
            INPUT => self.input.as_bytes(),
            _ => out[self.base + at as usize].as_bytes(),
        }
    }

    /// Whether the candidate (the segments of `s` around `starts`, with `to` in each gap) equals
    /// `other`.
    fn equals(&self, s: &[u8], from_len: usize, to: &[u8], other: &[u8]) -> bool {
        let mut at = 0;
        let mut pos = 0;
        for &start in &self.starts {
            let seg = &s[pos..start];
            if other.get(at..at + seg.len()) != Some(seg) {
                return false;
            }
            at += seg.len();
            if other.get(at..at + to.len()) != Some(to) {
                return false;
            }
            at += to.len();
            pos = start + from_len;
        }
        let tail = &s[pos..];
        other.get(at..) == Some(tail)
    }

    /// Every occurrence in `s` of a pattern this direction replaces, grouped by numeral (a
    /// counting sort: `offsets[n]..offsets[n + 1]` of the starts are numeral `n`'s, in order);
    /// `None` without an automaton.
    fn occurrences(&mut self, s: &str) -> Option<Occurrences> {
        let ac = self.automaton?;
        let mut hits = std::mem::take(&mut self.hits);
        hits.clear();
        let mut offsets = vec![0usize; self.pairs.len() + 1];
        for m in ac.find_overlapping_iter(s) {
            let pattern = m.pattern().as_usize();
            // Forward replaces values (odd patterns), reverse replaces keys (even ones).
            if (pattern % 2 == 0) == self.rev {
                hits.push((pattern / 2, m.start()));
                offsets[pattern / 2 + 1] += 1;
            }
        }
        for n in 1..offsets.len() {
            offsets[n] += offsets[n - 1];
        }
        // Matches arrive by end position, which for one pattern is start order: placing them in
        // arrival order keeps each numeral's starts sorted.
        let mut next = offsets.clone();
        let mut starts = vec![0usize; hits.len()];
        for &(num, start) in &hits {
            starts[next[num]] = start;
            next[num] += 1;
        }
        self.hits = hits;
        Some(Occurrences { offsets, starts })
    }

    /// The starts `str::replace` rewrites: leftmost, non-overlapping occurrences of `from`.
    fn starts_of(&mut self, s: &str, num: usize, from: &str, found: Option<&Occurrences>) {
        self.starts.clear();
        match found {
            Some(found) => {
                let mut free = 0;
                for &start in &found.starts[found.offsets[num]..found.offsets[num + 1]] {
                    if start >= free {
                        self.starts.push(start);
                        free = start + from.len();
                    }
                }
            }
            None => self.starts.extend(s.match_indices(from).map(|(i, _)| i)),
        }
    }

    fn expand(&mut self, s: String, prefix: &[u64], out: &mut Vec<Variant>) {
        let mut child_prefix = Vec::new();
        let hits = self.occurrences(&s);
        for ai in 0..self.allow.len() {
            if self.seen_count > NUMERAL_WALK_LIMIT {
                break;
            }
            let num = self.allow[ai];
            if self.used[num] {
                continue;
            }
            let (k, v) = &self.pairs[num];
            let (from, to) = if self.rev { (k, v) } else { (v, k) };
            if from.is_empty() || to.contains(from.as_str()) {
                continue;
            }
            self.starts_of(&s, num, from, hits.as_ref());
            if self.starts.is_empty() {
                // `replace` would return `s` itself, which is seen.
                continue;
            }
            // Hash of the candidate, folded from its segments.
            let bytes = s.as_bytes();
            let (flen, to_bytes, to_h) = (from.len(), to.as_bytes(), self.to_hash[num]);
            let mut h = 0u64;
            let mut pos = 0;
            for i in 0..self.starts.len() {
                let start = self.starts[i];
                let seg = sub(
                    prefix[start],
                    mul(prefix[pos], self.powers.get(start - pos)),
                );
                h = add(mul(h, self.powers.get(start - pos)), seg);
                h = add(mul(h, self.powers.get(to_bytes.len())), to_h);
                pos = start + flen;
            }
            let tail_len = bytes.len() - pos;
            let tail = sub(
                prefix[bytes.len()],
                mul(prefix[pos], self.powers.get(tail_len)),
            );
            h = add(mul(h, self.powers.get(tail_len)), tail);
            let new_len = bytes.len() - self.starts.len() * flen + self.starts.len() * to.len();
            if let Some(list) = self.seen.get(&h) {
                let dup = list.iter().any(|&at| {
                    let other = self.stored(at, out);
                    other.len() == new_len && self.equals(bytes, flen, to_bytes, other)
                });
                if dup {
                    continue;
                }
            }
            let mut next = String::with_capacity(new_len);
            let mut pos = 0;
            for &start in &self.starts {
                next.push_str(&s[pos..start]);
                next.push_str(to);
                pos = start + flen;
            }
            next.push_str(&s[pos..]);
            let index = u32::try_from(out.len() - self.base).unwrap_or(INPUT - 1);
            self.seen.entry(h).or_default().push(index);
            self.seen_count += 1;
            out.push(Variant::from(next.as_str()));
            self.used[num] = true;
            prefixes(next.as_bytes(), &mut child_prefix);
            let cp = std::mem::take(&mut child_prefix);
            self.expand(next, &cp, out);
            child_prefix = cp;
            self.used[num] = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_hashes_equal_whole_hashes() {
        let mut p = Vec::new();
        prefixes(b"one two one", &mut p);
        let mut q = Vec::new();
        prefixes(b"one", &mut q);
        let mut powers = Powers(vec![1]);
        // hash("one two one") == hash("one") * B^8 + hash(" two one")
        let mut r = Vec::new();
        prefixes(b" two one", &mut r);
        assert_eq!(p[11], add(mul(q[3], powers.get(8)), r[8]));
    }
}
