//! `capkit_rs.typo`: the `typo-tasks` crate from Python.
//!
//! Everything computes in Rust (generators, splits, JSONL bytes, scores), with the GIL released
//! around the heavy parts; this module only converts. Two conversions matter:
//!
//! * a variant (a member of an expected set) is a `str` when its bytes are UTF-8 and `bytes`
//!   when they are not (only `bf` makes such variants): nothing is ever replaced lossily, and
//!   Python's `str`/`bytes` inequality keeps the two apart;
//! * `Needs` is the Python `enum` `capkit_rs.typo.Needs` (a `str` enum: `"nothing"`,
//!   `"language"`, `"keyboard"`), looked up from the Python side of the package.
//!
//! Native names are registered flat in `capkit_rs._native` (classes under their own names,
//! functions prefixed `typo_`); `capkit_rs/typo.py` re-exports them under their public names.

mod corpus;
mod score;
mod stream;
mod tables;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString, PyType};

use typo_tasks::{Needs, Variant};

use crate::convert::type_name;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    tables::register(m)?;
    corpus::register(m)?;
    score::register(m)?;
    stream::register(m)?;
    Ok(())
}

/// Adds a `#[pyfunction]` as `typo_<its name>`.
fn add_function(m: &Bound<'_, PyModule>, f: Bound<'_, pyo3::types::PyCFunction>) -> PyResult<()> {
    crate::native::add_prefixed(m, "typo", f)
}

/// `capkit_rs.typo.Needs(needs.as_str())`.
fn needs_py(py: Python<'_>, needs: Needs) -> PyResult<Bound<'_, PyAny>> {
    static NEEDS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    NEEDS
        .import(py, "capkit_rs.typo", "Needs")?
        .call1((needs.as_str(),))
}

/// A variant as Python sees it: `str` when UTF-8, `bytes` otherwise.
fn variant_py<'py>(py: Python<'py>, v: &Variant) -> Bound<'py, PyAny> {
    match v.as_str() {
        Some(s) => PyString::new(py, s).into_any(),
        None => PyBytes::new(py, v.as_bytes()).into_any(),
    }
}

fn variants_py<'py>(py: Python<'py>, vs: &[Variant]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, vs.iter().map(|v| variant_py(py, v)))
}

/// A Python `str`, `bytes` or `bytearray` as a variant (`what` names the argument in errors).
fn variant_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Variant> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Variant::from(&*s.to_cow()?));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Variant::from_bytes(b.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Variant::from_bytes(b.to_vec()));
    }
    Err(PyTypeError::new_err(format!(
        "{what} must hold str or bytes values, got {}",
        type_name(obj)
    )))
}

/// Every element of an iterable as a variant.
fn variants_of(items: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Variant>> {
    if items.is_instance_of::<PyString>() || items.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an iterable of names, not a single {}",
            type_name(items)
        )));
    }
    items
        .try_iter()?
        .map(|item| variant_of(&item?, what))
        .collect()
}
