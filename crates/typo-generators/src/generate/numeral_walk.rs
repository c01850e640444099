//! The numeral walk of `cns`/`ons`, with work proportional to its output.
//!
//! The walk (see [`numeral_swap`](super::tables::numeral_swap)) is a depth-first search whose
//! order is normative: a string reached twice is expanded only the first time, so which strings
//! exist depends on the order edges are tried. Every (node, numeral) edge must therefore be
//! tried, and most edges lead to a string already seen. Building each candidate with
//! `str::replace` and hashing it made every edge cost a full copy and hash of the string, so a
//! 253-byte name full of numerals took seconds for tens of MB of output.
//!
//! Here each node keeps three things about its string, each derived from its parent's in time
//! proportional to what changed:
//!
//! * **Occurrences** of every numeral pattern the walk may still replace, grouped by numeral
//!   (all overlapping occurrences, in order; an edge takes the leftmost non-overlapping ones,
//!   the positions `str::replace` rewrites). A child is its parent with one numeral's
//!   occurrences rewritten, so the parent's other occurrences that no rewritten region touches
//!   survive (moved), and new ones can only overlap a written region: only short windows
//!   around those are scanned (a byte trie of the patterns, walked from each position). Only
//!   the input is scanned whole.
//! * **Prefix hashes** `g[i] = Σ_{j<i} (s_j + 1)·B^j` (mod 2^64), equal to the parent's up to
//!   the first rewritten byte.
//! * Its bytes.
//!
//! An edge then costs a polynomial hash of the candidate folded from its segments in
//! O(occurrences rewritten) and one probe of a flat table of the strings seen. Only when that
//! hash and length are already known is the candidate compared, segment by segment, with the
//! stored strings (hashes may collide, so equality is always checked on bytes, never assumed).
//! A new candidate is built, output and expanded. So an edge costs O(its rewritten
//! occurrences), an edge that meets a string already seen O(that string's length), and a new
//! variant O(its length + the occurrences in it). On the worst 253-byte names this is about
//! 3x faster than the previous walk (which rescanned and rehashed every node whole), and 65,536
//! variants of up to 1.2 KB each take about 0.3 s (see `limits`).

use super::NUMERAL_WALK_LIMIT;
use crate::Variant;

/// Base of the polynomial hash, computed modulo 2^64 (wrapping arithmetic). Odd, so it has an
/// inverse and segments can be moved left as well as right. Such a hash can be made to collide,
/// which costs only a byte comparison: equality is always checked on bytes.
const BASE: u64 = 0x9e37_79b9_7f4a_7c15;

/// The inverse of an odd `b` modulo 2^64 (Newton's iteration doubles the correct low bits).
const fn inverse(b: u64) -> u64 {
    let mut x = b;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u64.wrapping_sub(b.wrapping_mul(x)));
        i += 1;
    }
    x
}

const BASE_INV: u64 = inverse(BASE);

/// The numeral patterns of one table position, prepared once: every distinct key and value in
/// one byte trie, and which sides of which pairs each pattern is.
///
/// A scan walks the trie from every start position it is asked about and reports every pattern
/// found there (overlapping occurrences included): numeral patterns are short, so that is a few
/// steps per position, with no per-call set-up, which matters because the walk scans many small
/// windows.
pub(crate) struct Patterns {
    /// The state after the first byte (0: no pattern starts with it).
    root: Box<[u32; 256]>,
    states: Vec<State>,
    /// `(byte, state)` edges of every state, each state's sorted by byte.
    edges: Vec<(u8, u32)>,
    /// Full transition tables of the states with many edges (the digits, say).
    dense: Vec<[u32; 256]>,
    /// The sides each state ends: `2i` for the key of pair `i`, `2i + 1` for its value.
    sides: Vec<u32>,
    /// The longest pattern, in bytes.
    longest: usize,
}

/// A trie state: the slices of `edges` and `sides` it owns, and its dense table, if any.
#[derive(Clone, Copy, Default)]
struct State {
    edges: (u32, u32),
    sides: (u32, u32),
    dense: Option<u32>,
}

/// States with at least this many edges get a dense table (at most [`DENSE_STATES`] of them,
/// so a huge table of numerals stays linear in size).
const DENSE_EDGES: usize = 4;
const DENSE_STATES: usize = 64;

impl Patterns {
    pub(crate) fn new(pairs: &[(String, String)]) -> Self {
        // Build with maps, then flatten: states in creation order, state 0 unused ("none").
        let mut children: Vec<std::collections::BTreeMap<u8, u32>> = vec![Default::default(); 1];
        let mut ends: Vec<Vec<u32>> = vec![Vec::new()];
        let mut root = Box::new([0u32; 256]);
        let mut longest = 0;
        for (i, (k, v)) in pairs.iter().enumerate() {
            for (side, text) in [(2 * i, k), (2 * i + 1, v)] {
                let Some((&first, rest)) = text.as_bytes().split_first() else {
                    continue;
                };
                longest = longest.max(text.len());
                let mut state = root[usize::from(first)];
                if state == 0 {
                    state = children.len() as u32;
                    children.push(Default::default());
                    ends.push(Vec::new());
                    root[usize::from(first)] = state;
                }
                for &b in rest {
                    let next = children.len() as u32;
                    state = *children[state as usize].entry(b).or_insert(next);
                    if state == next {
                        children.push(Default::default());
                        ends.push(Vec::new());
                    }
                }
                ends[state as usize].push(side as u32);
            }
        }
        let mut states = Vec::with_capacity(children.len());
        let (mut edges, mut sides, mut dense) = (Vec::new(), Vec::new(), Vec::new());
        for (next, ends) in children.iter().zip(&ends) {
            let mut state = State {
                edges: (edges.len() as u32, next.len() as u32),
                sides: (sides.len() as u32, ends.len() as u32),
                dense: None,
            };
            edges.extend(next.iter().map(|(&b, &s)| (b, s)));
            sides.extend_from_slice(ends);
            if next.len() >= DENSE_EDGES && dense.len() < DENSE_STATES {
                let mut table = [0u32; 256];
                for (&b, &s) in next {
                    table[usize::from(b)] = s;
                }
                state.dense = Some(dense.len() as u32);
                dense.push(table);
            }
            states.push(state);
        }
        Patterns {
            root,
            states,
            edges,
            dense,
            sides,
            longest,
        }
    }

    fn next(&self, state: u32, byte: u8) -> u32 {
        let s = self.states[state as usize];
        if let Some(d) = s.dense {
            return self.dense[d as usize][usize::from(byte)];
        }
        let (at, n) = (s.edges.0 as usize, s.edges.1 as usize);
        self.edges[at..at + n]
            .iter()
            .find(|e| e.0 == byte)
            .map_or(0, |e| e.1)
    }

    /// Calls `found(side, start)` for every occurrence in `hay` of every pattern starting in
    /// `lo..hi` (an occurrence may end past `hi`), by start, then by length.
    fn scan(&self, hay: &[u8], lo: usize, hi: usize, mut found: impl FnMut(u32, usize)) {
        for start in lo..hi.min(hay.len()) {
            let mut state = self.root[usize::from(hay[start])];
            let mut at = start + 1;
            while state != 0 {
                let s = self.states[state as usize];
                let (from, n) = (s.sides.0 as usize, s.sides.1 as usize);
                for &side in &self.sides[from..from + n] {
                    found(side, start);
                }
                match hay.get(at) {
                    Some(&b) => state = self.next(state, b),
                    None => break,
                }
                at += 1;
            }
        }
    }

    /// `occurs[side]`: whether that side's text is a substring of `t`.
    pub(crate) fn occurring(&self, t: &str, sides: usize) -> Vec<bool> {
        let mut occurs = vec![false; sides];
        self.scan(t.as_bytes(), 0, t.len(), |side, _| {
            if let Some(slot) = occurs.get_mut(side as usize) {
                *slot = true;
            }
        });
        occurs
    }
}

/// Powers of [`BASE`] and of its inverse, grown on demand.
struct Powers {
    up: Vec<u64>,
    down: Vec<u64>,
}

impl Powers {
    /// Makes `up[n]` and `down[n]` valid.
    fn reach(&mut self, n: usize) {
        while self.up.len() <= n {
            let (u, d) = (
                self.up.last().copied().unwrap_or(1),
                self.down.last().copied().unwrap_or(1),
            );
            self.up.push(u.wrapping_mul(BASE));
            self.down.push(d.wrapping_mul(BASE_INV));
        }
    }
}

/// What a node of the walk knows about its string.
#[derive(Default)]
struct Node {
    text: String,
    /// `prefix[i]`: hash of `text[..i]`, with byte `j` weighted by `B^j`.
    prefix: Vec<u64>,
    /// Occurrences grouped by numeral: `starts[offsets[n]..offsets[n + 1]]` are numeral `n`'s,
    /// ascending (overlapping ones included). Only numerals the walk may still use are filled.
    offsets: Vec<usize>,
    starts: Vec<usize>,
}

impl Node {
    /// Extends `prefix` (valid for `text[..from]`) over the rest of `text`.
    fn hash_from(&mut self, from: usize, powers: &mut Powers) {
        powers.reach(self.text.len());
        self.prefix.truncate(from + 1);
        if self.prefix.is_empty() {
            self.prefix.push(0);
        }
        let mut h = self.prefix.last().copied().unwrap_or(0);
        let bytes = self.text.as_bytes().get(from..).unwrap_or_default();
        let powers = &powers.up[from..from + bytes.len()];
        self.prefix.reserve(bytes.len());
        // Four bytes at a time: the multiplies are independent, only the adds chain.
        let (bytes4, bytes_rest) = bytes.split_at(bytes.len() / 4 * 4);
        let (powers4, powers_rest) = powers.split_at(bytes4.len());
        for (b, p) in bytes4.chunks_exact(4).zip(powers4.chunks_exact(4)) {
            let t0 = (u64::from(b[0]) + 1).wrapping_mul(p[0]);
            let t1 = (u64::from(b[1]) + 1).wrapping_mul(p[1]);
            let t2 = (u64::from(b[2]) + 1).wrapping_mul(p[2]);
            let t3 = (u64::from(b[3]) + 1).wrapping_mul(p[3]);
            let h1 = h.wrapping_add(t0);
            let h2 = h1.wrapping_add(t1);
            let h3 = h2.wrapping_add(t2);
            h = h3.wrapping_add(t3);
            self.prefix.extend_from_slice(&[h1, h2, h3, h]);
        }
        for (&b, &p) in bytes_rest.iter().zip(powers_rest) {
            h = h.wrapping_add((u64::from(b) + 1).wrapping_mul(p));
            self.prefix.push(h);
        }
    }
}

/// One slot of the table of strings seen: the hash, where the string is, and its length
/// (saturated: only ever compared before the bytes are).
#[derive(Clone, Copy)]
struct Slot {
    hash: u64,
    at: u32,
    len: u32,
}

/// An empty slot.
const EMPTY: u32 = u32::MAX;
/// The walk's input (not in `out`).
const INPUT: u32 = u32::MAX - 1;

const NO_SLOT: Slot = Slot {
    hash: 0,
    at: EMPTY,
    len: 0,
};

fn saturated(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

/// An open-addressing table from hash to the strings seen with it (several slots per hash when
/// hashes collide): one probe, usually one cache line, per edge.
struct Seen {
    slots: Vec<Slot>,
    len: usize,
}

impl Seen {
    fn new() -> Self {
        Seen {
            slots: vec![NO_SLOT; 64],
            len: 0,
        }
    }

    fn home(&self, hash: u64) -> usize {
        // The polynomial hash's low bits are weak: take the top bits of a multiply.
        let mixed = (hash ^ (hash >> 32)).wrapping_mul(0xd6e8_feb8_6659_fd93);
        (mixed >> 32) as usize & (self.slots.len() - 1)
    }

    fn insert(&mut self, slot: Slot) {
        if (self.len + 1) * 2 > self.slots.len() {
            let grown = vec![NO_SLOT; self.slots.len() * 2];
            let old = std::mem::replace(&mut self.slots, grown);
            self.len = 0;
            for s in old.into_iter().filter(|s| s.at != EMPTY) {
                self.insert(s);
            }
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(slot.hash);
        while self.slots[i].at != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
        self.len += 1;
    }

    /// Whether `same(at)` holds for a string stored with `hash` and length `len` (asked only of
    /// those).
    fn contains(&self, hash: u64, len: u32, mut same: impl FnMut(u32) -> bool) -> bool {
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash);
        loop {
            let s = self.slots[i];
            if s.at == EMPTY {
                return false;
            }
            if s.hash == hash && s.len == len && same(s.at) {
                return true;
            }
            i = (i + 1) & mask;
        }
    }
}

/// Scratch of the occurrence bookkeeping, reused across nodes.
#[derive(Default)]
struct Scratch {
    /// The starts the current edge rewrites.
    starts: Vec<usize>,
    /// Where the current edge wrote, in the child: `(start, end)` per rewritten occurrence.
    written: Vec<(usize, usize)>,
    /// `(numeral, start)` of occurrences found in a scan.
    found: Vec<(usize, usize)>,
    /// `found` grouped by numeral.
    offsets: Vec<usize>,
    grouped: Vec<usize>,
    next: Vec<usize>,
}

/// One direction of the walk.
struct Walk<'a> {
    input: &'a str,
    pairs: &'a [(String, String)],
    patterns: &'a Patterns,
    /// The numerals this direction may replace, in the normative order.
    allow: &'a [usize],
    rev: bool,
    /// Per numeral: allowed here, and its edge is not a no-op by construction (`from` empty, or
    /// contained in `to`).
    active: Vec<bool>,
    used: Vec<bool>,
    seen: &'a mut Seen,
    powers: &'a mut Powers,
    /// Hash of each pair's replacement text in this direction (`to`, weighted from `B^0`).
    to_hash: Vec<u64>,
    /// Index in `out` of the walk's first variant.
    base: usize,
    /// `nodes[d]`: the node at depth `d` of the current path (taken out while it is expanded).
    nodes: Vec<Node>,
    scratch: Scratch,
}

/// Runs both walks (forward, then reverse) with one table of strings seen; see
/// [`numeral_swap`](super::tables::numeral_swap).
pub(crate) fn walk_both(
    t: &str,
    pairs: &[(String, String)],
    patterns: &Patterns,
    allows: [Vec<usize>; 2],
    out: &mut Vec<Variant>,
) {
    let mut powers = Powers {
        up: vec![1],
        down: vec![1],
    };
    let mut seen = Seen::new();
    let mut root = Node {
        text: t.to_owned(),
        ..Node::default()
    };
    root.hash_from(0, &mut powers);
    seen.insert(Slot {
        hash: root.prefix[t.len()],
        at: INPUT,
        len: saturated(t.len()),
    });
    let base = out.len();
    for (rev, allow) in [false, true].into_iter().zip(&allows) {
        let mut active = vec![false; pairs.len()];
        for &num in allow {
            let (k, v) = &pairs[num];
            let (from, to) = if rev { (k, v) } else { (v, k) };
            active[num] = !from.is_empty() && !to.contains(from.as_str());
        }
        let to_hash = pairs
            .iter()
            .map(|(k, v)| {
                let to = if rev { v } else { k };
                powers.reach(to.len());
                to.bytes().zip(&powers.up).fold(0u64, |h, (b, &p)| {
                    h.wrapping_add((u64::from(b) + 1).wrapping_mul(p))
                })
            })
            .collect();
        let mut walk = Walk {
            input: t,
            pairs,
            patterns,
            allow,
            rev,
            used: vec![false; pairs.len()],
            active,
            seen: &mut seen,
            powers: &mut powers,
            to_hash,
            base,
            nodes: Vec::new(),
            scratch: Scratch::default(),
        };
        let mut node = Node {
            text: t.to_owned(),
            prefix: root.prefix.clone(),
            ..Node::default()
        };
        walk.occurrences_of_input(&mut node);
        walk.nodes.push(node);
        walk.expand(0, out);
    }
}

impl Walk<'_> {
    /// The numeral whose pattern in this direction is `side`, if the walk may still use it:
    /// forward replaces values (odd sides), reverse replaces keys.
    fn numeral_of(&self, side: u32) -> Option<usize> {
        let num = side as usize / 2;
        let wanted = side.is_multiple_of(2) == self.rev;
        (wanted && self.active[num] && !self.used[num]).then_some(num)
    }

    /// The length of the text `num` replaces in this direction.
    fn pattern_len(&self, num: usize) -> usize {
        let (k, v) = &self.pairs[num];
        if self.rev { k.len() } else { v.len() }
    }

    /// Fills `node`'s occurrences by scanning all of it (the input only).
    fn occurrences_of_input(&mut self, node: &mut Node) {
        let mut found = std::mem::take(&mut self.scratch.found);
        found.clear();
        let bytes = node.text.as_bytes();
        self.patterns.scan(bytes, 0, bytes.len(), |side, start| {
            if let Some(num) = self.numeral_of(side) {
                found.push((num, start));
            }
        });
        group(
            &found,
            self.pairs.len(),
            &mut node.offsets,
            &mut node.starts,
            &mut self.scratch.next,
        );
        self.scratch.found = found;
    }

    /// Fills `child`'s occurrences from `parent`'s: `num` (now used) was rewritten at
    /// `scratch.starts` (each `flen` bytes, replaced by `to_len`), so every other occurrence
    /// that touches no rewritten region survives, moved, and new ones overlap a written region.
    fn occurrences_of_child(
        &mut self,
        parent: &Node,
        child: &mut Node,
        flen: usize,
        to_len: usize,
    ) {
        let longest = self.patterns.longest;
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.found.clear();
        let bytes = child.text.as_bytes();
        // Region `k` is written at `child_at(k, starts[k])`. A new occurrence starts less than
        // `longest` bytes before a written region ends and overlaps it; windows that touch are
        // scanned as one.
        let child_at = |k: usize, start: usize| start + k * to_len - k * flen;
        let written = &mut scratch.written;
        written.clear();
        written.extend(
            scratch
                .starts
                .iter()
                .enumerate()
                .map(|(k, &start)| (child_at(k, start), child_at(k, start) + to_len)),
        );
        let mut run = 0;
        while run < written.len() {
            let lo = (written[run].0 + 1).saturating_sub(longest);
            let mut last = run;
            while last + 1 < written.len() && written[last + 1].0 + 1 < written[last].1 + longest {
                last += 1;
            }
            let regions = &written[run..=last];
            let found = &mut scratch.found;
            self.patterns
                .scan(bytes, lo, regions[regions.len() - 1].1, |side, at| {
                    if let Some(num) = self.numeral_of(side) {
                        // The first region ending after the start must begin before the end.
                        let j = regions.partition_point(|&(_, b)| b <= at);
                        if regions
                            .get(j)
                            .is_some_and(|&(a, _)| a < at + self.pattern_len(num))
                        {
                            found.push((num, at));
                        }
                    }
                });
            run = last + 1;
        }
        // Found in order of start: grouping keeps each numeral's starts ascending.
        group(
            &scratch.found,
            self.pairs.len(),
            &mut scratch.offsets,
            &mut scratch.grouped,
            &mut scratch.next,
        );
        child.offsets.clear();
        child.starts.clear();
        child.offsets.push(0);
        let regions = &scratch.starts;
        for num in 0..self.pairs.len() {
            if self.active[num] && !self.used[num] {
                let plen = self.pattern_len(num);
                let kept = &parent.starts[parent.offsets[num]..parent.offsets[num + 1]];
                let mut fresh = scratch.grouped[scratch.offsets[num]..scratch.offsets[num + 1]]
                    .iter()
                    .copied()
                    .peekable();
                // `k`: the regions wholly before the occurrence.
                let mut k = 0;
                for &p in kept {
                    while k < regions.len() && regions[k] + flen <= p {
                        k += 1;
                    }
                    if k < regions.len() && regions[k] < p + plen {
                        continue;
                    }
                    let moved = child_at(k, p);
                    while let Some(f) = fresh.next_if(|&f| f < moved) {
                        child.starts.push(f);
                    }
                    child.starts.push(moved);
                }
                child.starts.extend(fresh);
            }
            child.offsets.push(child.starts.len());
        }
        self.scratch = scratch;
    }

    fn expand(&mut self, depth: usize, out: &mut Vec<Variant>) {
        if self.nodes.len() <= depth + 1 {
            self.nodes.push(Node::default());
        }
        let parent = std::mem::take(&mut self.nodes[depth]);
        let pairs = self.pairs;
        for &num in self.allow {
            if self.seen.len > NUMERAL_WALK_LIMIT {
                break;
            }
            if self.used[num] || !self.active[num] {
                continue;
            }
            let (k, v) = &pairs[num];
            let (from, to) = if self.rev { (k, v) } else { (v, k) };
            let flen = from.len();
            // The starts `str::replace` rewrites: leftmost, non-overlapping occurrences.
            let starts = &mut self.scratch.starts;
            starts.clear();
            let mut free = 0;
            for &start in &parent.starts[parent.offsets[num]..parent.offsets[num + 1]] {
                if start >= free {
                    starts.push(start);
                    free = start + flen;
                }
            }
            if starts.is_empty() {
                // `replace` would return the node itself, which is seen.
                continue;
            }
            let len = parent.text.len();
            let new_len = len - starts.len() * flen + starts.len() * to.len();
            let h = self.candidate_hash(&parent, num, flen, to.len(), new_len);
            let starts = &self.scratch.starts;
            let (input, base) = (self.input, self.base);
            let dup = self.seen.contains(h, saturated(new_len), |at| {
                let stored = match at {
                    INPUT => input.as_bytes(),
                    _ => out[base + at as usize].as_bytes(),
                };
                equals(starts, parent.text.as_bytes(), flen, to.as_bytes(), stored)
            });
            if dup {
                continue;
            }
            let mut child = std::mem::take(&mut self.nodes[depth + 1]);
            build(starts, &parent.text, flen, to, &mut child.text);
            let index = u32::try_from(out.len() - self.base).unwrap_or(INPUT - 1);
            self.seen.insert(Slot {
                hash: h,
                at: index,
                len: saturated(new_len),
            });
            out.push(Variant::from(child.text.as_str()));
            // The prefix hashes agree up to the first rewritten byte.
            let first = starts[0];
            child.prefix.clear();
            child.prefix.extend_from_slice(&parent.prefix[..=first]);
            child.hash_from(first, self.powers);
            self.used[num] = true;
            self.occurrences_of_child(&parent, &mut child, flen, to.len());
            self.nodes[depth + 1] = child;
            self.expand(depth + 1, out);
            self.used[num] = false;
        }
        self.nodes[depth] = parent;
    }

    /// Hash of the candidate of edge `num` from `node`, folded from its segments: a segment
    /// `[a, b)` of the node placed at `q` in the candidate weighs `B^(q - a)` more.
    fn candidate_hash(
        &mut self,
        node: &Node,
        num: usize,
        flen: usize,
        to_len: usize,
        new_len: usize,
    ) -> u64 {
        let len = node.text.len();
        self.powers.reach(len.max(new_len));
        let (up, down) = (&self.powers.up, &self.powers.down);
        let p = &node.prefix;
        let to_h = self.to_hash[num];
        let mut h = 0u64;
        let (mut pos, mut q) = (0, 0);
        for &start in &self.scratch.starts {
            let seg = p[start].wrapping_sub(p[pos]);
            h = h.wrapping_add(seg.wrapping_mul(up[q]).wrapping_mul(down[pos]));
            q += start - pos;
            h = h.wrapping_add(to_h.wrapping_mul(up[q]));
            q += to_len;
            pos = start + flen;
        }
        let seg = p[len].wrapping_sub(p[pos]);
        h.wrapping_add(seg.wrapping_mul(up[q]).wrapping_mul(down[pos]))
    }
}

/// Writes `s` with `to` over the `flen` bytes at each of `starts` into `text`.
fn build(starts: &[usize], s: &str, flen: usize, to: &str, text: &mut String) {
    text.clear();
    let mut pos = 0;
    for &start in starts {
        text.push_str(&s[pos..start]);
        text.push_str(to);
        pos = start + flen;
    }
    text.push_str(&s[pos..]);
}

/// Whether `s` with `to` over the `flen` bytes at each of `starts` equals `other` (whose length
/// the caller has checked).
fn equals(starts: &[usize], s: &[u8], flen: usize, to: &[u8], other: &[u8]) -> bool {
    let mut at = 0;
    let mut pos = 0;
    for &start in starts {
        let seg = &s[pos..start];
        if other.get(at..at + seg.len()) != Some(seg) {
            return false;
        }
        at += seg.len();
        if other.get(at..at + to.len()) != Some(to) {
            return false;
        }
        at += to.len();
        pos = start + flen;
    }
    other.get(at..) == Some(&s[pos..])
}

/// Groups `(numeral, start)` pairs by numeral (a stable counting sort): `starts[offsets[n]..
/// offsets[n + 1]]` are numeral `n`'s, in their order in `pairs`.
fn group(
    pairs: &[(usize, usize)],
    numerals: usize,
    offsets: &mut Vec<usize>,
    starts: &mut Vec<usize>,
    next: &mut Vec<usize>,
) {
    offsets.clear();
    offsets.resize(numerals + 1, 0);
    for &(num, _) in pairs {
        offsets[num + 1] += 1;
    }
    for n in 1..offsets.len() {
        offsets[n] += offsets[n - 1];
    }
    starts.clear();
    starts.resize(pairs.len(), 0);
    next.clear();
    next.extend_from_slice(&offsets[..numerals]);
    for &(num, start) in pairs {
        starts[next[num]] = start;
        next[num] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_hashes_move() {
        // hash("xab") == hash("ab") * B: a segment moved right by one weighs B more.
        let mut powers = Powers {
            up: vec![1],
            down: vec![1],
        };
        let mut a = Node {
            text: "ab".to_owned(),
            ..Node::default()
        };
        a.hash_from(0, &mut powers);
        let mut b = Node {
            text: "xab".to_owned(),
            ..Node::default()
        };
        b.hash_from(0, &mut powers);
        let ab_in_b = b.prefix[3].wrapping_sub(b.prefix[1]);
        assert_eq!(ab_in_b, a.prefix[2].wrapping_mul(BASE));
        assert_eq!(ab_in_b.wrapping_mul(BASE_INV), a.prefix[2]);
        assert_eq!(BASE.wrapping_mul(BASE_INV), 1);
    }

    /// Every occurrence the naive way: `(side, start)` for each pattern at each position.
    fn naive(pairs: &[(String, String)], hay: &str, lo: usize, hi: usize) -> Vec<(u32, usize)> {
        let mut all = Vec::new();
        for (i, (k, v)) in pairs.iter().enumerate() {
            for (side, text) in [(2 * i, k), (2 * i + 1, v)] {
                for start in lo..hi.min(hay.len()) {
                    if !text.is_empty() && hay.as_bytes()[start..].starts_with(text.as_bytes()) {
                        all.push((side as u32, start));
                    }
                }
            }
        }
        all.sort_unstable();
        all
    }

    fn scanned(p: &Patterns, hay: &str, lo: usize, hi: usize) -> Vec<(u32, usize)> {
        let mut all = Vec::new();
        p.scan(hay.as_bytes(), lo, hi, |side, start| {
            all.push((side, start))
        });
        all.sort_unstable();
        all
    }

    #[test]
    fn more_dense_states_than_the_limit_still_scan_right() {
        // Every string of four letters over six: 258 states with six edges each.
        let letters = ["a", "b", "c", "d", "e", "f"];
        let mut pairs = Vec::new();
        for x in letters {
            for y in letters {
                for z in letters {
                    for w in letters {
                        pairs.push((format!("{x}{y}{z}{w}"), format!("{w}{z}")));
                    }
                }
            }
        }
        let p = Patterns::new(&pairs);
        assert_eq!(p.dense.len(), DENSE_STATES);
        let hay = "abcdefedcbaffeeddccbbaacefbdfa";
        assert_eq!(
            scanned(&p, hay, 0, hay.len()),
            naive(&pairs, hay, 0, hay.len())
        );
        assert_eq!(scanned(&p, hay, 5, 9), naive(&pairs, hay, 5, 9));
    }

    proptest::proptest! {
        /// The trie finds exactly the occurrences a naive search finds, shared and repeated
        /// patterns included.
        #[test]
        fn scan_finds_every_occurrence(
            pairs in proptest::collection::vec(("[ab0é]{1,4}", "[ab0é]{1,4}"), 0..12),
            hay in "[ab0éc]{0,24}",
            lo in 0usize..30,
            width in 0usize..30,
        ) {
            let p = Patterns::new(&pairs);
            let lo = lo.min(hay.len());
            proptest::prop_assert_eq!(
                scanned(&p, &hay, lo, lo + width),
                naive(&pairs, &hay, lo, lo + width)
            );
        }
    }
}
