//! `capkit_rs.mutator`: the `mutator-eval` crate from Python, mirroring LangState's
//! `LLMEvaluator` / `LLMMutator` API.
//!
//! * `state`: the data model (`ValueConfidence`, `Inference`, `InterpretiveFieldState`,
//!   `InterpretiveState`, `StructuredInput`) as Python classes over the Rust types.
//! * `client`: Python objects behind the Rust `LlmClient` and `Mutator` traits. A client's
//!   `generate(prompt)` may be sync or `async`; an awaitable is run on the caller's event loop
//!   (the Python wrapper runs the Rust evaluation in a worker thread while its loop stays free)
//!   or, without one, on a fresh loop.
//! * `run`: the evaluator, the LLM mutator, the dataset runner (same result lines as
//!   `capkit mutator eval`), reply parsing and the prompt.
//!
//! Native names are registered flat in `capkit_rs._native` (classes under their own names,
//! functions prefixed `mutator_`); `capkit_rs/mutator.py` re-exports them and adds the async
//! face and the result dataclasses.

mod client;
mod run;
mod state;

use pyo3::prelude::*;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    state::register(m)?;
    run::register(m)?;
    Ok(())
}

/// Adds a `#[pyfunction]` as `mutator_<its name>`.
fn add_function(m: &Bound<'_, PyModule>, f: Bound<'_, pyo3::types::PyCFunction>) -> PyResult<()> {
    crate::native::add_prefixed(m, "mutator", f)
}
