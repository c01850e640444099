//! Emitting expected sets directly in sorted order, for the high-volume tasks.
//!
//! Sorting is most of the cost of the big sets (`gi` and `gr` give ~350 members per name), and
//! for one-character edits it is avoidable. Take a substitution `C(i, k) = t[..i] + k + t[i+1..]`
//! with `k != t[i]`: against any edit at a later position `j > i`, the two strings agree up to
//! position `i`, where one has `k` and the other still has `t[i]`. So the order is decided there:
//! every `C(i, k)` with `k < t[i]` precedes every edit at `j > i`, and every one with `k > t[i]`
//! follows them all. Hence the sorted set is
//!
//! ```text
//! low(0), low(1), ..., low(n-1), high(n-1), ..., high(1), high(0)
//! ```
//!
//! where `low(i)` is the edits at `i` whose new first character is below `t[i]`, in order, and
//! `high(i)` those above. Code-point order is bytewise order for UTF-8, and no UTF-8 encoding is
//! a prefix of another, so the argument holds byte for byte. An insertion at gap `g` is the same
//! shape with `t[g]` as the pivot; inserting `k == t[g]` gives the same string as inserting it at
//! gap `g + 1`, so each such insertion is moved right until it is not (or reaches the end, where
//! every insertion `t + k` sits between `low(n-1)` and `high(n-1)`). Distinct edits that survive
//! this are distinct strings, none equal to the input, so no dedup is needed either.
//!
//! Every function here appends a finished set (sorted, unique, no `""`, not the input) to an
//! empty `out`. Unit tests check each against the generic generate-then-sort path.

use super::{concat3, push3, split_chars};
use crate::Variant;
use crate::variant::Splicer;

/// Substitutions of each character `c` at each position by each `k` in `set(c)` (sorted,
/// unique); `k == c` is skipped.
pub(crate) fn substitute_chars<'a>(
    t: &str,
    set: impl Fn(char) -> &'a [char],
    out: &mut Vec<Variant>,
) {
    let (bounds, chars) = split_chars(t);
    out.reserve(chars.iter().map(|&c| set(c).len()).sum());
    let sp = Splicer::new(t);
    for (i, &c) in chars.iter().enumerate() {
        let s = set(c);
        let low = &s[..s.partition_point(|&k| k < c)];
        if !low.is_empty() {
            let mut e = sp.at(bounds[i], bounds[i + 1]);
            for &k in low {
                e.push_with(k, out);
            }
        }
    }
    for (i, &c) in chars.iter().enumerate().rev() {
        let s = set(c);
        let high = &s[s.partition_point(|&k| k <= c)..];
        if !high.is_empty() {
            let mut e = sp.at(bounds[i], bounds[i + 1]);
            for &k in high {
                e.push_with(k, out);
            }
        }
    }
}

/// Insertions of every `k` of `set` (sorted, unique) into every gap of a non-empty `t`.
pub(crate) fn insert_chars_everywhere(t: &str, set: &[char], out: &mut Vec<Variant>) {
    if t.is_empty() {
        return;
    }
    let (bounds, chars) = split_chars(t);
    out.reserve(set.len() * bounds.len());
    let sp = Splicer::new(t);
    // `k == t[g]` is skipped at `g`: it is the same string as inserting `k` at `g + 1`, which
    // (every gap having the same set) is emitted there.
    for (g, &c) in chars.iter().enumerate() {
        let mut e = sp.at(bounds[g], bounds[g]);
        for &k in &set[..set.partition_point(|&k| k < c)] {
            e.push_with(k, out);
        }
    }
    let mut e = sp.at(t.len(), t.len());
    for &k in set {
        e.push_with(k, out);
    }
    for (g, &c) in chars.iter().enumerate().rev() {
        let mut e = sp.at(bounds[g], bounds[g]);
        for &k in &set[set.partition_point(|&k| k <= c)..] {
            e.push_with(k, out);
        }
    }
}

/// Insertions of the characters of `set(g)` at each gap `g` (`0..=n`). Each set must be sorted,
/// unique and, for `g < n`, must not contain `t[g]` (that insertion is the same string as one at
/// `g + 1`; callers move it there).
pub(crate) fn insert_char_sets<'a>(
    t: &str,
    set: impl Fn(usize) -> &'a [char],
    out: &mut Vec<Variant>,
) {
    let (bounds, chars) = split_chars(t);
    let n = chars.len();
    out.reserve((0..=n).map(|g| set(g).len()).sum());
    let sp = Splicer::new(t);
    for (g, &c) in chars.iter().enumerate() {
        let s = set(g);
        let low = &s[..s.partition_point(|&k| k < c)];
        if !low.is_empty() {
            let mut e = sp.at(bounds[g], bounds[g]);
            for &k in low {
                e.push_with(k, out);
            }
        }
    }
    let mut e = sp.at(t.len(), t.len());
    for &k in set(n) {
        e.push_with(k, out);
    }
    for (g, &c) in chars.iter().enumerate().rev() {
        let s = set(g);
        let high = &s[s.partition_point(|&k| k <= c)..];
        if !high.is_empty() {
            let mut e = sp.at(bounds[g], bounds[g]);
            for &k in high {
                e.push_with(k, out);
            }
        }
    }
}

/// Insertions given as `(gap, k)` pairs (any order, duplicates allowed; `gap <= n`): moves each
/// to its rightmost equivalent gap, groups by gap and emits with [`insert_char_sets`]. The
/// general (sorting) form; `aci` builds its sets without sorting.
#[cfg(test)]
pub(crate) fn insert_chars_at(t: &str, pairs: &mut Vec<(usize, char)>, out: &mut Vec<Variant>) {
    let chars: Vec<char> = t.chars().collect();
    let n = chars.len();
    for (gap, k) in pairs.iter_mut() {
        while *gap < n && chars[*gap] == *k {
            *gap += 1;
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let sets: Vec<Vec<char>> = (0..=n)
        .map(|g| pairs.iter().filter(|p| p.0 == g).map(|p| p.1).collect())
        .collect();
    insert_char_sets(t, |g| sets.get(g).map_or(&[][..], Vec::as_slice), out);
}

/// `co`, sorted: deleting rune `i` is decided against later deletions by `t[i + 1]` vs `t[i]`
/// (and equal neighbours give the same string, emitted once, at the later position).
pub(crate) fn deletions(t: &str, out: &mut Vec<Variant>) {
    let (b, chars) = split_chars(t);
    let n = chars.len();
    if n < 2 {
        return;
    }
    let delete =
        |i: usize, out: &mut Vec<Variant>| Variant::push_concat(out, &[&t[..b[i]], &t[b[i + 1]..]]);
    for i in 0..n - 1 {
        if chars[i + 1] < chars[i] {
            delete(i, out);
        }
    }
    delete(n - 1, out);
    for i in (0..n - 1).rev() {
        if chars[i + 1] > chars[i] {
            delete(i, out);
        }
    }
}

/// `cs`, sorted: swapping runes `i` and `i + 1` is decided at `i` by the same comparison; equal
/// neighbours swap to the input itself and are skipped.
pub(crate) fn swaps(t: &str, out: &mut Vec<Variant>) {
    let (b, chars) = split_chars(t);
    let n = chars.len();
    let swap = |i: usize, out: &mut Vec<Variant>| {
        Variant::push_concat(
            out,
            &[
                &t[..b[i]],
                &t[b[i + 1]..b[i + 2]],
                &t[b[i]..b[i + 1]],
                &t[b[i + 2]..],
            ],
        );
    };
    for i in 0..n.saturating_sub(1) {
        if chars[i + 1] < chars[i] {
            swap(i, out);
        }
    }
    for i in (0..n.saturating_sub(1)).rev() {
        if chars[i + 1] > chars[i] {
            swap(i, out);
        }
    }
}

/// `cr`, sorted: repeating rune `i` inserts a copy of it at gap `i + 1`; moved right past equal
/// runes, each run of equal runes gives one insertion, at the gap after the run.
pub(crate) fn repetitions(t: &str, out: &mut Vec<Variant>) {
    let chars: Vec<char> = t.chars().collect();
    insert_char_sets(
        t,
        |g| match g.checked_sub(1).and_then(|p| chars.get(p)) {
            Some(prev) if chars.get(g) != Some(prev) => std::slice::from_ref(prev),
            _ => &[],
        },
        out,
    );
}

/// `di`, sorted: a dot at every inner gap (the candidates at both ends start or end with a dot,
/// and an input that does already gives nothing), moved right past dots.
pub(crate) fn inner_dots(t: &str, out: &mut Vec<Variant>) {
    if t.is_empty() || t.starts_with('.') || t.ends_with('.') {
        return;
    }
    let chars: Vec<char> = t.chars().collect();
    let n = chars.len();
    insert_char_sets(
        t,
        |g| {
            if g >= 1 && g < n && chars[g] != '.' {
                &['.']
            } else {
                &[]
            }
        },
        out,
    );
}

/// One character's replacement strings, prepared once for [`substitute_prepared`]: split by
/// how their first character compares with the character they replace, each part sorted and
/// unique.
pub(crate) struct Replacements {
    low: Vec<String>,
    high: Vec<String>,
    /// Empty, or starting with the replaced character itself (never equal to it): these do not
    /// fit the sorted pattern and are placed by binary search.
    odd: Vec<String>,
    /// Whether some value of `low` (or `high`) is a proper prefix of another: then the order of
    /// the two edits depends on what follows them, and that part is sorted per call.
    sort_low: bool,
    sort_high: bool,
}

impl Replacements {
    pub(crate) fn new(c: char, values: &[String]) -> Self {
        let mut all: Vec<String> = values.to_vec();
        all.sort_unstable();
        all.dedup();
        let (mut low, mut high, mut odd) = (Vec::new(), Vec::new(), Vec::new());
        for v in all {
            match v.chars().next() {
                Some(f) if f < c => low.push(v),
                Some(f) if f > c => high.push(v),
                // `v == c` would rebuild the input, which the oracle drops anyway.
                _ if v.chars().eq([c]) => {}
                _ => odd.push(v),
            }
        }
        let has_prefix = |list: &[String]| list.windows(2).any(|w| w[1].starts_with(w[0].as_str()));
        Replacements {
            sort_low: has_prefix(&low),
            sort_high: has_prefix(&high),
            low,
            high,
            odd,
        }
    }
}

/// [`substitute_strs`] over prepared replacements: no per-call sorting unless a part needs it.
pub(crate) fn substitute_prepared<'a>(
    t: &str,
    table: impl Fn(char) -> Option<&'a Replacements>,
    out: &mut Vec<Variant>,
) {
    let (bounds, chars) = split_chars(t);
    out.reserve(
        chars
            .iter()
            .filter_map(|&c| table(c))
            .map(|r| r.low.len() + r.high.len())
            .sum(),
    );
    let sp = Splicer::new(t);
    let emit = |i: usize, values: &[String], sort: bool, out: &mut Vec<Variant>| {
        if values.is_empty() {
            return;
        }
        let start = out.len();
        let mut e = sp.at(bounds[i], bounds[i + 1]);
        for v in values {
            let mut it = v.chars();
            match (it.next(), it.next()) {
                (Some(k), None) => e.push_with(k, out),
                _ => push3(out, &t[..bounds[i]], v, &t[bounds[i + 1]..]),
            }
        }
        if sort {
            sort_dedup_tail(out, start);
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        if let Some(r) = table(c) {
            emit(i, &r.low, r.sort_low, out);
        }
    }
    for (i, &c) in chars.iter().enumerate().rev() {
        if let Some(r) = table(c) {
            emit(i, &r.high, r.sort_high, out);
        }
    }
    for (i, &c) in chars.iter().enumerate() {
        for v in table(c).map_or(&[][..], |r| &r.odd) {
            let candidate = concat3(&t[..bounds[i]], v, &t[bounds[i + 1]..]);
            insert_sorted(out, candidate, t);
        }
    }
}

/// Inserts `v` into the finished set `out` unless it is there already, empty, or `t`.
pub(crate) fn insert_sorted(out: &mut Vec<Variant>, v: Variant, t: &str) {
    if v.is_empty() || v.as_bytes() == t.as_bytes() {
        return;
    }
    if let Err(at) = out.binary_search(&v) {
        out.insert(at, v);
    }
}

/// Substitutions of each character `c` by each string of `values(c)` (any order, duplicates
/// allowed): the unprepared form of [`substitute_prepared`], kept as its reference in tests. A value that starts with `c` itself (or is empty) does not fit the pattern and is
/// placed by binary search instead; those are rare.
#[cfg(test)]
pub(crate) fn substitute_strs<'a>(
    t: &str,
    values: impl Fn(char) -> &'a [String],
    out: &mut Vec<Variant>,
) {
    let (bounds, chars) = split_chars(t);
    let mut odd: Vec<Variant> = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        let (head, tail) = (&t[..bounds[i]], &t[bounds[i + 1]..]);
        let start = out.len();
        for v in values(c) {
            match v.chars().next() {
                Some(f) if f < c => push3(out, head, v, tail),
                Some(f) if f > c => {}
                _ => odd.push(concat3(head, v, tail)),
            }
        }
        sort_dedup_tail(out, start);
    }
    for (i, &c) in chars.iter().enumerate().rev() {
        let (head, tail) = (&t[..bounds[i]], &t[bounds[i + 1]..]);
        let start = out.len();
        for v in values(c) {
            if v.chars().next().is_some_and(|f| f > c) {
                push3(out, head, v, tail);
            }
        }
        sort_dedup_tail(out, start);
    }
    for v in odd {
        if v.is_empty() || v.as_bytes() == t.as_bytes() {
            continue;
        }
        if let Err(at) = out.binary_search(&v) {
            out.insert(at, v);
        }
    }
}

/// `bf` for an ASCII `t`: every flip of an ASCII byte is a whole character (bit 7 gives the
/// two-byte U+0080..=U+00FF, which sorts above every ASCII byte).
pub(crate) fn bit_flips_ascii(t: &str, out: &mut Vec<Variant>) {
    let bytes = t.as_bytes();
    out.reserve(bytes.len() * 8);
    let sp = Splicer::new(t);
    let flips = |b: u8| {
        let mut f: [u8; 8] = std::array::from_fn(|bit| b ^ (1u8 << bit));
        f.sort_unstable();
        f
    };
    for (i, &b) in bytes.iter().enumerate() {
        let mut e = sp.at(i, i + 1);
        for v in flips(b).into_iter().filter(|&v| v < b) {
            e.push_with(char::from(v), out);
        }
    }
    for (i, &b) in bytes.iter().enumerate().rev() {
        let mut e = sp.at(i, i + 1);
        for v in flips(b).into_iter().filter(|&v| v > b) {
            e.push_with(char::from(v), out);
        }
    }
}

/// Sorts and dedups `out[start..]` in place.
fn sort_dedup_tail(out: &mut Vec<Variant>, start: usize) {
    let tail = &mut out[start..];
    if tail.len() < 2 {
        return;
    }
    tail.sort_unstable();
    let mut write = start + 1;
    for read in start + 1..out.len() {
        if out[read] != out[write - 1] {
            out.swap(write, read);
            write += 1;
        }
    }
    out.truncate(write);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::finish;

    const INPUTS: [&str; 14] = [
        "",
        "a",
        "aa",
        "ab",
        "ba",
        "google.com",
        "aaa-bbb",
        "zz",
        "münchen",
        "日本.jp",
        "a\u{301}",
        "ŉ",
        "mississippi",
        "z\u{10FFFF}a",
    ];

    fn generic(t: &str, raw: Vec<Variant>) -> Vec<Variant> {
        finish(raw, t)
    }

    fn az() -> Vec<char> {
        let mut v: Vec<char> = ('a'..='z').collect();
        v.extend(['-', 'ü', '本']);
        v.sort_unstable();
        v
    }

    #[test]
    fn substitute_chars_is_the_sorted_set() {
        let set = az();
        for t in INPUTS {
            let mut fast = Vec::new();
            substitute_chars(t, |_| &set, &mut fast);
            let mut raw = Vec::new();
            for (i, c) in t.char_indices() {
                for k in &set {
                    raw.push(concat3(&t[..i], &k.to_string(), &t[i + c.len_utf8()..]));
                }
            }
            assert_eq!(fast, generic(t, raw), "{t:?}");
        }
    }

    #[test]
    fn insert_chars_everywhere_is_the_sorted_set() {
        let set = az();
        for t in INPUTS {
            let mut fast = Vec::new();
            insert_chars_everywhere(t, &set, &mut fast);
            let mut raw = Vec::new();
            for k in &set {
                crate::generate::rules::insert_everywhere(t, &k.to_string(), &mut raw);
            }
            assert_eq!(fast, generic(t, raw), "{t:?}");
        }
    }

    #[test]
    fn insert_chars_at_is_the_sorted_set() {
        for t in INPUTS {
            let n = t.chars().count();
            // A deterministic scatter of gaps and characters, including ones equal to neighbours.
            let chars: Vec<char> = t.chars().chain(['a', 'b', 'z', '0']).collect();
            let mut pairs: Vec<(usize, char)> = (0..=n)
                .flat_map(|g| {
                    chars
                        .iter()
                        .enumerate()
                        .filter(move |(j, _)| (g + j) % 3 != 1)
                        .map(move |(_, &k)| (g, k))
                })
                .collect();
            let mut raw = Vec::new();
            let b = crate::generate::boundaries(t);
            for &(g, k) in &pairs {
                raw.push(concat3(&t[..b[g]], &k.to_string(), &t[b[g]..]));
            }
            let mut fast = Vec::new();
            insert_chars_at(t, &mut pairs, &mut fast);
            assert_eq!(fast, generic(t, raw), "{t:?}");
        }
    }

    /// Every rune of `t` replaced by every value, the plain way.
    fn substitutions(t: &str, values: &[String]) -> Vec<Variant> {
        let mut raw = Vec::new();
        for (i, c) in t.char_indices() {
            for v in values {
                raw.push(concat3(&t[..i], v, &t[i + c.len_utf8()..]));
            }
        }
        raw
    }

    #[test]
    fn substitute_strs_is_the_sorted_set() {
        let values: Vec<String> = ["", "a", "aa", "rn", "b\u{314}\"", "0", "ü", "b", "ab", "a"]
            .map(String::from)
            .to_vec();
        for t in INPUTS {
            let mut fast = Vec::new();
            substitute_strs(t, |_| &values, &mut fast);
            assert_eq!(fast, generic(t, substitutions(t, &values)), "{t:?}");
        }
    }

    #[test]
    fn substitute_prepared_is_the_sorted_set() {
        let values: Vec<String> = [
            "",
            "a",
            "aa",
            "rn",
            "r",
            "b\u{314}\"",
            "0",
            "ü",
            "b",
            "ab",
            "a",
            "本",
            "\u{10000}",
        ]
        .map(String::from)
        .to_vec();
        let chars: Vec<char> = INPUTS
            .iter()
            .flat_map(|t| t.chars())
            .chain(['a', 'b', 'r'])
            .collect();
        let prepared: Vec<(char, Replacements)> = chars
            .iter()
            .map(|&c| (c, Replacements::new(c, &values)))
            .collect();
        let table = |c: char| prepared.iter().find(|(k, _)| *k == c).map(|(_, r)| r);
        for t in INPUTS.iter().copied().chain([
            "rrr",
            "barn",
            "日本日本日本日本日本日本日本日本日本日本",
        ]) {
            let mut fast = Vec::new();
            substitute_prepared(t, table, &mut fast);
            assert_eq!(fast, generic(t, substitutions(t, &values)), "{t:?}");
        }
    }

    #[test]
    fn rule_fast_paths_are_the_sorted_sets() {
        use crate::generate::rules;
        let more = [
            "..", ".a.", "a..b", "a.b.c", "aab", "abba", "ba.ab", "-a-", "x",
        ];
        for t in INPUTS.iter().copied().chain(more) {
            type Gen = fn(&str, &mut Vec<Variant>);
            let pairs: [(&str, Gen, Gen); 4] = [
                ("co", rules::character_omission, deletions),
                ("cs", rules::character_swapping, swaps),
                ("cr", rules::character_repetition, repetitions),
                ("di", rules::dot_insertion, inner_dots),
            ];
            for (id, reference, fast) in pairs {
                let mut raw = Vec::new();
                reference(t, &mut raw);
                let mut got = Vec::new();
                fast(t, &mut got);
                assert_eq!(got, generic(t, raw), "{id} {t:?}");
            }
        }
    }

    #[test]
    fn bit_flips_ascii_is_the_sorted_set() {
        for t in ["", "a", "example", "a b\t\u{7f}\0", "~~"] {
            let mut fast = Vec::new();
            bit_flips_ascii(t, &mut fast);
            assert_eq!(
                fast,
                generic(t, crate::generate::rules::bit_flipping(t)),
                "{t:?}"
            );
        }
    }

    /// Every sorted emitter agrees with its generic generate-then-sort reference on arbitrary
    /// text (the golden files only cover 457 names).
    mod laws {
        use proptest::prelude::*;

        use super::*;
        use crate::generate::{keys, rules, tables};

        fn text() -> impl Strategy<Value = String> {
            prop_oneof![
                any::<String>(),
                proptest::string::string_regex("[a-c.\\-]{0,12}").unwrap(),
                proptest::string::string_regex("[aeiou0-9qwp\\-. ]{0,16}").unwrap(),
            ]
        }

        fn check(t: &str) -> Result<(), TestCaseError> {
            type Gen = fn(&str, &mut Vec<Variant>);
            let pairs: [(&str, Gen, Gen); 4] = [
                ("co", rules::character_omission, deletions),
                ("cs", rules::character_swapping, swaps),
                ("cr", rules::character_repetition, repetitions),
                ("di", rules::dot_insertion, inner_dots),
            ];
            for (id, reference, fast) in pairs {
                let mut raw = Vec::new();
                reference(t, &mut raw);
                let mut got = Vec::new();
                fast(t, &mut got);
                prop_assert_eq!(got, finish(raw, t), "{} {:?}", id, t);
            }
            let set = az();
            let mut raw = Vec::new();
            for k in &set {
                rules::insert_everywhere(t, &k.to_string(), &mut raw);
            }
            let mut got = Vec::new();
            insert_chars_everywhere(t, &set, &mut got);
            prop_assert_eq!(got, finish(raw, t), "gi {:?}", t);

            let kb = keys::Neighbours::new(&crate::Keyboard::default().into_rows());
            let mut raw = Vec::new();
            keys::adjacent_insertion(t, &kb, &mut raw);
            let mut got = Vec::new();
            keys::adjacent_insertion_sorted(t, &kb, &mut got);
            prop_assert_eq!(got, finish(raw, t), "aci {:?}", t);
            let mut raw = Vec::new();
            keys::adjacent_substitution(t, &kb, &mut raw);
            let mut got = Vec::new();
            substitute_chars(t, |c| kb.sorted_of(c), &mut got);
            prop_assert_eq!(got, finish(raw, t), "acs {:?}", t);

            let vowels: Vec<String> = ["a", "e", "i", "o", "u"].map(String::from).to_vec();
            let mut raw = Vec::new();
            tables::vowel_swapping(t, &vowels, &mut raw);
            let mut got = Vec::new();
            tables::vowel_swapping_chars(t, &['a', 'e', 'i', 'o', 'u'], &mut got);
            prop_assert_eq!(got, finish(raw, t), "vs {:?}", t);

            let mut table = std::collections::BTreeMap::new();
            for (k, vs) in [
                ("a", &["", "a", "aa", "b", "\u{430}", "à"][..]),
                ("b", &["b\u{314}\"", "d", "lb", "ib"]),
                ("c", &["cl", "c", "ç", "("]),
            ] {
                table.insert(k.to_owned(), vs.iter().map(|v| (*v).to_owned()).collect());
            }
            let h = tables::Homoglyphs::new(&table);
            let mut raw = Vec::new();
            tables::homoglyph_swapping(t, &h, &mut raw);
            let mut got = Vec::new();
            substitute_prepared(t, |c| h.prepared(c), &mut got);
            prop_assert_eq!(got, finish(raw, t), "hr {:?}", t);

            if t.is_ascii() {
                let mut got = Vec::new();
                bit_flips_ascii(t, &mut got);
                prop_assert_eq!(got, finish(rules::bit_flipping(t), t), "bf {:?}", t);
            }
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn sorted_emitters_match_their_references(t in text()) {
                check(&t)?;
            }
        }
    }
}
