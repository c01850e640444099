//! Rule generators (Needs = nothing): `co cs cr hi ho di do dhs tos bf`.
//!
//! All but `bf` index by code point: candidates are sliced out of the input at char boundaries
//! (see [`boundaries`]). `co cs cr hi di` run as sorted emitters in
//! [`ordered`](super::ordered); the functions here marked test-only are their references.

#[cfg(test)]
use super::boundaries;
use super::push3;
use crate::Variant;

/// `co`: each rune left out once.
#[cfg(test)]
pub(crate) fn character_omission(t: &str, out: &mut Vec<Variant>) {
    let b = boundaries(t);
    out.reserve(b.len());
    for w in b.windows(2) {
        let (start, end) = (w[0], w[1]);
        concat_into(out, &t[..start], "", &t[end..]);
    }
}

/// `cs`: each pair of neighbouring runes swapped.
#[cfg(test)]
pub(crate) fn character_swapping(t: &str, out: &mut Vec<Variant>) {
    let b = boundaries(t);
    for w in b.windows(3) {
        let (a, m, z) = (w[0], w[1], w[2]);
        out.push(Variant::concat(&[&t[..a], &t[m..z], &t[a..m], &t[z..]]));
    }
}

/// `cr`: each rune written twice.
#[cfg(test)]
pub(crate) fn character_repetition(t: &str, out: &mut Vec<Variant>) {
    let b = boundaries(t);
    for w in b.windows(2) {
        let (start, end) = (w[0], w[1]);
        concat_into(out, &t[..end], &t[start..end], &t[end..]);
    }
}

/// `insertEverywhere(t, s)`: `s` in every gap, both ends included; nothing for an empty `t`.
pub(crate) fn insert_everywhere(t: &str, s: &str, out: &mut Vec<Variant>) {
    if t.is_empty() {
        return;
    }
    for i in t.char_indices().map(|(i, _)| i).chain([t.len()]) {
        concat_into(out, &t[..i], s, &t[i..]);
    }
}

/// `replaceEach(t, c, r)`: each occurrence of the rune `c` replaced by `r` alone, then all of
/// them at once (`r = ""` is `deleteEach`).
fn replace_each(t: &str, c: char, r: &str, out: &mut Vec<Variant>) {
    let mut any = false;
    for (i, ch) in t.char_indices() {
        if ch == c {
            any = true;
            concat_into(out, &t[..i], r, &t[i + ch.len_utf8()..]);
        }
    }
    if any {
        let mut buf = [0u8; 4];
        out.push(super::replace_all(t, c.encode_utf8(&mut buf), r));
    }
}

/// `hi`.
#[cfg(test)]
pub(crate) fn hyphen_insertion(t: &str, out: &mut Vec<Variant>) {
    insert_everywhere(t, "-", out);
}

/// `ho`.
pub(crate) fn hyphen_omission(t: &str, out: &mut Vec<Variant>) {
    replace_each(t, '-', "", out);
}

/// `di`: a dot in every inner gap; candidates starting or ending with a dot are dropped, so an
/// input that starts or ends with one gives nothing.
#[cfg(test)]
pub(crate) fn dot_insertion(t: &str, out: &mut Vec<Variant>) {
    if t.is_empty() || t.starts_with('.') || t.ends_with('.') {
        return;
    }
    // The gaps at both ends would give a leading or trailing dot; every inner gap is kept.
    for (i, _) in t.char_indices().skip(1) {
        concat_into(out, &t[..i], ".", &t[i..]);
    }
}

/// `do`.
pub(crate) fn dot_omission(t: &str, out: &mut Vec<Variant>) {
    replace_each(t, '.', "", out);
}

/// `dhs`: dots to hyphens, then hyphens to dots; the directions never mix.
pub(crate) fn dot_hyphen_substitution(t: &str, out: &mut Vec<Variant>) {
    replace_each(t, '.', "-", out);
    replace_each(t, '-', ".", out);
}

fn is_separator(c: char) -> bool {
    matches!(c, '-' | '_' | '.')
}

/// Upstream's `SplitTokens`: parts and the separators between them (one fewer separator than
/// parts), or `None` when the input does not split that way (empty, leading/trailing separator).
/// A run of separators is one boundary; a digit/non-digit change inside a part is a boundary
/// with an empty separator.
pub(crate) fn split_tokens(t: &str) -> Option<(Vec<&str>, Vec<&str>)> {
    let mut parts = Vec::new();
    let mut seps: Vec<&str> = Vec::new();
    let mut part_start: Option<usize> = None;
    let mut sep_start: Option<usize> = None;
    let mut prev_digit = false;
    for (i, c) in t.char_indices() {
        if is_separator(c) {
            if let Some(p) = part_start.take() {
                parts.push(&t[p..i]);
            }
            if sep_start.is_none() {
                sep_start = Some(i);
            }
        } else {
            if let Some(s) = sep_start.take() {
                seps.push(&t[s..i]);
            }
            let digit = c.is_ascii_digit();
            match part_start {
                Some(p) if digit != prev_digit => {
                    parts.push(&t[p..i]);
                    seps.push("");
                    part_start = Some(i);
                }
                Some(_) => {}
                None => part_start = Some(i),
            }
            prev_digit = digit;
        }
    }
    if let Some(p) = part_start {
        parts.push(&t[p..]);
    }
    if let Some(s) = sep_start {
        seps.push(&t[s..]);
    }
    (!parts.is_empty() && seps.len() + 1 == parts.len()).then_some((parts, seps))
}

/// `tos`: the parts reordered around fixed separators: every permutation for 2–4 parts; for 5
/// or more, the full reversal and each adjacent transposition.
pub(crate) fn token_order_swap(t: &str, out: &mut Vec<Variant>) {
    let Some((parts, seps)) = split_tokens(t) else {
        return;
    };
    let n = parts.len();
    if n < 2 {
        return;
    }
    let render = |order: &[usize], out: &mut Vec<Variant>| {
        let mut s = String::with_capacity(t.len());
        for (k, &o) in order.iter().enumerate() {
            s.push_str(parts[o]);
            if let Some(sep) = seps.get(k) {
                s.push_str(sep);
            }
        }
        out.push(Variant::from(s));
    };
    let mut order: Vec<usize> = (0..n).collect();
    if n <= 4 {
        permutations(&mut order, 0, &mut |o| render(o, out));
    } else {
        let reversed: Vec<usize> = (0..n).rev().collect();
        render(&reversed, out);
        for i in 0..n - 1 {
            order.swap(i, i + 1);
            render(&order, out);
            order.swap(i, i + 1);
        }
    }
}

/// Every permutation of `items[k..]` (Heap-free simple recursion; n ≤ 4 here).
fn permutations(items: &mut [usize], k: usize, visit: &mut impl FnMut(&[usize])) {
    if k == items.len() {
        visit(items);
        return;
    }
    for i in k..items.len() {
        items.swap(k, i);
        permutations(items, k + 1, visit);
        items.swap(k, i);
    }
}

/// `bf`: every bit of every byte flipped, the flipped byte re-encoded as the code point U+00vv
/// (Go's `string(byte)`), so 0x80–0xFF become two bytes. Flipping a byte of a multi-byte
/// character orphans its partners and gives invalid UTF-8, which is kept exactly.
pub(crate) fn bit_flipping(t: &str) -> Vec<Variant> {
    let bytes = t.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() * 8);
    for (i, &byte) in bytes.iter().enumerate() {
        for bit in 0..8 {
            // Go's `string(byte)`: the value read as a code point (Latin-1), so 0x80..=0xFF take
            // two bytes. Flipping a byte of a multi-byte character orphans its partners.
            let flipped = char::from(byte ^ (1u8 << bit));
            let mut buf = [0u8; 4];
            let flipped = flipped.encode_utf8(&mut buf).as_bytes();
            out.push(Variant::concat_bytes(&[
                &bytes[..i],
                flipped,
                &bytes[i + 1..],
            ]));
        }
    }
    out
}

fn concat_into(out: &mut Vec<Variant>, a: &str, b: &str, c: &str) {
    push3(out, a, b, c);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: fn(&str, &mut Vec<Variant>), t: &str) -> Vec<String> {
        let mut out = Vec::new();
        f(t, &mut out);
        crate::generate::finish(out, t)
            .into_iter()
            .map(|v| v.to_string())
            .collect()
    }

    #[test]
    fn spec_examples() {
        assert_eq!(
            run(character_omission, "google"),
            ["gogle", "googe", "googl", "goole", "oogle"]
        );
        assert!(run(character_omission, "a").is_empty());
        assert_eq!(
            run(character_swapping, "日本.jp"),
            ["日.本jp", "日本.pj", "日本j.p", "本日.jp"]
        );
        assert_eq!(
            run(character_repetition, "x.co"),
            ["x..co", "x.cco", "x.coo", "xx.co"]
        );
        assert_eq!(run(hyphen_insertion, "-"), ["--"]);
        assert_eq!(
            run(hyphen_omission, "-a-.com"),
            ["-a.com", "a-.com", "a.com"]
        );
        assert_eq!(run(dot_insertion, "ab"), ["a.b"]);
        assert!(run(dot_insertion, ".a").is_empty());
        assert_eq!(run(dot_omission, ".."), ["."]);
        assert_eq!(
            run(dot_hyphen_substitution, "-a-.com"),
            ["-a--com", "-a..com", ".a-.com", ".a..com"]
        );
        assert_eq!(run(token_order_swap, "2024example"), ["example2024"]);
        assert_eq!(
            run(token_order_swap, "a--b.com"),
            ["a--com.b", "b--a.com", "b--com.a", "com--a.b", "com--b.a"]
        );
        assert!(run(token_order_swap, "-my-lib").is_empty());
        assert_eq!(run(token_order_swap, "shop-online24.com").len(), 23);
    }

    #[test]
    fn split_tokens_rejoins() {
        for t in ["a--b.com", "shop-online24.com", "x", "日本.jp", "a1b2"] {
            let (parts, seps) = split_tokens(t).unwrap();
            let mut s = String::new();
            for (i, p) in parts.iter().enumerate() {
                s.push_str(p);
                s.push_str(seps.get(i).copied().unwrap_or(""));
            }
            assert_eq!(s, t);
        }
        assert!(split_tokens("").is_none());
        assert!(split_tokens("a.").is_none());
        assert!(split_tokens("...").is_none());
    }

    #[test]
    fn bit_flips_are_byte_exact() {
        let got: Vec<String> = crate::generate::finish(bit_flipping("a"), "a")
            .iter()
            .map(|v| v.to_string())
            .collect();
        assert_eq!(got, ["!", "A", "`", "c", "e", "i", "q", "\u{e1}"]);
        let u = bit_flipping("ü");
        assert_eq!(u.len(), 16);
        assert!(u.iter().all(|v| !v.is_utf8()));
        assert!(u.iter().any(|v| v.as_bytes() == [0xC3, 0xC2, 0xBD]));
    }
}
