//! Keyboard generators (Needs = keyboard): `acs aci rar`.

use super::{CharMap, boundaries, concat3};

/// Every key's neighbours (up, down, left, right; padding spaces excluded) for one layout.
/// A character that occurs several times in the layout gets the concatenated lists, and the
/// padding space itself is a key whose neighbours are the keys around the holes.
pub(crate) struct Neighbours {
    by_char: CharMap<Vec<char>>,
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
        Neighbours { by_char }
    }

    fn of(&self, c: char) -> &[char] {
        self.by_char.get(c).map_or(&[], Vec::as_slice)
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.by_char.is_empty()
    }
}

/// `acs`: each rune replaced by each of its neighbours.
pub(crate) fn adjacent_substitution(t: &str, keys: &Neighbours, out: &mut Vec<String>) {
    let mut buf = [0u8; 4];
    for (i, c) in t.char_indices() {
        let (head, tail) = (&t[..i], &t[i + c.len_utf8()..]);
        for &k in keys.of(c) {
            out.push(concat3(head, k.encode_utf8(&mut buf), tail));
        }
    }
}

/// `aci`: each neighbour inserted before and after its rune.
pub(crate) fn adjacent_insertion(t: &str, keys: &Neighbours, out: &mut Vec<String>) {
    for (i, c) in t.char_indices() {
        let end = i + c.len_utf8();
        let (head, this, tail) = (&t[..i], &t[i..end], &t[end..]);
        for &k in keys.of(c) {
            let mut before = String::with_capacity(t.len() + 4);
            before.push_str(head);
            before.push(k);
            before.push_str(this);
            before.push_str(tail);
            out.push(before);
            let mut after = String::with_capacity(t.len() + 4);
            after.push_str(head);
            after.push_str(this);
            after.push(k);
            after.push_str(tail);
            out.push(after);
        }
    }
}

/// `rar`: each doubled rune (runs overlap) replaced by a doubled neighbour.
pub(crate) fn repetition_adjacent_replacement(t: &str, keys: &Neighbours, out: &mut Vec<String>) {
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
        for &k in keys.of(c) {
            let mut s = String::with_capacity(t.len() + 8);
            s.push_str(head);
            s.push(k);
            s.push(k);
            s.push_str(tail);
            out.push(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qwerty() -> Neighbours {
        Neighbours::new(&crate::Keyboard::default().into_rows())
    }

    fn run(f: fn(&str, &Neighbours, &mut Vec<String>), t: &str) -> Vec<String> {
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
    fn empty_layouts_have_no_keys() {
        assert!(Neighbours::new(&[]).is_empty());
        assert!(Neighbours::new(&[String::new()]).is_empty());
    }
}
