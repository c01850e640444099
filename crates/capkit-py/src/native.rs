//! How the typo and mutator halves lay out the flat native module `capkit_rs._native`: classes
//! under their own names, functions under a prefix (`typo_emit`, `mutator_evaluate`) so that the
//! two halves never collide, each keeping its clean `__name__` for `help()`.

use pyo3::prelude::*;
use pyo3::types::PyCFunction;

/// Adds `f` to `m` as `{prefix}_{f.__name__}`.
pub(crate) fn add_prefixed(
    m: &Bound<'_, PyModule>,
    prefix: &str,
    f: Bound<'_, PyCFunction>,
) -> PyResult<()> {
    let name: String = f.getattr("__name__")?.extract()?;
    m.add(format!("{prefix}_{name}"), f)
}
