//! Text transforms: the functions corruptions and invariances are made of.

use std::fmt;
use std::sync::Arc;

use crate::text::{py_swapcase, py_whitespace_collapse};

/// A deterministic text-to-text function (a corruption or an invariance rewrite).
///
/// Cheap to clone (shared). Profiles assume a transform is pure: the same text always gives the
/// same output, which is what lets them transform and predict each distinct text once.
#[derive(Clone)]
pub struct Transform {
    f: Arc<dyn Fn(&str) -> String + Send + Sync>,
}

impl Transform {
    /// Wraps a function as a transform.
    pub fn new(f: impl Fn(&str) -> String + Send + Sync + 'static) -> Transform {
        Transform { f: Arc::new(f) }
    }

    /// Applies the transform to one text.
    pub fn apply(&self, text: &str) -> String {
        (self.f)(text)
    }
}

impl fmt::Debug for Transform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Transform(..)")
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
