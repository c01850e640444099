//! [`Variant`]: one generated name, kept byte for byte.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// One generated name: a member of a task's expected set.
///
/// Every generator but `bf` produces valid UTF-8; `bf` flips bits of the UTF-8 encoding and can
/// leave orphaned continuation bytes behind, and those bytes are part of the truth. So a variant is
/// either a `String` (the common case: no copy, no re-validation, [`as_str`](Self::as_str) is free)
/// or, only when the bytes are **not** valid UTF-8, a boxed byte slice. The representation is
/// canonical (valid UTF-8 is always stored as text), so equality, ordering and hashing all work on
/// the raw bytes, and the order is the bytewise order upstream sorts by (Go `sort.Strings`).
///
/// ```
/// use typo_tasks::Variant;
/// let a = Variant::from("ab".to_string());
/// let b = Variant::from_bytes(vec![0x61, 0xC3]); // not UTF-8
/// assert_eq!(a.as_str(), Some("ab"));
/// assert_eq!(b.as_str(), None);
/// assert!(a < b); // bytewise: "a" == "a", then 0x62 < 0xC3
/// ```
#[derive(Clone)]
pub struct Variant(Repr);

#[derive(Clone)]
enum Repr {
    Text(String),
    /// Invariant: never valid UTF-8.
    Raw(Box<[u8]>),
}

impl Variant {
    /// Wraps raw bytes; valid UTF-8 becomes text without copying.
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        match String::from_utf8(bytes) {
            Ok(text) => Variant(Repr::Text(text)),
            Err(err) => Variant(Repr::Raw(err.into_bytes().into_boxed_slice())),
        }
    }

    /// The name as text, or `None` when its bytes are not valid UTF-8 (only `bf` makes such names).
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::Text(text) => Some(text),
            Repr::Raw(_) => None,
        }
    }

    /// The raw bytes of the name, exactly as generated.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Text(text) => text.as_bytes(),
            Repr::Raw(bytes) => bytes,
        }
    }

    /// Whether the name is valid UTF-8 (and so survives a JSON string).
    pub fn is_utf8(&self) -> bool {
        matches!(self.0, Repr::Text(_))
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
            Repr::Text(text) => text.into_bytes(),
            Repr::Raw(bytes) => bytes.into_vec(),
        }
    }

    /// The text, or the variant back as the error when it is not valid UTF-8.
    pub fn into_string(self) -> Result<String, Self> {
        match self.0 {
            Repr::Text(text) => Ok(text),
            raw @ Repr::Raw(_) => Err(Variant(raw)),
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

impl From<String> for Variant {
    fn from(text: String) -> Self {
        Variant(Repr::Text(text))
    }
}

impl From<&str> for Variant {
    fn from(text: &str) -> Self {
        Variant(Repr::Text(text.to_owned()))
    }
}

impl From<Vec<u8>> for Variant {
    fn from(bytes: Vec<u8>) -> Self {
        Variant::from_bytes(bytes)
    }
}

impl PartialEq for Variant {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
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
        self.as_bytes().cmp(other.as_bytes())
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
        match &self.0 {
            Repr::Text(text) => fmt::Debug::fmt(text, f),
            Repr::Raw(_) => write!(f, "Variant(hex {})", self.to_hex()),
        }
    }
}

/// Text as is; invalid bytes are shown lossily (U+FFFD), so use [`Variant::as_bytes`] to compare.
impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Text(text) => f.write_str(text),
            Repr::Raw(bytes) => f.write_str(&String::from_utf8_lossy(bytes)),
        }
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
    fn order_is_bytewise_across_representations() {
        let mut vs = vec![
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
