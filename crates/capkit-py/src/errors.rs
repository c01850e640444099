//! Rust errors as Python exceptions of upstream's classes.
//!
//! * A bad typo rate is a `ValueError` with upstream's message (built in `profile.rs`, where the
//!   rate's own `str()` is known).
//! * An exception raised by a model reaches the caller as the very same object, `args` untouched;
//!   the side and the stage ("student model failed on the corruption `typo_10`") are attached as
//!   a PEP 678 note ([`with_context`]), so a failing batch is traceable. `KeyboardInterrupt`,
//!   `SystemExit` and other non-`Exception`s pass untouched.
//! * A wrong batch length (upstream silently truncates) is a `ValueError` naming side, stage and
//!   counts: a shortened profile is never returned.
//! * An extractor answer that is not a record is an `AttributeError`, upstream's class for it.

use pyo3::exceptions::{PyAttributeError, PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

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

/// A `runner::Error` as a Python exception: a profile's own errors as above, every refusal
/// (texts, suites, reports, merges, samples) a `ValueError` naming what was wrong.
pub(crate) fn runner_error(py: Python<'_>, err: runner::Error) -> PyErr {
    match err {
        runner::Error::Capture(e) => capture_error(py, e),
        runner::Error::Extract(e) => extractive_error(py, e),
        runner::Error::Engine(e) => suite_error(py, e),
        other => PyValueError::new_err(other.to_string()),
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

/// The model's (or transform's) own exception, unchanged but for a note naming the side and the
/// stage (`note`): the very object the caller raised, `args` untouched (an `OSError`'s errno, a
/// `KeyError`'s key, a non-string first argument stay as they were). The note is a PEP 678 note
/// (`add_note`, Python >= 3.11, shown under the traceback); before 3.11 it is appended to a
/// `__notes__` list set directly, which tracebacks there do not show but code can read. An
/// exception that already carries the note (the same instance raised again) gets no second one.
pub(crate) fn with_context(py: Python<'_>, err: PyErr, note: &str) -> PyErr {
    if !err.is_instance_of::<PyException>(py) {
        return err;
    }
    let value = err.value(py);
    let noted = (|| -> PyResult<()> {
        let notes = value.getattr("__notes__").ok();
        if let Some(notes) = &notes
            && notes.contains(note).unwrap_or(false)
        {
            return Ok(());
        }
        if value.hasattr("add_note")? {
            value.call_method1("add_note", (note,))?;
            return Ok(());
        }
        match notes.and_then(|n| n.cast_into::<PyList>().ok()) {
            Some(list) => list.append(note),
            None => value.setattr("__notes__", PyList::new(py, [note])?),
        }
    })();
    // An exception that takes no note (a read-only `__notes__`) still propagates, unchanged.
    let _ = noted;
    err
}
