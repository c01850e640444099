//! `capkit_rs.cache`: looking after the prediction cache from Python, as `capkit cache
//! stats|verify|compact|export` does on the command line. Both call
//! `model_adapters::cache_admin`; this module converts arguments, results and errors.

use std::io::Write as _;
use std::path::PathBuf;

use model_adapters::cache_admin;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::adapters::adapter_error;
use crate::files::{WriteError, os_error, write_atomically};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for f in [
        wrap_pyfunction!(default_dir, m)?,
        wrap_pyfunction!(stats, m)?,
        wrap_pyfunction!(verify, m)?,
        wrap_pyfunction!(compact, m)?,
        wrap_pyfunction!(export, m)?,
    ] {
        crate::native::add_prefixed(m, "cache", f)?;
    }
    Ok(())
}

/// `dir`, or the default cache directory (the command line's and `models.*(cache=True)`'s).
fn dir_or_default(dir: Option<PathBuf>) -> PathBuf {
    dir.unwrap_or_else(model_adapters::default_cache_dir)
}

/// The directory profiles cache answers in by default: ``$XDG_CACHE_HOME/capkit``, else
/// ``~/.cache/capkit``, else ``.capkit-cache``.
#[pyfunction]
fn default_dir() -> PathBuf {
    model_adapters::default_cache_dir()
}

/// What the cache in ``dir`` (default: :func:`default_dir`) holds: ``{"path", "bytes", "format",
/// "answers", "models": [{"identity", "answers"}, ...], "replies"}``, models with most answers
/// first; ``replies``: the ``openai:`` models' raw replies kept in the cache.
/// Raises ``FileNotFoundError`` when there is no cache there (none is created).
#[pyfunction]
#[pyo3(signature = (dir=None))]
fn stats(py: Python<'_>, dir: Option<PathBuf>) -> PyResult<Bound<'_, PyDict>> {
    let dir = dir_or_default(dir);
    let s = py
        .detach(|| cache_admin::stats(&dir))
        .map_err(adapter_error)?;
    let out = PyDict::new(py);
    out.set_item("path", &s.path)?;
    out.set_item("bytes", s.bytes)?;
    out.set_item("format", &s.format)?;
    out.set_item("answers", s.answers)?;
    let models = PyList::empty(py);
    for m in &s.models {
        let d = PyDict::new(py);
        d.set_item("identity", &m.identity)?;
        d.set_item("answers", m.answers)?;
        models.append(d)?;
    }
    out.set_item("models", models)?;
    out.set_item("replies", s.replies)?;
    Ok(out)
}

/// Checks the cache in ``dir``: SQLite's integrity check, every answer's JSON, each sealed
/// segment's digest, key order and answers, each ``openai:`` reply's key and text (``capkit cache
/// verify``). Returns the problems found, each naming what is wrong (empty when the cache is
/// sound).
#[pyfunction]
#[pyo3(signature = (dir=None))]
fn verify(py: Python<'_>, dir: Option<PathBuf>) -> PyResult<Vec<String>> {
    let dir = dir_or_default(dir);
    py.detach(|| cache_admin::verify(&dir))
        .map_err(adapter_error)
}

/// Seals each model's answers into an immutable segment beside the database (a model with at
/// least 4,096 answers, or one that already has a segment; lookups then cost one positioned read)
/// and reclaims space: rewrites the database and empties its write-ahead log. Holds the cache's
/// write lock throughout: run it between profiles. Returns the bytes on disk before and after,
/// ``(before, after)``.
#[pyfunction]
#[pyo3(signature = (dir=None))]
fn compact(py: Python<'_>, dir: Option<PathBuf>) -> PyResult<(u64, u64)> {
    let dir = dir_or_default(dir);
    py.detach(|| cache_admin::compact(&dir))
        .map_err(adapter_error)
}

/// Writes every answer of the cache in ``dir`` to ``out`` as JSONL (``{"model", "k", "label",
/// "decision"}`` per line, in key order), atomically: ``out`` is replaced only once the whole
/// export is written, and left as it was on any failure. Returns the number of answers. With
/// ``replies=True``, the ``openai:`` models' raw replies instead (``capkit cache export
/// --replies``: one line per reply, as its old reply file held it), returning their number.
#[pyfunction]
#[pyo3(signature = (out, dir=None, *, replies=false))]
fn export(py: Python<'_>, out: PathBuf, dir: Option<PathBuf>, replies: bool) -> PyResult<u64> {
    let dir = dir_or_default(dir);
    let mut n = 0;
    py.detach(|| {
        write_atomically(&out, |w| {
            n = if replies {
                cache_admin::export_replies(&dir, w)?
            } else {
                cache_admin::export(&dir, w)?
            };
            w.flush().map_err(|source| model_adapters::Error::Cache {
                action: "writing",
                path: out.clone(),
                source,
            })
        })
    })
    .map_err(|e| match e {
        WriteError::Refused(e) => adapter_error(e),
        WriteError::Io(at, e, what) => os_error(&at, &e, what),
    })?;
    Ok(n)
}
