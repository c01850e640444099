//! [`Variant`]: one generated name, kept byte for byte.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// One generated name: a member of a task's expected set.
///
/// Every generator but `bf` produces valid UTF-8; `bf` flips bits of the UTF-8 encoding and can
/// leave orphaned continuation bytes behind, and those bytes are part of the truth. So a variant
/// holds raw bytes and never converts them lossily; [`as_str`](Self::as_str) is `None` exactly
/// when they are not valid UTF-8.
///
/// Why not `String` or `Vec<u8>`: an expected set has hundreds of members and a corpus millions,
/// nearly all of them short names. A variant of up to 30 bytes is stored inline (no heap
/// allocation, and sorting compares two big-endian integers instead of calling `memcmp`); longer
/// ones are one boxed `str` (valid UTF-8) or boxed bytes (not). Equality, ordering and hashing
/// are all on the raw bytes, whatever the representation, and the order is the bytewise order
/// upstream sorts by (Go `sort.Strings`, Rust's `Ord` on `[u8]`). Without `unsafe`, `as_str` on an
/// inline variant re-validates its (at most 30) bytes, which is cheap.
///
/// ```
/// use typo_generators::Variant;
/// let a = Variant::from("ab".to_string());
/// let b = Variant::from_bytes(vec![0x61, 0xC3]); // not UTF-8
/// assert_eq!(a.as_str(), Some("ab"));
/// assert_eq!(b.as_str(), None);
/// assert!(a < b); // bytewise: "a" == "a", then 0x62 < 0xC3
/// ```
#[derive(Clone)]
pub struct Variant(Repr);

/// The most bytes stored without a heap allocation.
pub(crate) const INLINE: usize = 30;

#[derive(Clone)]
enum Repr {
    /// Any bytes (valid UTF-8 or not), `len <= INLINE`; `buf[len..]` is always zero, which is what
    /// lets [`inline_key`] order by whole arrays.
    Inline { len: u8, buf: [u8; INLINE] },
    /// More than `INLINE` bytes of valid UTF-8.
    Text(Box<str>),
    /// More than `INLINE` bytes that are not valid UTF-8.
    Raw(Box<[u8]>),
}

/// The zero-padded inline bytes as two big-endian integers: comparing `(key, len)` is the
/// bytewise order (a zero pad only ties with a real NUL byte, and then the shorter is the prefix,
/// so it sorts first).
fn inline_key(buf: &[u8; INLINE]) -> (u128, u128) {
    let mut hi = [0u8; 16];
    let mut lo = [0u8; 16];
    hi.copy_from_slice(&buf[..16]);
    lo[..INLINE - 16].copy_from_slice(&buf[16..]);
    (u128::from_be_bytes(hi), u128::from_be_bytes(lo))
}

impl Variant {
    /// Wraps raw bytes (valid UTF-8 or not), kept exactly.
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        if let Some(v) = Self::try_inline(&[&bytes]) {
            return v;
        }
        match String::from_utf8(bytes) {
            Ok(text) => Variant(Repr::Text(text.into_boxed_str())),
            Err(err) => Variant(Repr::Raw(err.into_bytes().into_boxed_slice())),
        }
    }

    /// The concatenation of `parts`, built in place (one allocation at most).
    pub(crate) fn concat(parts: &[&str]) -> Self {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        if total <= INLINE {
            let mut buf = [0u8; INLINE];
            let mut at = 0;
            for p in parts {
                buf[at..at + p.len()].copy_from_slice(p.as_bytes());
                at += p.len();
            }
            return Variant(Repr::Inline {
                len: total as u8,
                buf,
            });
        }
        let mut s = String::with_capacity(total);
        for p in parts {
            s.push_str(p);
        }
        Variant(Repr::Text(s.into_boxed_str()))
    }

    /// Pushes the concatenation of `parts` onto `out`, writing a short one in place (see
    /// [`Edits::push_with`] for why not build-then-move).
    pub(crate) fn push_concat(out: &mut Vec<Variant>, parts: &[&str]) {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        if total > INLINE {
            out.push(Variant::concat(parts));
            return;
        }
        out.push(Variant(Repr::Inline {
            len: 0,
            buf: [0; INLINE],
        }));
        if let Some(Variant(Repr::Inline { len, buf })) = out.last_mut() {
            *len = total as u8;
            let mut at = 0;
            for p in parts {
                buf[at..at + p.len()].copy_from_slice(p.as_bytes());
                at += p.len();
            }
        }
    }

    /// The concatenation of byte `parts` (for `bf`), valid UTF-8 or not.
    pub(crate) fn concat_bytes(parts: &[&[u8]]) -> Self {
        if let Some(v) = Self::try_inline(parts) {
            return v;
        }
        Variant::from_bytes(parts.concat())
    }

    fn try_inline(parts: &[&[u8]]) -> Option<Self> {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        if total > INLINE {
            return None;
        }
        let mut buf = [0u8; INLINE];
        let mut at = 0;
        for p in parts {
            buf[at..at + p.len()].copy_from_slice(p);
            at += p.len();
        }
        Some(Variant(Repr::Inline {
            len: total as u8,
            buf,
        }))
    }

    /// The name as text, or `None` when its bytes are not valid UTF-8 (only `bf` makes such names).
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::Inline { .. } => std::str::from_utf8(self.as_bytes()).ok(),
            Repr::Text(text) => Some(text),
            Repr::Raw(_) => None,
        }
    }

    /// The raw bytes of the name, exactly as generated.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, buf } => &buf[..usize::from(*len)],
            Repr::Text(text) => text.as_bytes(),
            Repr::Raw(bytes) => bytes,
        }
    }

    /// The zero-padded bytes and the length of a short variant (stored inline), so a writer can
    /// copy a fixed-size block.
    pub(crate) fn inline_parts(&self) -> Option<(&[u8; INLINE], usize)> {
        match &self.0 {
            Repr::Inline { len, buf } => Some((buf, usize::from(*len))),
            _ => None,
        }
    }

    /// Whether the name is valid UTF-8 (and so survives a JSON string).
    pub fn is_utf8(&self) -> bool {
        self.as_str().is_some()
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether the name has no bytes (never true of a member of an expected set).
    pub fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }

    /// The raw bytes, consumed.
    pub fn into_bytes(self) -> Vec<u8> {
        match self.0 {
            Repr::Inline { len, buf } => buf[..usize::from(len)].to_vec(),
            Repr::Text(text) => text.into_string().into_bytes(),
            Repr::Raw(bytes) => bytes.into_vec(),
        }
    }

    /// The text, or the variant back as the error when it is not valid UTF-8.
    pub fn into_string(self) -> Result<String, Self> {
        match self.0 {
            Repr::Text(text) => Ok(text.into_string()),
            _ => match self.as_str() {
                Some(text) => Ok(text.to_owned()),
                None => Err(self),
            },
        }
    }

    /// Lowercase hex of the raw bytes (the encoding `expect_bf_bytes.jsonl` uses).
    pub fn to_hex(&self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(self.len() * 2);
        for &b in self.as_bytes() {
            out.push(char::from(DIGITS[usize::from(b >> 4)]));
            out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
        }
        out
    }
}

/// Builds many one-character edits `t[..start] + k + t[end..]` of one name, position by
/// position (see [`Edits`]).
pub(crate) struct Splicer<'a> {
    t: &'a str,
}

impl<'a> Splicer<'a> {
    pub(crate) fn new(t: &'a str) -> Self {
        Splicer { t }
    }
}

/// A lazily built edit template of one UTF-8 length.
#[derive(Clone, Copy)]
enum Slot {
    Unknown,
    /// The edit does not fit inline.
    TooLong,
    /// Length and bytes of the edit with zero bytes where `k` goes.
    Inline(u8, [u8; INLINE]),
}

/// The edits of one position of a [`Splicer`]'s name: an edit by a `k` of `L` UTF-8 bytes is a
/// copy of a template (built once per position and length, in place) with those bytes set, so
/// the common case is a few stores and no copying loop.
pub(crate) struct Edits<'s> {
    splicer: &'s Splicer<'s>,
    start: usize,
    end: usize,
    /// `templates[L - 1]`.
    templates: [Slot; 4],
}

impl Splicer<'_> {
    /// The edits replacing `t[start..end]`.
    pub(crate) fn at(&self, start: usize, end: usize) -> Edits<'_> {
        Edits {
            splicer: self,
            start,
            end,
            templates: [Slot::Unknown; 4],
        }
    }
}

impl Edits<'_> {
    #[inline(always)]
    fn template(&mut self, len: usize) -> Option<(u8, &[u8; INLINE])> {
        let t = self.splicer.t.as_bytes();
        let (start, end) = (self.start, self.end);
        let slot = self.templates.get_mut(len.checked_sub(1)?)?;
        if let Slot::Unknown = slot {
            let total = t.len() - (end - start) + len;
            *slot = if total > INLINE {
                Slot::TooLong
            } else {
                Slot::Inline(total as u8, [0; INLINE])
            };
            // Written where it stays, not built elsewhere and moved (see `push_with`).
            if let Slot::Inline(_, buf) = slot {
                buf[..start].copy_from_slice(&t[..start]);
                buf[start + len..total].copy_from_slice(&t[end..]);
            }
        }
        match slot {
            Slot::Inline(total, buf) => Some((*total, buf)),
            _ => None,
        }
    }

    /// Pushes `t[..start] + k + t[end..]`. An empty inline variant is pushed, and the template
    /// and then `k`'s bytes are written into it in place: building the value first and moving it
    /// in would read back a partly overwritten temporary, a store-forwarding stall that costs
    /// more than the whole edit.
    #[inline(always)]
    pub(crate) fn push_with(&mut self, k: char, out: &mut Vec<Variant>) {
        let mut kb = [0u8; 4];
        let k = k.encode_utf8(&mut kb).as_bytes();
        let start = self.start;
        if let Some((template_len, template)) = self.template(k.len()) {
            out.push(Variant(Repr::Inline {
                len: 0,
                buf: [0; INLINE],
            }));
            if let Some(Variant(Repr::Inline { len, buf })) = out.last_mut() {
                *len = template_len;
                *buf = *template;
                // Copies of a constant length (stores), not a call to `memcpy` per edit.
                match k.len() {
                    1 => {
                        if let Some(b) = buf.get_mut(start) {
                            *b = kb[0];
                        }
                    }
                    2 => copy_fixed::<2>(buf, start, &kb),
                    3 => copy_fixed::<3>(buf, start, &kb),
                    _ => copy_fixed::<4>(buf, start, &kb),
                }
            }
            return;
        }
        let t = self.splicer.t;
        out.push(Variant::concat_bytes(&[
            &t.as_bytes()[..self.start],
            k,
            &t.as_bytes()[self.end..],
        ]));
    }

    /// `t[..start] + k + t[end..]`.
    #[cfg(test)]
    pub(crate) fn with(&mut self, k: char) -> Variant {
        let mut out = Vec::with_capacity(1);
        self.push_with(k, &mut out);
        out.pop().unwrap_or_else(|| Variant::from(""))
    }
}

/// `buf[start..start + N] = k[..N]`, when it fits.
fn copy_fixed<const N: usize>(buf: &mut [u8; INLINE], start: usize, k: &[u8; 4]) {
    if let (Some(slot), Some(from)) = (buf.get_mut(start..start + N), k.get(..N)) {
        slot.copy_from_slice(from);
    }
}

impl From<String> for Variant {
    fn from(text: String) -> Self {
        if text.len() <= INLINE {
            return Variant::concat(&[&text]);
        }
        Variant(Repr::Text(text.into_boxed_str()))
    }
}

impl From<&str> for Variant {
    fn from(text: &str) -> Self {
        Variant::concat(&[text])
    }
}

impl From<Vec<u8>> for Variant {
    fn from(bytes: Vec<u8>) -> Self {
        Variant::from_bytes(bytes)
    }
}

impl PartialEq for Variant {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Repr::Inline { len: a, buf: x }, Repr::Inline { len: b, buf: y }) => a == b && x == y,
            _ => self.as_bytes() == other.as_bytes(),
        }
    }
}

impl Eq for Variant {}

impl PartialOrd for Variant {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Variant {
    fn cmp(&self, other: &Self) -> Ordering {
        match (&self.0, &other.0) {
            (Repr::Inline { len: a, buf: x }, Repr::Inline { len: b, buf: y }) => {
                inline_key(x).cmp(&inline_key(y)).then(a.cmp(b))
            }
            _ => self.as_bytes().cmp(other.as_bytes()),
        }
    }
}

impl Hash for Variant {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl PartialEq<str> for Variant {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Variant {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl fmt::Debug for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Some(text) => fmt::Debug::fmt(text, f),
            None => write!(f, "Variant(hex {})", self.to_hex()),
        }
    }
}

/// Text as is; invalid bytes are shown lossily (U+FFFD), so use [`Variant::as_bytes`] to compare.
impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(self.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_bytes_become_text() {
        let v = Variant::from_bytes(b"abc".to_vec());
        assert!(v.is_utf8());
        assert_eq!(v.as_str(), Some("abc"));
        assert_eq!(v, Variant::from("abc"));
    }

    #[test]
    fn invalid_bytes_are_kept_exactly() {
        let v = Variant::from_bytes(vec![0xC3, 0x3C]);
        assert!(!v.is_utf8());
        assert_eq!(v.as_bytes(), &[0xC3, 0x3C]);
        assert_eq!(v.to_hex(), "c33c");
        assert_eq!(v.clone().into_bytes(), vec![0xC3, 0x3C]);
        assert!(v.into_string().is_err());
    }

    #[test]
    fn long_variants_live_on_the_heap_and_compare_the_same() {
        let long = "x".repeat(40);
        let mut raw = long.clone().into_bytes();
        raw.push(0xFF);
        let a = Variant::from(long.clone());
        let b = Variant::from_bytes(raw.clone());
        assert_eq!(a.as_str(), Some(long.as_str()));
        assert_eq!(b.as_str(), None);
        assert!(a < b);
        assert_eq!(Variant::concat(&[&long[..20], &long[20..]]), a);
        assert_eq!(Variant::concat_bytes(&[&raw[..3], &raw[3..]]), b);
        assert_eq!(a.clone().into_string().unwrap(), long);
    }

    #[test]
    fn inline_order_handles_nul_and_prefixes() {
        let cases: [&[u8]; 7] = [b"", b"\0", b"\0\0", b"a", b"a\0", b"ab", &[0xFF; 30]];
        for x in cases {
            for y in cases {
                let (vx, vy) = (
                    Variant::from_bytes(x.to_vec()),
                    Variant::from_bytes(y.to_vec()),
                );
                assert_eq!(vx.cmp(&vy), x.cmp(y), "{x:?} {y:?}");
                assert_eq!(vx == vy, x == y);
            }
        }
        let long: Vec<u8> = vec![b'a'; 31];
        let short = Variant::from_bytes(vec![b'a'; 30]);
        assert!(short < Variant::from_bytes(long.clone()));
        assert!(Variant::from_bytes(vec![b'b']) > Variant::from_bytes(long));
    }

    #[test]
    fn splicer_matches_concat() {
        for t in [
            "",
            "a",
            "münchen",
            "日本.jp",
            &"x".repeat(29),
            &"y".repeat(32),
            &"z".repeat(40),
        ] {
            let sp = Splicer::new(t);
            let b: Vec<usize> = t.char_indices().map(|(i, _)| i).chain([t.len()]).collect();
            for &start in &b {
                for &end in b.iter().filter(|&&e| e >= start).take(2) {
                    let mut edits = sp.at(start, end);
                    for k in ['a', 'é', '本', '\u{10FFFF}', 'q', 'ü'] {
                        let want = Variant::concat(&[&t[..start], &k.to_string(), &t[end..]]);
                        let got = edits.with(k);
                        assert_eq!(got.as_bytes(), want.as_bytes());
                        assert_eq!(got, want);
                        assert_eq!(got.cmp(&want), Ordering::Equal);
                    }
                }
            }
        }
    }

    #[test]
    fn order_is_bytewise_across_representations() {
        let mut vs = [
            Variant::from("\u{e1}"), // C3 A1
            Variant::from_bytes(vec![0xC3, 0x3C]),
            Variant::from("b"),
            Variant::from("a"),
        ];
        vs.sort();
        let hex: Vec<String> = vs.iter().map(Variant::to_hex).collect();
        assert_eq!(hex, ["61", "62", "c33c", "c3a1"]);
    }
}
