//! Keyboard generators (Needs = keyboard): `acs aci rar`.

#[cfg(test)]
use super::push3;
use super::{CharMap, boundaries};
use crate::Variant;

/// Every key's neighbours (up, down, left, right; padding spaces excluded) for one layout.
/// A character that occurs several times in the layout gets the concatenated lists, and the
/// padding space itself is a key whose neighbours are the keys around the holes.
pub(crate) struct Neighbours {
    /// In layout order, concatenated (upstream's lists).
    by_char: CharMap<Vec<char>>,
    /// The same lists sorted and deduplicated, for sorted emission.
    sorted: CharMap<Vec<char>>,
    /// The longest list of `by_char`.
    most: u64,
}

impl Neighbours {
    pub(crate) fn new(rows: &[String]) -> Self {
        let grid: Vec<Vec<char>> = rows.iter().map(|r| r.chars().collect()).collect();
        let cell = |r: Option<usize>, c: Option<usize>| -> Option<char> {
            let ch = *grid.get(r?)?.get(c?)?;
            (ch != ' ').then_some(ch)
        };
        let mut by_char = CharMap::new();
        for (r, row) in grid.iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                let around = [
                    cell(r.checked_sub(1), Some(c)),
                    cell(Some(r + 1), Some(c)),
                    cell(Some(r), c.checked_sub(1)),
                    cell(Some(r), Some(c + 1)),
                ];
                by_char
                    .get_or_insert_with(ch, Vec::new)
                    .extend(around.into_iter().flatten());
            }
        }
        let mut sorted = CharMap::new();
        let mut most = 0u64;
        for row in &grid {
            for &ch in row {
                most = most.max(by_char.get(ch).map_or(0, Vec::len) as u64);
                let list = sorted.get_or_insert_with(ch, || {
                    let mut l = by_char.get(ch).cloned().unwrap_or_default();
                    l.sort_unstable();
                    l.dedup();
                    l
                });
                let _ = list;
            }
        }
        Neighbours {
            by_char,
            sorted,
            most,
        }
    }

    /// `c`'s neighbours in layout order (repeats possible).
    pub(crate) fn of(&self, c: char) -> &[char] {
        self.by_char.get(c).map_or(&[], Vec::as_slice)
    }

    /// The most neighbours of one key (repeats counted): an upper bound per position.
    pub(crate) fn most(&self) -> u64 {
        self.most
    }

    /// `c`'s neighbours sorted, without repeats.
    pub(crate) fn sorted_of(&self, c: char) -> &[char] {
        self.sorted.get(c).map_or(&[], Vec::as_slice)
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.by_char.is_empty()
    }
}

/// `acs`: each rune replaced by each of its neighbours (the reference; the task emits the same set
/// sorted with [`ordered::substitute_chars`](super::ordered::substitute_chars)).
#[cfg(test)]
pub(crate) fn adjacent_substitution(t: &str, keys: &Neighbours, out: &mut Vec<Variant>) {
    let mut buf = [0u8; 4];
    for (i, c) in t.char_indices() {
        let (head, tail) = (&t[..i], &t[i + c.len_utf8()..]);
        for &k in keys.of(c) {
            push3(out, head, k.encode_utf8(&mut buf), tail);
        }
    }
}

/// `aci`, emitted sorted: gap `g` receives the neighbours of the rune after it (`t[g]`, inserted
/// before it) and of the rune before it (`t[g-1]`, inserted after it). Inserting `t[g]` itself
/// at `g` is the same string as inserting it at `g + 1`, so it is carried there (and further
/// while the runes repeat); the carry is always the single char `t[g]`, so the per-gap sets are
/// merges of two sorted lists, never a sort.
pub(crate) fn adjacent_insertion_sorted(t: &str, keys: &Neighbours, out: &mut Vec<Variant>) {
    let chars: Vec<char> = t.chars().collect();
    let n = chars.len();
    let mut flat: Vec<char> = Vec::with_capacity(8 * (n + 1));
    let mut ranges: Vec<(usize, usize)> = Vec::with_capacity(n + 1);
    let mut carry: Option<char> = None;
    for g in 0..=n {
        let after = chars.get(g).map_or(&[][..], |&c| keys.sorted_of(c));
        let before = g
            .checked_sub(1)
            .and_then(|p| chars.get(p))
            .map_or(&[][..], |&c| keys.sorted_of(c));
        let start = flat.len();
        merge_union(after, before, carry, &mut flat);
        carry = None;
        if let Some(&c) = chars.get(g)
            && let Some(at) = flat[start..].iter().position(|&k| k == c)
        {
            flat.remove(start + at);
            carry = Some(c);
        }
        ranges.push((start, flat.len()));
    }
    super::ordered::insert_char_sets(
        t,
        |g| ranges.get(g).map_or(&[][..], |&(a, b)| &flat[a..b]),
        out,
    );
}

/// Appends the sorted union of sorted `a`, sorted `b` and `extra` to `out`.
fn merge_union(a: &[char], b: &[char], extra: Option<char>, out: &mut Vec<char>) {
    let start = out.len();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                i += 1;
                j += 1;
                x
            }
            (Some(&x), Some(&y)) if x < y => {
                i += 1;
                x
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (_, Some(&y)) => {
                j += 1;
                y
            }
            (None, None) => break,
        };
        out.push(next);
    }
    if let Some(e) = extra {
        let tail = &out[start..];
        if let Err(at) = tail.binary_search(&e) {
            out.insert(start + at, e);
        }
    }
}

/// `aci` as `(gap, key)` insertions: each neighbour before (gap `i`) and after (gap `i + 1`) its
/// rune (the form the general [`insert_chars_at`](super::ordered::insert_chars_at) takes).
#[cfg(test)]
pub(crate) fn adjacent_insertion_pairs(t: &str, keys: &Neighbours) -> Vec<(usize, char)> {
    let mut pairs = Vec::new();
    for (i, c) in t.chars().enumerate() {
        for &k in keys.of(c) {
            pairs.push((i, k));
            pairs.push((i + 1, k));
        }
    }
    pairs
}

/// `aci`: each neighbour inserted before and after its rune (the reference).
#[cfg(test)]
pub(crate) fn adjacent_insertion(t: &str, keys: &Neighbours, out: &mut Vec<Variant>) {
    for (i, c) in t.char_indices() {
        let end = i + c.len_utf8();
        let (head, this, tail) = (&t[..i], &t[i..end], &t[end..]);
        let mut buf = [0u8; 4];
        for &k in keys.of(c) {
            let k = &*k.encode_utf8(&mut buf);
            out.push(Variant::concat(&[head, k, this, tail]));
            out.push(Variant::concat(&[head, this, k, tail]));
        }
    }
}

/// `rar`: each doubled rune (runs overlap) replaced by a doubled neighbour.
pub(crate) fn repetition_adjacent_replacement(t: &str, keys: &Neighbours, out: &mut Vec<Variant>) {
    let b = boundaries(t);
    for w in b.windows(3) {
        let (start, mid, end) = (w[0], w[1], w[2]);
        if t[start..mid] != t[mid..end] {
            continue;
        }
        let Some(c) = t[start..mid].chars().next() else {
            continue;
        };
        let (head, tail) = (&t[..start], &t[end..]);
        let mut buf = [0u8; 4];
        for &k in keys.of(c) {
            let k = &*k.encode_utf8(&mut buf);
            out.push(Variant::concat(&[head, k, k, tail]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qwerty() -> Neighbours {
        Neighbours::new(&crate::Keyboard::default().into_rows())
    }

    fn run(f: fn(&str, &Neighbours, &mut Vec<Variant>), t: &str) -> Vec<String> {
        let mut out = Vec::new();
        f(t, &qwerty(), &mut out);
        crate::generate::finish(out, t)
            .into_iter()
            .map(|v| v.to_string())
            .collect()
    }

    #[test]
    fn spec_examples() {
        assert_eq!(run(adjacent_substitution, " "), ["-", "k", "l", "m", "p"]);
        assert_eq!(
            run(adjacent_substitution, "ab"),
            ["ag", "an", "av", "qb", "sb", "zb"]
        );
        assert_eq!(run(adjacent_substitution, "p-"), ["0-", "o-", "p0"]);
        assert_eq!(
            run(adjacent_insertion, "ab"),
            [
                "abg", "abn", "abv", "agb", "anb", "aqb", "asb", "avb", "azb", "qab", "sab", "zab"
            ]
        );
        assert_eq!(
            run(repetition_adjacent_replacement, "google"),
            ["g99gle", "giigle", "gllgle", "gppgle"]
        );
        assert_eq!(
            run(repetition_adjacent_replacement, "00"),
            ["--", "99", "pp"]
        );
        assert!(run(repetition_adjacent_replacement, "example").is_empty());
        assert!(run(adjacent_substitution, "A").is_empty());
    }

    #[test]
    fn sorted_emission_matches_the_reference() {
        use crate::generate::{finish, ordered};
        let kb = qwerty();
        for t in [
            "",
            "a",
            "google.com",
            "aaa",
            " x ",
            "0p-",
            "münchen",
            "qaz",
            "qqwwq",
            "asas",
            "  ",
            "p0p",
        ] {
            let mut raw = Vec::new();
            adjacent_substitution(t, &kb, &mut raw);
            let mut fast = Vec::new();
            ordered::substitute_chars(t, |c| kb.sorted_of(c), &mut fast);
            assert_eq!(fast, finish(raw, t), "acs {t:?}");
            let mut raw = Vec::new();
            adjacent_insertion(t, &kb, &mut raw);
            let mut fast = Vec::new();
            ordered::insert_chars_at(t, &mut adjacent_insertion_pairs(t, &kb), &mut fast);
            let reference = finish(raw, t);
            assert_eq!(fast, reference, "aci {t:?}");
            let mut sorted = Vec::new();
            adjacent_insertion_sorted(t, &kb, &mut sorted);
            assert_eq!(sorted, reference, "aci sorted {t:?}");
        }
    }

    #[test]
    fn empty_layouts_have_no_keys() {
        assert!(Neighbours::new(&[]).is_empty());
        assert!(Neighbours::new(&[String::new()]).is_empty());
    }
}
