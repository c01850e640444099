//! Text transforms: the functions corruptions and invariances are made of.

use std::fmt;
use std::sync::Arc;

use crate::text::{py_swapcase, py_whitespace_collapse};

/// The blake3 hash of a text, computed once per text and shared by every seeded transform applied
/// to it (a suite with four typo rates hashes each text once, not four times).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextHash(pub [u8; 32]);

impl TextHash {
    /// The blake3 hash of `text`.
    pub fn of(text: &str) -> TextHash {
        TextHash(*blake3::hash(text.as_bytes()).as_bytes())
    }
}

type PlainFn = dyn Fn(&str) -> String + Send + Sync;
type HashedFn = dyn Fn(&str, &TextHash) -> String + Send + Sync;

#[derive(Clone)]
enum Kind {
    Plain(Arc<PlainFn>),
    /// A transform whose randomness is seeded from the text's hash.
    Hashed(Arc<HashedFn>),
}

/// A deterministic text-to-text function (a corruption or an invariance rewrite).
///
/// Cheap to clone (shared). Profiles assume a transform is pure: the same text always gives the
/// same output, which is what lets them transform and predict each distinct text once.
#[derive(Clone)]
pub struct Transform {
    kind: Kind,
}

impl Transform {
    /// Wraps a function as a transform.
    pub fn new(f: impl Fn(&str) -> String + Send + Sync + 'static) -> Transform {
        Transform {
            kind: Kind::Plain(Arc::new(f)),
        }
    }

    /// Wraps a function that also reads the text's [`TextHash`] (for seeded randomness). Callers
    /// that transform the same text several times can compute the hash once
    /// ([`Transform::apply_with_hash`]).
    pub fn with_text_hash(
        f: impl Fn(&str, &TextHash) -> String + Send + Sync + 'static,
    ) -> Transform {
        Transform {
            kind: Kind::Hashed(Arc::new(f)),
        }
    }

    /// Applies the transform to one text.
    pub fn apply(&self, text: &str) -> String {
        match &self.kind {
            Kind::Plain(f) => f(text),
            Kind::Hashed(f) => f(text, &TextHash::of(text)),
        }
    }

    /// Whether the transform reads the text's hash (see [`Transform::with_text_hash`]).
    pub fn uses_text_hash(&self) -> bool {
        matches!(self.kind, Kind::Hashed(_))
    }

    /// Applies the transform with a precomputed `hash`, which must be [`TextHash::of`]`(text)`.
    pub fn apply_with_hash(&self, text: &str, hash: &TextHash) -> String {
        match &self.kind {
            Kind::Plain(f) => f(text),
            Kind::Hashed(f) => f(text, hash),
        }
    }
}

impl fmt::Debug for Transform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.kind {
            Kind::Plain(_) => "Transform(..)",
            Kind::Hashed(_) => "Transform(seeded ..)",
        })
    }
}

/// mixle's `case_jitter_invariance`: Python `str.swapcase` (see [`py_swapcase`]).
pub fn case_jitter_invariance() -> Transform {
    Transform::new(py_swapcase)
}

/// mixle's `whitespace_invariance`: Python `" ".join(text.split())` (see
/// [`py_whitespace_collapse`]).
pub fn whitespace_invariance() -> Transform {
    Transform::new(py_whitespace_collapse)
}
