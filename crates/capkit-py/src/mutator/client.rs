//! Python objects behind the Rust traits: an LLM client (`generate(prompt) -> str`, sync or
//! `async`) as an `LlmClient`, and any object with `mutate(context)` as a `Mutator`.
//!
//! Both run on whatever thread the Rust code calls them from, attaching to the interpreter only
//! for the call. An awaitable answer is run by `capkit_rs.mutator._await_on_loop` on the event
//! loop the caller handed over (the Python wrapper runs the Rust evaluation in a worker thread,
//! so that loop is free to run it), or by `_await_in_new_loop` when there is none.
//!
//! Python exceptions cannot travel through the Rust error types (they hold strings), so the
//! first one is kept in a [`Calls`] slot and handed back by the caller, class and traceback
//! intact; an exception that is not an `Exception` (`KeyboardInterrupt`, `SystemExit`) also
//! cancels the rest of a dataset run.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::exceptions::{PyException, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyString;

use mutator_eval::{ClientError, Error, LlmClient, MutationContext, MutationResult, Mutator};

use super::state::{PyInterpretiveState, PyStructuredInput};
use crate::convert::{str_form, to_py, to_value, type_name};

/// What the Python calls of one run left behind.
#[derive(Default)]
pub(super) struct Calls {
    /// The first Python exception a call raised.
    error: Mutex<Option<PyErr>>,
    /// The last reply text (for a `JSONDecodeError`'s document).
    reply: Mutex<Option<String>>,
    /// Set by an interrupt: every later call fails at once.
    cancelled: AtomicBool,
    /// The interrupt (a `BaseException` that is not an `Exception`) to re-raise after the run.
    abort: Mutex<Option<PyErr>>,
}

impl Calls {
    /// Keeps `err` (the first one) and returns its one-line description for the Rust error.
    fn keep(&self, py: Python<'_>, err: PyErr) -> String {
        let message = describe(py, &err);
        if !err.is_instance_of::<PyException>(py) {
            self.cancelled.store(true, Ordering::SeqCst);
            let mut abort = self.abort.lock().unwrap_or_else(|e| e.into_inner());
            if abort.is_none() {
                *abort = Some(err.clone_ref(py));
            }
        }
        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(err);
        }
        message
    }

    /// The kept exception, if a call raised one.
    pub(super) fn take_error(&self) -> Option<PyErr> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// The last reply a client returned.
    pub(super) fn take_reply(&self) -> Option<String> {
        self.reply.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Cancels every later call with `err` as the reason to re-raise.
    pub(super) fn cancel(&self, err: PyErr) {
        self.cancelled.store(true, Ordering::SeqCst);
        let mut abort = self.abort.lock().unwrap_or_else(|e| e.into_inner());
        if abort.is_none() {
            *abort = Some(err);
        }
    }

    /// The interrupt that cancelled the run, if any.
    pub(super) fn take_abort(&self) -> Option<PyErr> {
        self.abort.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Whether an interrupt cancelled the run.
    pub(super) fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }
}

/// `ValueError: text` for a Python exception (its class name and message).
fn describe(py: Python<'_>, err: &PyErr) -> String {
    let class = err
        .get_type(py)
        .name()
        .and_then(|n| n.to_cow().map(|c| c.into_owned()))
        .unwrap_or_else(|_| "Exception".to_owned());
    let text = err
        .value(py)
        .str()
        .and_then(|s| s.to_cow().map(|c| c.into_owned()))
        .unwrap_or_default();
    if text.is_empty() {
        class
    } else {
        format!("{class}: {text}")
    }
}

/// Runs an awaitable to its result: on `event_loop` when given, else on a new loop.
fn resolve<'py>(
    py: Python<'py>,
    value: Bound<'py, PyAny>,
    event_loop: Option<&Py<PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if !value.hasattr("__await__")? {
        return Ok(value);
    }
    static ON_LOOP: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    static NEW_LOOP: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    match event_loop {
        Some(event_loop) => ON_LOOP
            .import(py, "capkit_rs.mutator", "_await_on_loop")?
            .call1((value, event_loop)),
        None => NEW_LOOP
            .import(py, "capkit_rs.mutator", "_await_in_new_loop")?
            .call1((value,)),
    }
}

/// A Python LLM client: `client.generate(prompt)` returning `str` or an awaitable of `str`.
pub(super) struct PyClient<'a> {
    pub(super) client: &'a Py<PyAny>,
    pub(super) event_loop: Option<&'a Py<PyAny>>,
    pub(super) calls: &'a Calls,
}

impl LlmClient for PyClient<'_> {
    fn generate(&self, prompt: &str) -> Result<String, ClientError> {
        if self.calls.cancelled() {
            return Err(ClientError::Other("cancelled by an interrupt".to_owned()));
        }
        Python::attach(|py| {
            let reply = (|| -> PyResult<String> {
                let out = self.client.bind(py).call_method1("generate", (prompt,))?;
                let out = resolve(py, out, self.event_loop)?;
                let text = out.cast::<PyString>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "client.generate() must return a str, got {}",
                        type_name(&out)
                    ))
                })?;
                Ok(text.to_cow()?.into_owned())
            })();
            match reply {
                Ok(text) => {
                    *self.calls.reply.lock().unwrap_or_else(|e| e.into_inner()) =
                        Some(text.clone());
                    Ok(text)
                }
                Err(err) => Err(ClientError::Other(self.calls.keep(py, err))),
            }
        })
    }
}

/// A Python mutator: `mutator.mutate(MutationContext(...))` (sync or `async`) returning an object
/// with `updated_state` (an `InterpretiveState`) and `metadata`.
pub(super) struct PyMutator<'a> {
    pub(super) mutator: &'a Py<PyAny>,
    pub(super) event_loop: Option<&'a Py<PyAny>>,
    pub(super) calls: &'a Calls,
}

impl Mutator for PyMutator<'_> {
    fn mutate(&self, context: MutationContext<'_>) -> Result<MutationResult, Error> {
        if self.calls.cancelled() {
            return Err(Error::Mutator("cancelled by an interrupt".to_owned()));
        }
        Python::attach(|py| {
            let result = (|| -> PyResult<MutationResult> {
                static CONTEXT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
                let metadata = match context.metadata {
                    Some(m) => to_py(py, m)?,
                    None => py.None().into_bound(py),
                };
                let ctx = CONTEXT
                    .import(py, "capkit_rs.mutator", "MutationContext")?
                    .call1((
                        PyStructuredInput {
                            inner: context.input.clone(),
                        },
                        PyInterpretiveState::from_rust(context.state),
                        metadata,
                    ))?;
                let out = self.mutator.bind(py).call_method1("mutate", (ctx,))?;
                let out = resolve(py, out, self.event_loop)?;
                let state = out.getattr("updated_state")?;
                let state = state.cast::<PyInterpretiveState>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "mutate() must return a MutationResult whose updated_state is an InterpretiveState, got {} ({})",
                        type_name(&state),
                        str_form(&state).unwrap_or_default()
                    ))
                })?;
                let updated_state = state.try_borrow()?.inner.clone();
                let metadata = match out.getattr("metadata") {
                    Ok(m) if !m.is_none() => Some(to_value(&m)?),
                    _ => None,
                };
                Ok(MutationResult {
                    updated_state,
                    metadata,
                })
            })();
            result.map_err(|err| Error::Mutator(self.calls.keep(py, err)))
        })
    }
}
