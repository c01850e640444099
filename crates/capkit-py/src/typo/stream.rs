//! `write_jsonl_stream`: a corpus of names straight to JSONL through the harness's streaming
//! emitter (`typo_tasks::write_jsonl_stream` over a `NameList`), the one `capkit typo emit` and
//! the shards of `capkit_rs.ray.write_typo_jsonl` write with: chunks of names generated on every
//! core and written in corpus order, memory bounded by a chunk, the bytes those of `emit`,
//! `assign` and `write_jsonl` over the same names.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use typo_tasks::{
    Data, HarnessError, NameList, Registry, Splitter, StreamError, StreamOptions, Streamed, Task,
    write_jsonl_stream,
};

use super::add_function;
use super::corpus::{PyStats, names_of, ratio_of, tasks_of};
use crate::convert::type_name;
use crate::files::{WriteError, os_error, write_atomically};

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_function(m, wrap_pyfunction!(py_write_jsonl_stream, m)?)
}

/// A binary file object as a `Write` for the emitter's writer thread: each write is one
/// `file.write(bytes)` call with the GIL taken there (the calling thread has released it); the
/// Python error of a failed call is kept for the caller to raise.
struct PyFile {
    file: Py<PyAny>,
    failed: Arc<Mutex<Option<PyErr>>>,
}

impl Write for PyFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Python::attach(|py| {
            match self
                .file
                .bind(py)
                .call_method1("write", (PyBytes::new(py, buf),))
            {
                // A raw file may take part of the bytes (and say so); `None` (some writers) is all.
                Ok(n) => Ok(n.extract::<usize>().map_or(buf.len(), |n| n.min(buf.len()))),
                Err(err) => {
                    if let Ok(mut slot) = self.failed.lock() {
                        slot.get_or_insert(err);
                    }
                    Err(io::Error::other("the file object's write() raised"))
                }
            }
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A refused corpus as a `ValueError` naming `dest` and the name's index in `names`.
fn refused(dest: &str, line: usize, error: &HarnessError, what_stays: &str) -> PyErr {
    let what = match error {
        HarnessError::NotRepresentable { task, input } => format!(
            "{task}/{input:?} has a variant that is not valid UTF-8 and cannot survive JSONL; \
             pass drop_unrepresentable=True to leave such examples out, or leave {task} out of tasks"
        ),
        other => other.to_string(),
    };
    PyValueError::new_err(format!(
        "{dest}: names[{}]: {what} ({what_stays})",
        line.saturating_sub(1)
    ))
}

/// `write_jsonl_stream(names, dest, *, tasks=None, source="", split=True, ratio=None, salt="",
/// with_empty=False, drop_unrepresentable=False) -> dict`: the corpus of `names` (with `tasks`,
/// default every task of `Registry()`) written to `dest` as JSONL by the streaming emitter of
/// `capkit typo emit`: chunks of names generated on every core and written in corpus order,
/// memory bounded by a chunk. The bytes are those of `emit` (or `emit_with_empty`), `assign`
/// (when `split`; `ratio`, `salt`) and `write_jsonl` over the same names, with unrepresentable
/// examples left out (`drop_unrepresentable`) or refused. Returns `{"fingerprint": "blake3:…",
/// "stats": Stats, "dropped": {task id: examples left out}}`.
///
/// `dest` is a path (written atomically: nothing is left on a refusal or a failure, an existing
/// file stays as it was) or a binary file object (written a chunk at a time: after a refusal it
/// holds the chunks before it).
#[pyfunction(name = "write_jsonl_stream")]
#[pyo3(signature = (names, dest, *, tasks = None, source = "", split = true, ratio = None, salt = "", with_empty = false, drop_unrepresentable = false))]
#[allow(clippy::too_many_arguments)]
fn py_write_jsonl_stream<'py>(
    py: Python<'py>,
    names: &Bound<'py, PyAny>,
    dest: &Bound<'py, PyAny>,
    tasks: Option<&Bound<'py, PyAny>>,
    source: &str,
    split: bool,
    ratio: Option<&Bound<'py, PyAny>>,
    salt: &str,
    with_empty: bool,
    drop_unrepresentable: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let names = names_of(names)?;
    let tasks: Vec<Task> = match tasks.filter(|t| !t.is_none()) {
        Some(t) => tasks_of(t)?,
        None => py.detach(|| Registry::new(&Data::english()).iter().cloned().collect()),
    };
    let given_split_settings = ratio.is_some_and(|r| !r.is_none()) || !salt.is_empty();
    if !split && given_split_settings {
        return Err(PyValueError::new_err(
            "ratio and salt set the split: they need split=True",
        ));
    }
    let splitter = split.then(|| ratio_of(ratio).map(|r| Splitter::new(r, salt)));
    let splitter = splitter.transpose()?;
    let refs: Vec<&Task> = tasks.iter().collect();
    let options = StreamOptions {
        tasks: &refs,
        source,
        splitter: splitter.as_ref(),
        with_empty,
        drop_unrepresentable,
    };
    let streamed = if let Ok(path) = dest.extract::<PathBuf>() {
        let shown = path.display().to_string();
        let outcome = py.detach(|| {
            let mut streamed = None;
            let written = write_atomically(&path, |w| {
                let s = write_jsonl_stream(&options, &mut NameList::new(&names), &mut *w, |_| {})?;
                streamed = Some((s.fingerprint, s.stats, s.dropped));
                Ok(())
            });
            written.map(|()| streamed)
        });
        match outcome {
            Ok(Some(s)) => s,
            Ok(None) => {
                return Err(PyRuntimeError::new_err(format!(
                    "{shown}: nothing was streamed"
                )));
            }
            Err(WriteError::Refused(StreamError::Refused { line, error })) => {
                return Err(refused(&shown, line, &error, "nothing was written"));
            }
            Err(WriteError::Refused(StreamError::Write(e))) => {
                return Err(os_error(&path, &e, "cannot write"));
            }
            Err(WriteError::Refused(StreamError::Names(never))) => match never {},
            Err(WriteError::Refused(StreamError::WriterPanicked)) => {
                return Err(PyRuntimeError::new_err(format!(
                    "{shown}: the writer thread panicked"
                )));
            }
            Err(WriteError::Io(at, e, what)) => return Err(os_error(&at, &e, what)),
        }
    } else if dest.hasattr("write")? {
        let failed = Arc::new(Mutex::new(None));
        let file = PyFile {
            file: dest.clone().unbind(),
            failed: Arc::clone(&failed),
        };
        let outcome =
            py.detach(|| write_jsonl_stream(&options, &mut NameList::new(&names), file, |_| {}));
        match outcome {
            Ok(Streamed {
                fingerprint,
                stats,
                dropped,
                ..
            }) => (fingerprint, stats, dropped),
            Err(StreamError::Refused { line, error }) => {
                return Err(refused(
                    &format!("{} object", type_name(dest)),
                    line,
                    &error,
                    "the chunks before it were written",
                ));
            }
            Err(StreamError::Write(e)) => {
                let raised = failed.lock().ok().and_then(|mut slot| slot.take());
                return Err(
                    raised.unwrap_or_else(|| PyRuntimeError::new_err(format!("cannot write: {e}")))
                );
            }
            Err(StreamError::Names(never)) => match never {},
            Err(StreamError::WriterPanicked) => {
                return Err(PyRuntimeError::new_err("the writer thread panicked"));
            }
        }
    } else {
        return Err(PyTypeError::new_err(format!(
            "dest must be a path (str or os.PathLike) or a binary file object, got {}",
            type_name(dest)
        )));
    };
    let (fingerprint, stats, dropped) = streamed;
    let out = PyDict::new(py);
    out.set_item("fingerprint", fingerprint.to_string())?;
    out.set_item("stats", PyStats::from(stats))?;
    out.set_item("dropped", dropped)?;
    Ok(out)
}
