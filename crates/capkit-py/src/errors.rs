//! Rust errors as Python exceptions of upstream's classes.
//!
//! * A bad typo rate is a `ValueError` with upstream's message (built in `profile.rs`, where the
//!   rate's own `str()` is known).
//! * An exception raised by a model keeps its class and traceback; its message gains the side and
//!   the stage ("student model failed on the corruption `typo_10`: ..."), so a failing batch is
//!   traceable. `KeyboardInterrupt`, `SystemExit` and other non-`Exception`s pass untouched.
//! * A wrong batch length (upstream silently truncates) is a `ValueError` naming side, stage and
//!   counts: a shortened profile is never returned.
//! * An extractor answer that is not a record is an `AttributeError`, upstream's class for it.

use pyo3::exceptions::{PyAttributeError, PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A `suite_core::Error` as a Python exception.
pub(crate) fn suite_error(py: Python<'_>, err: suite_core::Error) -> PyErr {
    match err {
        suite_core::Error::Model {
            side,
            stage,
            source,
        } => match source.downcast::<PyErr>() {
            Ok(py_err) => with_context(py, *py_err, &format!("{side} model failed on the {stage}")),
            Err(other) => {
                PyRuntimeError::new_err(format!("{side} model failed on the {stage}: {other}"))
            }
        },
        other => PyValueError::new_err(other.to_string()),
    }
}

pub(crate) fn capture_error(py: Python<'_>, err: capture::Error) -> PyErr {
    match err {
        capture::Error::Model(e) => suite_error(py, e),
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

pub(crate) fn extractive_error(py: Python<'_>, err: extractive::Error) -> PyErr {
    match err {
        extractive::Error::Model(e) => suite_error(py, e),
        e
        @ (extractive::Error::NotARecord { .. } | extractive::Error::RecordNotAnObject { .. }) => {
            PyAttributeError::new_err(e.to_string())
        }
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

/// The model's (or transform's) own exception, its message prefixed with `prefix` (which names
/// the side and the stage).
pub(crate) fn with_context(py: Python<'_>, err: PyErr, prefix: &str) -> PyErr {
    if !err.is_instance_of::<PyException>(py) {
        return err;
    }
    let value = err.value(py);
    // Rewriting `args` keeps the class, the traceback and any extra attributes.
    let rewritten = (|| -> PyResult<()> {
        let args = value.getattr("args")?.cast_into::<PyTuple>()?;
        let message = match args.len() {
            0 => prefix.to_owned(),
            _ => format!("{prefix}: {}", args.get_item(0)?.str()?),
        };
        let mut new_args = vec![message.into_pyobject(py)?.into_any()];
        for item in args.iter().skip(1) {
            new_args.push(item);
        }
        value.setattr("args", PyTuple::new(py, new_args)?)
    })();
    // An exception whose `args` cannot be rewritten still propagates, unchanged.
    let _ = rewritten;
    err
}
