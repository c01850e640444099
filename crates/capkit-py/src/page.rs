//! `render_html` and `write_html`: the page `capkit report` makes (crate `capkit-report`), for
//! reports, comparisons and typo score reports given as files or as the `dict`s the Python API
//! returns.
//!
//! The page is the command line's byte for byte for the same files and `SOURCE_DATE_EPOCH`: a
//! file's source is its path as given and the blake3 of its bytes, and the page's date is
//! `$SOURCE_DATE_EPOCH` when set, else the clock, as `capkit report` reads them. A `dict` has no
//! file: it is shown as `document N` (its place among the inputs), without a hash.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use capkit_report::format::{page_time, utc_date};
use capkit_report::{Document, Input, Meta, Source, render};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::convert::{to_value, type_name};
use crate::files::{check_writable, os_error, write_bytes_atomically};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(render_html, m)?)?;
    m.add_function(wrap_pyfunction!(write_html, m)?)?;
    Ok(())
}

/// One input of the page: a document `dict`, or the path of a JSON file.
fn input(item: &Bound<'_, PyAny>, position: usize) -> PyResult<Input> {
    if item.is_instance_of::<PyDict>() {
        let name = format!("document {position}");
        let document = Document::from_json(&to_value(item)?)
            .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
        return Ok(Input {
            source: Source { name, blake3: None },
            document,
        });
    }
    let path: PathBuf = item.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "render_html takes reports, comparisons or typo score reports as dicts or as paths \
             of their JSON files; input {position} is {}",
            type_name(item)
        ))
    })?;
    file_input(&path)
}

/// A JSON file as `capkit report` reads it.
fn file_input(path: &Path) -> PyResult<Input> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| os_error(path, &e, "cannot read"))?;
    Input::from_file_bytes(name.clone(), &bytes)
        .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))
}

/// The inputs: one document (`dict` or path) or an iterable of them, in order.
fn inputs(documents: &Bound<'_, PyAny>) -> PyResult<Vec<Input>> {
    let single = documents.is_instance_of::<PyDict>()
        || documents.is_instance_of::<PyString>()
        || documents.extract::<PathBuf>().is_ok();
    if single {
        return Ok(vec![input(documents, 1)?]);
    }
    let out = documents
        .try_iter()?
        .enumerate()
        .map(|(i, item)| input(&item?, i + 1))
        .collect::<PyResult<Vec<_>>>()?;
    if out.is_empty() {
        return Err(PyValueError::new_err(
            "render_html needs at least one document",
        ));
    }
    Ok(out)
}

/// Seconds since the epoch: `$SOURCE_DATE_EPOCH` when set (reproducible pages), else the clock.
fn now() -> PyResult<i64> {
    let clock = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let epoch = std::env::var("SOURCE_DATE_EPOCH").ok();
    page_time(epoch.as_deref(), clock).map_err(|e| PyValueError::new_err(e.to_string()))
}

fn page(py: Python<'_>, documents: &Bound<'_, PyAny>) -> PyResult<String> {
    let inputs = inputs(documents)?;
    let meta = Meta::new(utc_date(now()?));
    Ok(py.detach(|| render(&inputs, &meta)))
}

/// `render_html(documents) -> str`: the self-contained HTML page `capkit report` makes for
/// `documents`: one profile report, comparison or typo score report, or a list of them (in
/// order), each a `dict` (as `capture_profile_report`, `compare_students`, ... return it) or
/// the path of its JSON file. For the same files and `SOURCE_DATE_EPOCH` the page is the
/// command line's, byte for byte.
#[pyfunction]
fn render_html(py: Python<'_>, documents: &Bound<'_, PyAny>) -> PyResult<String> {
    page(py, documents)
}

/// `write_html(path, documents)`: [`render_html`]'s page written to `path` atomically (a
/// temporary file beside it, renamed into place), as `capkit report --out` writes it.
#[pyfunction]
fn write_html(py: Python<'_>, path: PathBuf, documents: &Bound<'_, PyAny>) -> PyResult<()> {
    check_writable(&path)?;
    let html = page(py, documents)?;
    py.detach(|| write_bytes_atomically(&path, html.as_bytes()))
}
