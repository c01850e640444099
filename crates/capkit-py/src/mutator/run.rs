//! The evaluator, the LLM mutator, the dataset runner, reply parsing and the prompt.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use outfile::{CommitError, Staged};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

use mutator_eval::{
    Error, EvaluationContext, Evaluator, FixedReply, LlmMutator, MutationContext, Mutator, Replies,
    Runner, SummaryBuilder, build_prompt, compare_states, parse_reply,
};
use profile_types::CaseResult;

use super::add_function;
use super::client::{Calls, PyClient, PyMutator};
use super::state::{PyInterpretiveState, PyStructuredInput, json_py};
use crate::convert::{to_value, type_name};
use crate::files::{check_writable, os_error, write_bytes_atomically};
use crate::reprs::repr_str;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyLlmCore>()?;
    for f in [
        wrap_pyfunction!(py_evaluate, m)?,
        wrap_pyfunction!(py_mutate, m)?,
        wrap_pyfunction!(py_compare_states, m)?,
        wrap_pyfunction!(py_build_prompt, m)?,
        wrap_pyfunction!(py_parse_reply, m)?,
        wrap_pyfunction!(py_run_dataset, m)?,
        wrap_pyfunction!(py_summarize, m)?,
    ] {
        add_function(m, f)?;
    }
    m.add("mutator_DEFAULT_MUTATOR_ID", "capkit-llm-mutator")?;
    Ok(())
}

/// The Rust half of `capkit_rs.mutator.LLMMutator`: the client and the mutator id.
#[pyclass(name = "LlmMutatorCore", module = "capkit_rs.mutator", frozen)]
pub(super) struct PyLlmCore {
    client: Py<PyAny>,
    id: String,
}

#[pymethods]
impl PyLlmCore {
    #[new]
    #[pyo3(signature = (client, mutator_id = None))]
    fn new(client: &Bound<'_, PyAny>, mutator_id: Option<String>) -> PyResult<PyLlmCore> {
        if !client.hasattr("generate")? {
            return Err(PyTypeError::new_err(format!(
                "the client must have a generate(prompt) method (sync or async) returning str, got {}",
                type_name(client)
            )));
        }
        // A fresh id comes from the Rust mutator's own rule (distinct per instance).
        let id = mutator_id
            .unwrap_or_else(|| LlmMutator::new(FixedReply(String::new())).id().to_owned());
        Ok(PyLlmCore {
            client: client.clone().unbind(),
            id,
        })
    }

    /// The client.
    #[getter]
    fn client(&self, py: Python<'_>) -> Py<PyAny> {
        self.client.clone_ref(py)
    }

    /// The id written into every inference this mutator produces.
    #[getter]
    fn mutator_id(&self) -> &str {
        &self.id
    }

    fn __repr__(&self) -> String {
        format!("LlmMutatorCore(mutator_id={})", repr_str(&self.id))
    }
}

/// The exception classes of `capkit_rs.mutator`, by name.
fn mutator_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    MODULE
        .get_or_try_init(py, || py.import("capkit_rs.mutator").map(Bound::unbind))?
        .bind(py)
        .getattr(name)
}

/// The character offset of a 1-based (line, column) in `doc`, lines split on `\n` as Python's
/// `json` counts them.
fn char_offset(doc: &str, line: usize, column: usize) -> usize {
    let before: usize = doc
        .split('\n')
        .take(line.saturating_sub(1))
        .map(|l| l.chars().count() + 1)
        .sum();
    before + column.saturating_sub(1)
}

/// A mutation or evaluation error as a Python exception: the Python exception a client or a
/// mutator raised (unchanged), or the reply error classes of `capkit_rs.mutator`.
fn mutator_error(py: Python<'_>, err: Error, calls: &Calls, reply: Option<&str>) -> PyErr {
    if matches!(err, Error::Client(_) | Error::Mutator(_))
        && let Some(raised) = calls.take_error()
    {
        return raised;
    }
    let built = (|| -> PyResult<PyErr> {
        Ok(match &err {
            Error::ReplyNotJson {
                line,
                column,
                message,
            } => {
                let doc = reply.unwrap_or_default();
                let pos = char_offset(doc, *line, *column);
                PyErr::from_value(
                    mutator_class(py, "ReplyNotJsonError")?.call1((*message, doc, pos))?,
                )
            }
            Error::ReplyNotArray { found } => {
                let e = mutator_class(py, "ReplyNotArrayError")?
                    .call1((format!("Expected a JSON array from LLM, got {found}"),))?;
                e.setattr("found", *found)?;
                PyErr::from_value(e)
            }
            Error::InvalidElement {
                index,
                key,
                problem,
            } => {
                let e = mutator_class(py, "InvalidElementError")?.call1((err.to_string(),))?;
                e.setattr("index", *index)?;
                e.setattr("key", *key)?;
                e.setattr("problem", problem)?;
                PyErr::from_value(e)
            }
            Error::Confidence(_) | Error::Json(_) | Error::Case { .. } => {
                PyValueError::new_err(err.to_string())
            }
            Error::Io { path, cause } => os_error(path, cause, "cannot read"),
            Error::Client(_) | Error::Mutator(_) => PyRuntimeError::new_err(err.to_string()),
        })
    })();
    built.unwrap_or_else(|e| e)
}

fn metadata_of(metadata: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    match metadata {
        Some(m) if !m.is_none() => to_value(m).map(Some),
        _ => Ok(None),
    }
}

/// `evaluate(mutator, pre_state, expected_post_state, mutation_input, metadata=None,
/// event_loop=None) -> dict`: upstream's `LLMEvaluator.evaluate` in Rust. The mutator is an
/// `LlmMutatorCore` (run by the Rust `LlmMutator`) or any object with `mutate(context)`. Returns
/// the `EvaluationResult` as its JSON `dict`; an exception of the client or mutator propagates
/// unchanged, a bad reply raises a `ReplyError`.
#[pyfunction(name = "evaluate")]
#[pyo3(signature = (mutator, pre_state, expected_post_state, mutation_input, metadata = None, event_loop = None))]
fn py_evaluate<'py>(
    py: Python<'py>,
    mutator: &Bound<'py, PyAny>,
    pre_state: &Bound<'py, PyInterpretiveState>,
    expected_post_state: &Bound<'py, PyInterpretiveState>,
    mutation_input: &Bound<'py, PyStructuredInput>,
    metadata: Option<&Bound<'py, PyAny>>,
    event_loop: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let pre_state = pre_state.try_borrow()?.inner.clone();
    let expected = expected_post_state.try_borrow()?.inner.clone();
    let input = mutation_input.get().inner.clone();
    let metadata = metadata_of(metadata)?;
    let calls = Calls::default();
    let evaluate = |m: &dyn Mutator| {
        Evaluator.evaluate(EvaluationContext {
            mutator: m,
            pre_state: &pre_state,
            expected_post_state: &expected,
            mutation_input: &input,
            metadata: metadata.as_ref(),
        })
    };
    let outcome = match mutator.cast::<PyLlmCore>() {
        Ok(core) => {
            let core = core.get();
            let client = PyClient {
                client: &core.client,
                event_loop: event_loop.as_ref(),
                calls: &calls,
            };
            let m = LlmMutator::with_id(client, core.id.as_str());
            py.detach(|| evaluate(&m))
        }
        Err(_) => {
            if !mutator.hasattr("mutate")? {
                return Err(PyTypeError::new_err(format!(
                    "the mutator must be an LLMMutator or have a mutate(context) method, got {}",
                    type_name(mutator)
                )));
            }
            let obj = mutator.clone().unbind();
            let m = PyMutator {
                mutator: &obj,
                event_loop: event_loop.as_ref(),
                calls: &calls,
            };
            py.detach(|| evaluate(&m))
        }
    };
    match outcome {
        Ok(result) => json_py(py, &result),
        Err(e) => {
            let reply = calls.take_reply();
            Err(mutator_error(py, e, &calls, reply.as_deref()))
        }
    }
}

/// `mutate(core, state, input, metadata=None, event_loop=None) -> InterpretiveState`: upstream's
/// `LLMMutator.mutate` on a copy of `state` (the caller's state is never touched); atomic.
#[pyfunction(name = "mutate")]
#[pyo3(signature = (core, state, input, metadata = None, event_loop = None))]
fn py_mutate(
    py: Python<'_>,
    core: &Bound<'_, PyLlmCore>,
    state: &Bound<'_, PyInterpretiveState>,
    input: &Bound<'_, PyStructuredInput>,
    metadata: Option<&Bound<'_, PyAny>>,
    event_loop: Option<Py<PyAny>>,
) -> PyResult<PyInterpretiveState> {
    let state = state.try_borrow()?.inner.clone();
    let input = input.get().inner.clone();
    let metadata = metadata_of(metadata)?;
    let core = core.get();
    let calls = Calls::default();
    let client = PyClient {
        client: &core.client,
        event_loop: event_loop.as_ref(),
        calls: &calls,
    };
    let m = LlmMutator::with_id(client, core.id.as_str());
    let outcome = py.detach(|| {
        m.mutate(MutationContext {
            input: &input,
            state,
            metadata: metadata.as_ref(),
        })
    });
    match outcome {
        Ok(r) => Ok(PyInterpretiveState::from_rust(r.updated_state)),
        Err(e) => {
            let reply = calls.take_reply();
            Err(mutator_error(py, e, &calls, reply.as_deref()))
        }
    }
}

/// `compare_states(expected, actual) -> dict`: the comparison of the best candidate of every
/// path of the sorted union of both states' paths, parents included (a `StateComparison`).
#[pyfunction(name = "compare_states")]
fn py_compare_states<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyInterpretiveState>,
    actual: &Bound<'py, PyInterpretiveState>,
) -> PyResult<Bound<'py, PyAny>> {
    let c = compare_states(&expected.try_borrow()?.inner, &actual.try_borrow()?.inner);
    json_py(py, &c)
}

/// `build_prompt(state, input) -> str`: the prompt the LLM mutator sends for `state` and
/// `input` (the state as JSON, the user's text verbatim, the reply format).
#[pyfunction(name = "build_prompt")]
fn py_build_prompt(
    state: &Bound<'_, PyInterpretiveState>,
    input: &Bound<'_, PyStructuredInput>,
) -> PyResult<String> {
    Ok(build_prompt(&state.try_borrow()?.inner, &input.get().inner))
}

/// `parse_reply(raw) -> list[dict]`: a reply parsed and validated as the LLM mutator does
/// (strict JSON array of `{path, value, confidence, inference}`; the first bad element raises).
#[pyfunction(name = "parse_reply")]
fn py_parse_reply<'py>(py: Python<'py>, raw: &str) -> PyResult<Bound<'py, PyList>> {
    let extractions =
        parse_reply(raw).map_err(|e| mutator_error(py, e, &Calls::default(), Some(raw)))?;
    let items = extractions
        .into_iter()
        .map(|e| {
            let d = PyDict::new(py);
            d.set_item("path", e.path)?;
            d.set_item("value", e.value)?;
            d.set_item("confidence", e.confidence)?;
            d.set_item("inference", e.inference)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// `run_dataset(path=None, *, text=None, client=None, event_loop=None, concurrency=4,
/// mutator_id="capkit-llm-mutator", out=None, summary_out=None, progress=None) -> (list[dict],
/// dict)`: the dataset
/// runner of `capkit mutator eval` over a JSONL file (or its text). `client=None` replays each
/// case's own `reply`. Returns one result `dict` per case (dataset order; the JSON of each line
/// `out` gets, the exact line `capkit mutator eval --out` writes) and the summary `dict`.
#[pyfunction(name = "run_dataset")]
#[pyo3(signature = (path = None, *, text = None, client = None, event_loop = None, concurrency = 4, mutator_id = "capkit-llm-mutator".to_owned(), out = None, summary_out = None, progress = None))]
#[allow(clippy::too_many_arguments, reason = "a keyword-only Python signature")]
fn py_run_dataset<'py>(
    py: Python<'py>,
    path: Option<PathBuf>,
    text: Option<String>,
    client: Option<Py<PyAny>>,
    event_loop: Option<Py<PyAny>>,
    concurrency: usize,
    mutator_id: String,
    out: Option<PathBuf>,
    summary_out: Option<PathBuf>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyAny>)> {
    if concurrency == 0 {
        return Err(PyValueError::new_err("concurrency must be at least 1"));
    }
    let text = match (path, text) {
        (Some(path), None) => {
            let bytes = std::fs::read(&path).map_err(|e| os_error(&path, &e, "cannot read"))?;
            String::from_utf8(bytes).map_err(|e| {
                PyValueError::new_err(format!(
                    "{}: not UTF-8 (byte {} is invalid)",
                    path.display(),
                    e.utf8_error().valid_up_to()
                ))
            })?
        }
        (None, Some(text)) => text,
        _ => {
            return Err(PyTypeError::new_err(
                "run_dataset needs exactly one of a path or text=",
            ));
        }
    };
    // Every output is checked before any is touched (as the command line does): a refused
    // `summary_out` must not leave an emptied `out` behind.
    for p in out.iter().chain(&summary_out) {
        check_writable(p)?;
    }
    if let Some(c) = &client
        && !c.bind(py).hasattr("generate")?
    {
        return Err(PyTypeError::new_err(format!(
            "the client must have a generate(prompt) method (sync or async) returning str, got {}",
            type_name(c.bind(py))
        )));
    }
    // Results are written as they come, in dataset order, as the command line does, to a
    // temporary file beside `out` that is renamed over it only when the run is complete: an
    // interrupted or failed run leaves the previous file as it was and no partial one.
    let mut staged = match &out {
        Some(p) => {
            outfile::sweep(outfile::parent_dir(p), &file_name(p));
            Some(Staged::create(p).map_err(|e| {
                os_error(outfile::parent_dir(p), &e, "cannot create a temporary file")
            })?)
        }
        None => None,
    };
    let mut writer = staged.as_mut().map(|s| BufWriter::new(s.as_file_mut()));
    let calls = Calls::default();
    let py_client = client.as_ref().map(|c| PyClient {
        client: c,
        event_loop: event_loop.as_ref(),
        calls: &calls,
    });
    let replies = match &py_client {
        Some(c) => Replies::Client(c),
        None => Replies::Fixed,
    };
    let progress_error: std::sync::Mutex<Option<PyErr>> = std::sync::Mutex::new(None);
    let report = |done: usize| {
        if let Some(cb) = &progress {
            Python::attach(|py| {
                let mut slot = progress_error.lock().unwrap_or_else(|e| e.into_inner());
                if slot.is_none()
                    && let Err(e) = cb.call1(py, (done,))
                {
                    *slot = Some(e);
                }
            });
        }
    };
    let mut results: Vec<CaseResult> = Vec::new();
    let mut summary = SummaryBuilder::default();
    let mut write_error: Option<std::io::Error> = None;
    py.detach(|| {
        Runner::new(replies)
            .concurrency(concurrency)
            .mutator_id(mutator_id)
            .run_jsonl_each(&text, &report, |r| {
                // After an interrupt the remaining cases fail at once; they are not results.
                if calls.cancelled() {
                    return;
                }
                summary.add(&r);
                if let (Some(w), None) = (&mut writer, &write_error)
                    && let Err(e) = write_line(w, &r)
                {
                    write_error = Some(e);
                }
                results.push(r);
                // Ctrl-C reaches Python only here, on the calling thread: cancel what is left.
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    calls.cancel(e);
                }
            });
    });
    let flushed = writer
        .map(|w| w.into_inner().map(drop).map_err(|e| e.into_error()))
        .transpose();
    if let Some(abort) = calls.take_abort() {
        return Err(abort);
    }
    if let (Some(p), Some(e)) = (&out, write_error.or(flushed.err())) {
        return Err(os_error(p, &e, "cannot write"));
    }
    if let Some(e) = progress_error
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
    {
        return Err(e);
    }
    if let (Some(p), Some(staged)) = (&out, staged) {
        staged.commit(p).map_err(|e| match e {
            CommitError::Sync(e) => os_error(p, &e, "cannot write"),
            CommitError::Rename(e) => os_error(p, &e, "cannot rename the finished file into place"),
        })?;
    }
    let summary = summary.finish();
    if let Some(p) = &summary_out {
        // `--summary-out`: the aggregate as indented JSON and a newline, written atomically.
        let text = serde_json::to_string_pretty(&summary)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        write_bytes_atomically(p, (text + "\n").as_bytes())?;
    }
    let list = PyList::empty(py);
    for r in &results {
        list.append(json_py(py, r)?)?;
    }
    Ok((list, json_py(py, &summary)?))
}

/// A destination's file name, as its temporary files carry it.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| "out".to_owned(), |n| n.to_string_lossy().into_owned())
}

/// One result line, exactly as `capkit mutator eval --out` writes it.
fn write_line(w: &mut impl Write, r: &CaseResult) -> std::io::Result<()> {
    serde_json::to_writer(&mut *w, r).map_err(std::io::Error::other)?;
    w.write_all(b"\n")
}

/// `summarize(results) -> dict`: the aggregate (`DatasetSummary`) of result `dict`s as
/// `run_dataset` returns them (or as read back from its JSONL lines).
#[pyfunction(name = "summarize")]
fn py_summarize<'py>(py: Python<'py>, results: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let mut summary = SummaryBuilder::default();
    for (i, item) in results.try_iter()?.enumerate() {
        let r: CaseResult = serde_json::from_value(to_value(&item?)?)
            .map_err(|e| PyValueError::new_err(format!("results[{i}]: not a case result: {e}")))?;
        summary.add(&r);
    }
    json_py(py, &summary.finish())
}
