//! Keyboard generators (Needs = keyboard): `acs aci rar`.

#[cfg(test)]
use super::concat3;
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
        for row in &grid {
            for &ch in row {
                let list = sorted.get_or_insert_with(ch, || {
                    let mut l = by_char.get(ch).cloned().unwrap_or_default();
                    l.sort_unstable();
                    l.dedup();
                    l
                });
                let _ = list;
            }
        }
        Neighbours { by_char, sorted }
    }

    /// `c`'s neighbours in layout order (repeats possible).
    pub(crate) fn of(&self, c: char) -> &[char] {
        self.by_char.get(c).map_or(&[], Vec::as_slice)
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
            out.push(concat3(head, k.encode_utf8(&mut buf), tail));
        }
    }
}

/// `aci` as `(gap, key)` insertions: each neighbour before (gap `i`) and after (gap `i + 1`) its
/// rune, for [`ordered::insert_chars_at`](super::ordered::insert_chars_at).
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
        for t in ["", "a", "google.com", "aaa", " x ", "0p-", "münchen", "qaz"] {
            let mut raw = Vec::new();
            adjacent_substitution(t, &kb, &mut raw);
            let mut fast = Vec::new();
            ordered::substitute_chars(t, |c| kb.sorted_of(c), &mut fast);
            assert_eq!(fast, finish(raw, t), "acs {t:?}");
            let mut raw = Vec::new();
            adjacent_insertion(t, &kb, &mut raw);
            let mut fast = Vec::new();
            ordered::insert_chars_at(t, &mut adjacent_insertion_pairs(t, &kb), &mut fast);
            assert_eq!(fast, finish(raw, t), "aci {t:?}");
        }
    }

    #[test]
    fn empty_layouts_have_no_keys() {
        assert!(Neighbours::new(&[]).is_empty());
        assert!(Neighbours::new(&[String::new()]).is_empty());
    }
}
