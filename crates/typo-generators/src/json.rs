//! Go's JSON string escaping (`encoding/json`, HTML escaping on, `\u2028`/`\u2029` escaped),
//! byte for byte: the corpus harness writes its JSONL with it, and the generators' output
//! estimate ([`Task::output_estimate`](crate::Task::output_estimate)) counts the bytes it writes.
//! One implementation, so the estimate and the corpus can never disagree on a length.

use crate::Variant;
use crate::variant::INLINE;

/// Per byte: 0 = copy, 1 = escape (controls, `"`, `\\`, `<`, `>`, `&`), 2 = maybe U+2028/U+2029.
const fn escape_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = 1;
        i += 1;
    }
    t[b'"' as usize] = 1;
    t[b'\\' as usize] = 1;
    t[b'<' as usize] = 1;
    t[b'>' as usize] = 1;
    t[b'&' as usize] = 1;
    t[0xE2] = 2;
    t
}
const ESCAPE: [u8; 256] = escape_table();

/// Appends `s` as a JSON string literal, escaped exactly as Go's `encoding/json` does (HTML
/// escaping on).
pub fn push_json_str(out: &mut Vec<u8>, s: &str) {
    push_json_bytes(out, s.as_bytes());
}

/// [`push_json_str`] over bytes that may not be UTF-8 (a `bf` variant); returns whether they
/// are (if not, the bytes written are not JSON and the caller discards them).
pub fn push_json_bytes(out: &mut Vec<u8>, bytes: &[u8]) -> bool {
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let utf8 = push_json_content(out, bytes);
    out.push(b'"');
    utf8
}

/// The inside of [`push_json_bytes`]'s string (no quotes); returns whether `bytes` are UTF-8.
///
/// Nearly every member of a set is plain ASCII with nothing to escape: the whole member is
/// checked eight bytes at a time first and, when clean, copied in one go. Otherwise the bytes
/// up to the first one that needs a look are copied, and from there each byte that needs a look
/// is handled: escaped, or (not ASCII) checked as the start of a UTF-8 sequence and copied.
#[inline(always)]
fn push_json_content(out: &mut Vec<u8>, bytes: &[u8]) -> bool {
    match first_to_look_at(bytes, 0) {
        None => {
            out.extend_from_slice(bytes);
            true
        }
        Some(first) => escape_from(out, bytes, first),
    }
}

/// Appends the inside of `variant`'s JSON string (no quotes), escaped as [`push_json_bytes`]
/// escapes it; returns whether its bytes are UTF-8 (if not, the bytes written are not JSON and
/// the caller discards them). The members of a corpus's expected sets are written this way.
#[inline(always)]
pub fn push_json_member(out: &mut Vec<u8>, variant: &Variant) -> bool {
    // A short member with nothing to escape (nearly all): its whole inline block is copied (a
    // fixed size: stores, no call) and the padding cut off again.
    if let Some((block, len)) = variant.inline_parts()
        && inline_is_clean(block, len)
    {
        let at = out.len();
        out.extend_from_slice(block);
        out.truncate(at + len);
        return true;
    }
    push_json_content(out, variant.as_bytes())
}

/// The length of the UTF-8 sequence that starts `bytes` (with a byte of 0x80 or more), or `None`
/// when it is not a valid one (Unicode's table of well-formed sequences: no overlong forms, no
/// surrogates, nothing past U+10FFFF).
fn utf8_sequence(bytes: &[u8]) -> Option<usize> {
    let (len, second) = match *bytes.first()? {
        0xC2..=0xDF => (2, 0x80..=0xBF),
        0xE0 => (3, 0xA0..=0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80..=0xBF),
        0xED => (3, 0x80..=0x9F),
        0xF0 => (4, 0x90..=0xBF),
        0xF1..=0xF3 => (4, 0x80..=0xBF),
        0xF4 => (4, 0x80..=0x8F),
        _ => return None,
    };
    let rest = bytes.get(1..len)?;
    (second.contains(&rest[0]) && rest[1..].iter().all(|b| (0x80..=0xBF).contains(b)))
        .then_some(len)
}

/// Writes `bytes` escaped, knowing that `bytes[..first]` need nothing and `bytes[first]` needs a
/// look; returns whether `bytes` are UTF-8. Kept out of line: the clean path stays small.
#[inline(never)]
fn escape_from(out: &mut Vec<u8>, bytes: &[u8], first: usize) -> bool {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut utf8 = true;
    let mut start = 0;
    let mut next = Some(first);
    while let Some(i) = next {
        let b = bytes[i];
        let mut resume = i + 1;
        match ESCAPE[b as usize] {
            1 => {
                out.extend_from_slice(&bytes[start..i]);
                match b {
                    b'"' => out.extend_from_slice(b"\\\""),
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    b'\t' => out.extend_from_slice(b"\\t"),
                    0x08 => out.extend_from_slice(b"\\b"),
                    0x0c => out.extend_from_slice(b"\\f"),
                    _ => {
                        out.extend_from_slice(b"\\u00");
                        out.push(HEX[(b >> 4) as usize]);
                        out.push(HEX[(b & 0xf) as usize]);
                    }
                }
                start = resume;
            }
            // U+2028 and U+2029 (E2 80 A8/A9): valid JSON raw, but Go escapes them for
            // JavaScript's sake.
            2 if bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) =>
            {
                out.extend_from_slice(&bytes[start..i]);
                out.extend_from_slice(if bytes[i + 2] == 0xA8 {
                    b"\\u2028"
                } else {
                    b"\\u2029"
                });
                resume = i + 3;
                start = resume;
            }
            // Any other non-ASCII byte starts a sequence copied as it is (if it is one).
            _ => match utf8_sequence(&bytes[i..]) {
                Some(len) => resume = i + len,
                None => utf8 = false,
            },
        }
        next = first_to_look_at(bytes, resume);
    }
    out.extend_from_slice(&bytes[start..]);
    utf8
}

/// The first byte at or after `from` that needs a look (escaped, or not ASCII), eight at a time.
#[inline(always)]
fn first_to_look_at(bytes: &[u8], from: usize) -> Option<usize> {
    let n = bytes.len();
    if n < from + 8 {
        let rest = bytes.get(from..)?;
        return rest
            .iter()
            .position(|&b| b >= 0x80 || ESCAPE[b as usize] != 0)
            .map(|p| from + p);
    }
    let mut at = from;
    while at + 8 <= n {
        let look = needs_look(word_at(bytes, at));
        if look != 0 {
            return Some(at + (look.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    if at == n {
        return None;
    }
    // The last eight bytes, those before `at` masked off (they were looked at already).
    let seen = 8 * (8 - (n - at)) as u32;
    let look = needs_look(word_at(bytes, n - 8)) & (u64::MAX << seen);
    (look != 0).then(|| n - 8 + (look.trailing_zeros() / 8) as usize)
}

/// Whether the first `len` bytes of an inline block need no look (the zero padding after them
/// would look like control characters, so it is masked off).
#[inline(always)]
fn inline_is_clean(block: &[u8; INLINE], len: usize) -> bool {
    // The low `n` bytes of a word (all of it from 8 on).
    let low = |n: usize| {
        if n >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * n)) - 1
        }
    };
    let mut look = needs_look(word_at(block, 0)) & low(len);
    if len > 8 {
        look |= needs_look(word_at(block, 8)) & low(len - 8);
    }
    if len > 16 {
        look |= needs_look(word_at(block, 16)) & low(len - 16);
    }
    if len > 24 {
        // Bytes 22..30: the two already seen masked off, and the padding.
        look |= needs_look(word_at(block, INLINE - 8)) & low(len - 22) & !low(2);
    }
    look == 0
}

/// The eight bytes at `at`, little-endian (the caller checked they exist).
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    if let Some(eight) = bytes.get(at..at + 8) {
        word.copy_from_slice(eight);
    }
    u64::from_le_bytes(word)
}

/// The high bit of each byte of `w` that needs a look: below 0x20, `"`, `&`, `<`, `>`, `\`, or
/// not ASCII. Exact per byte (no carry crosses bytes: every sum below stays under 0x100).
#[inline(always)]
fn needs_look(w: u64) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let x = w & !HI;
    // High bit set when the byte is at least 0x20.
    let printable = x + LO * (0x80 - 0x20);
    // High bit set when the 7-bit value `v` is not zero.
    let nonzero = |v: u64| v + LO * 0x7f;
    // `"` and `&` differ in bit 2 only, `<` and `>` in bit 1 only.
    let not_quote_amp = nonzero((x & (LO * 0x7b)) ^ (LO * 0x22));
    let not_angle = nonzero((x & (LO * 0x7d)) ^ (LO * 0x3c));
    let not_backslash = nonzero(x ^ (LO * 0x5c));
    (!(printable & not_quote_amp & not_angle & not_backslash) | w) & HI
}

/// The bytes `s` takes inside a JSON string as `emit` writes it, quotes excluded.
pub(crate) fn escaped_str_len(s: &str) -> u64 {
    escaped_len(s.as_bytes()) as u64
}

/// The bytes `bytes` take inside a JSON string as written here, quotes excluded.
pub(crate) fn escaped_len(bytes: &[u8]) -> usize {
    match first_to_look_at(bytes, 0) {
        None => bytes.len(),
        Some(first) => {
            let mut out = Vec::with_capacity(bytes.len() + 8);
            escape_from(&mut out, bytes, first);
            out.len()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_of(s: &str) -> String {
        let mut out = Vec::new();
        push_json_str(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_like_go() {
        assert_eq!(json_of("a<b>&c"), r#""a\u003cb\u003e\u0026c""#);
        assert_eq!(
            json_of("\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}"),
            "\"\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}\""
        );
        assert_eq!(json_of("\u{2028}x\u{2029}"), r#""\u2028x\u2029""#);
        // Other characters starting with E2 stay raw.
        assert_eq!(json_of("€‚…"), "\"€‚…\"");
        assert_eq!(json_of("/é日本"), "\"/é日本\"");
    }

    /// Go's escaping one byte at a time: what the word-at-a-time encoder must produce.
    fn reference(bytes: &[u8]) -> (Vec<u8>, bool) {
        // Go's two-character escapes; other controls and `<`, `>`, `&` are `\u00XX`.
        let short = |b: u8| {
            [
                (b'"', "\\\""),
                (b'\\', "\\\\"),
                (b'\n', "\\n"),
                (b'\r', "\\r"),
                (b'\t', "\\t"),
                (0x08, "\\b"),
                (0x0c, "\\f"),
            ]
            .into_iter()
            .find(|&(c, _)| c == b)
            .map(|(_, e)| e.to_owned())
        };
        let mut raw = vec![b'"'];
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            let escaped = short(b)
                .or_else(|| (b < 0x20 || b"<>&".contains(&b)).then(|| format!("\\u{b:04x}")));
            let separator = (b == 0xE2
                && bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)))
            .then(|| format!("\\u20{:02x}", bytes[i + 2] - 0x80));
            match (escaped, separator) {
                (Some(e), _) => raw.extend_from_slice(e.as_bytes()),
                (None, Some(e)) => {
                    raw.extend_from_slice(e.as_bytes());
                    i += 2;
                }
                (None, None) => raw.push(b),
            }
            i += 1;
        }
        raw.push(b'"');
        (raw, std::str::from_utf8(bytes).is_ok())
    }

    #[test]
    fn every_byte_at_every_position_escapes_like_the_reference() {
        let plain = b"abcdefghijklmnopqrstuvwx";
        for len in 0..=plain.len() {
            for pos in 0..len {
                for b in 0..=255u8 {
                    let mut bytes = plain[..len].to_vec();
                    bytes[pos] = b;
                    // And a second special later, when there is room.
                    for second in [None, Some(b'"'), Some(0xE2)] {
                        let mut bytes = bytes.clone();
                        if let (Some(s), true) = (second, pos + 3 < len) {
                            bytes[pos + 3] = s;
                        }
                        let mut out = Vec::new();
                        let utf8 = push_json_bytes(&mut out, &bytes);
                        assert_eq!((out, utf8), reference(&bytes), "{bytes:?}");
                    }
                }
            }
        }
        // Sequences at the edges of well-formedness (overlong, surrogate, past U+10FFFF,
        // truncated) and their valid neighbours, at every offset.
        let sequences: [&[u8]; 10] = [
            &[0xED, 0xA0, 0x80],
            &[0xED, 0x9F, 0xBF],
            &[0xE0, 0x80, 0x80],
            &[0xE0, 0xA0, 0x80],
            &[0xC0, 0x80],
            &[0xC2, 0x80],
            &[0xF4, 0x90, 0x80, 0x80],
            &[0xF4, 0x8F, 0xBF, 0xBF],
            &[0xF0, 0x9F, 0x98, 0x80],
            &[0xE2, 0x82],
        ];
        for seq in sequences {
            for pos in 0..12 {
                let mut bytes = b"abcdefghijkl".to_vec();
                bytes.splice(pos..pos, seq.iter().copied());
                let mut out = Vec::new();
                let utf8 = push_json_bytes(&mut out, &bytes);
                assert_eq!((out, utf8), reference(&bytes), "{bytes:?}");
            }
        }
        // U+2028/U+2029 and look-alike prefixes, at every offset around a word boundary.
        for pos in 0..12 {
            for tail in [
                &[0x80u8, 0xA8][..],
                &[0x80, 0xA9],
                &[0x80, 0xAA],
                &[0x81, 0xA8],
                &[0x80],
            ] {
                let mut bytes = b"abcdefghijkl".to_vec();
                bytes.truncate(pos);
                bytes.push(0xE2);
                bytes.extend_from_slice(tail);
                bytes.extend_from_slice(b"xyz");
                let mut out = Vec::new();
                let utf8 = push_json_bytes(&mut out, &bytes);
                assert_eq!((out, utf8), reference(&bytes), "{bytes:?}");
            }
        }
    }

    proptest::proptest! {
        /// Arbitrary bytes and arbitrary text (every UTF-8 length, surrogate and overlong
        /// neighbours among the bytes): the same output and the same verdict on UTF-8.
        #[test]
        fn any_bytes_escape_like_the_reference(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
            text in proptest::prelude::any::<String>(),
        ) {
            for b in [&bytes[..], text.as_bytes()] {
                let mut out = Vec::new();
                let utf8 = push_json_bytes(&mut out, b);
                proptest::prop_assert_eq!((out, utf8), reference(b));
            }
        }
    }

    #[test]
    fn word_scan_agrees_with_the_byte_table() {
        // Every special byte at every position of a 17-byte string, among plain and non-ASCII
        // neighbours.
        for special in [0u8, 0x1f, b'"', b'\\', b'<', b'>', b'&', 0x7f, b'a'] {
            for pos in 0..17 {
                for filler in ["abcdefghijklmnopq", "ééééééééé"] {
                    let mut bytes = filler.as_bytes()[..17].to_vec();
                    bytes[pos] = special;
                    let Ok(s) = String::from_utf8(bytes) else {
                        continue;
                    };
                    let mut want = String::from("\"");
                    for c in s.chars() {
                        match c {
                            '"' => want.push_str("\\\""),
                            '\\' => want.push_str("\\\\"),
                            '<' => want.push_str("\\u003c"),
                            '>' => want.push_str("\\u003e"),
                            '&' => want.push_str("\\u0026"),
                            c if (c as u32) < 0x20 => {
                                want.push_str(&format!("\\u{:04x}", c as u32))
                            }
                            c => want.push(c),
                        }
                    }
                    want.push('"');
                    assert_eq!(json_of(&s), want, "{s:?}");
                }
            }
        }
    }
}
