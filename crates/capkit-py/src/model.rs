//! Python models behind `suite_core::Model`, reached exactly as upstream mixle reaches them.
//!
//! Prediction (first match wins): an attribute `batch` → `list(model.batch(texts))`; an attribute
//! `task` → `list(model.task.batch(texts))`; otherwise the model is called once with the whole list
//! and, unless that returns a `list`/`tuple` of the right length, once per text; a model marked
//! `per_item(f)` is called once per text only, and an exception from the call with the whole
//! list gets a note saying so ([`PER_ITEM_HINT`]). Decisions:
//! `batch_decide(texts)`, else `decide(text)` per text, else no decision API; a decision of exactly
//! `None` escalates. The profile runs with the GIL released and attaches only around these calls;
//! a Python exception travels back as the model's error, untouched, so the caller can re-raise it.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use profile_types::Label;
use suite_core::{Decision, Model, ModelError, SharedLabel};

use crate::convert::{Converter, LabelMode};
use crate::errors::with_context;

/// A Python object used as a student or teacher.
pub(crate) struct PyModel {
    obj: Py<PyAny>,
    mode: LabelMode,
    batches: SharedBatch,
}

/// The Python list of the last batch, shared by the two models of one profile: the engine asks
/// the student, then the teacher, about the same texts, and upstream hands both the very same
/// list object too. A batch is identified by the address and length of each text and a hash of
/// their contents: the engine frees a chunk's texts before the next chunk, whose texts may
/// reuse the same addresses.
#[derive(Clone, Default)]
pub(crate) struct SharedBatch(Arc<Mutex<Option<LastBatch>>>);

/// The (address, length) of each text of the last batch, the hash of their contents, and its
/// Python list.
type LastBatch = ((Vec<(usize, usize)>, u64), Py<PyList>);

impl SharedBatch {
    fn list<'py>(&self, py: Python<'py>, texts: &[&str]) -> PyResult<Bound<'py, PyList>> {
        let addresses: Vec<(usize, usize)> = texts
            .iter()
            .map(|t| (t.as_ptr() as usize, t.len()))
            .collect();
        let mut hasher =
            std::hash::BuildHasher::build_hasher(&foldhash::fast::FixedState::default());
        for t in texts {
            std::hash::Hasher::write(&mut hasher, t.as_bytes());
        }
        let key = (addresses, std::hash::Hasher::finish(&hasher));
        let mut last = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((k, list)) = last.as_ref()
            && *k == key
        {
            return Ok(list.bind(py).clone());
        }
        let list = PyList::new(py, texts)?;
        *last = Some((key, list.clone().unbind()));
        Ok(list)
    }
}

impl PyModel {
    /// A model over `obj`; the student and teacher of one profile share `batches`.
    pub(crate) fn new(obj: &Bound<'_, PyAny>, mode: LabelMode, batches: &SharedBatch) -> PyModel {
        PyModel {
            obj: obj.clone().unbind(),
            mode,
            batches: batches.clone(),
        }
    }
}

/// `list(iterable)`, element by element.
fn to_vec<'py>(out: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    out.try_iter()?.collect()
}

/// The note a model's exception gets when it was raised by the call with the whole list of texts:
/// a callable written for one text often fails there, with a message of its own that says
/// nothing about batches.
pub(crate) const PER_ITEM_HINT: &str = "capkit called this model once with the whole list of \
    texts (a callable without a `batch` method is tried on the batch first, as mixle does); if \
    it takes one text at a time, mark it: capkit_rs.per_item(model)";

/// `per_item(f)`: `f` marked as a per-item model, called with one text (or probe) at a time and
/// never with a list. Calling the wrapper calls `f`; its other attributes (`decide`, ...) are
/// `f`'s.
#[pyclass(name = "per_item", module = "capkit_rs", frozen)]
pub(crate) struct PerItem {
    f: Py<PyAny>,
}

#[pymethods]
impl PerItem {
    #[new]
    fn new(f: &Bound<'_, PyAny>) -> PyResult<PerItem> {
        if !f.is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "per_item takes a callable (a model called with one text), got {}",
                crate::convert::type_name(f)
            )));
        }
        Ok(PerItem {
            f: f.clone().unbind(),
        })
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.f.bind(py).call(args, kwargs)
    }

    /// The callable marked.
    #[getter]
    fn __wrapped__(&self, py: Python<'_>) -> Py<PyAny> {
        self.f.clone_ref(py)
    }

    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        self.f.bind(py).getattr(name)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("capkit_rs.per_item({})", self.f.bind(py).repr()?))
    }

    /// Pickling support (Ray workers): marked again on the other side.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Py<PyAny>,))> {
        let cls = py.get_type::<PerItem>().into_any();
        Ok((cls, (self.f.clone_ref(py),)))
    }
}

/// Upstream's predict dispatch over any Python list of inputs (texts, or raw probes); a model
/// marked [`PerItem`] is called once per input.
pub(crate) fn predict<'py>(
    model: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyList>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if let Ok(marked) = model.cast::<PerItem>() {
        let f = marked.get().f.bind(model.py());
        return inputs.iter().map(|item| f.call1((item,))).collect();
    }
    if model.hasattr("batch")? {
        return to_vec(&model.call_method1("batch", (inputs,))?);
    }
    if model.hasattr("task")? {
        return to_vec(&model.getattr("task")?.call_method1("batch", (inputs,))?);
    }
    let first = model
        .call1((inputs,))
        .map_err(|e| with_context(model.py(), e, PER_ITEM_HINT))?;
    let is_sequence = first.is_instance_of::<PyList>() || first.is_instance_of::<PyTuple>();
    if is_sequence && first.len()? == inputs.len() {
        return to_vec(&first);
    }
    inputs.iter().map(|item| model.call1((item,))).collect()
}

/// Upstream's decide dispatch: `None` when the model has no decision API.
fn decide<'py>(
    model: &Bound<'py, PyAny>,
    texts: &Bound<'py, PyList>,
) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
    if model.hasattr("batch_decide")? {
        return to_vec(&model.call_method1("batch_decide", (texts,))?).map(Some);
    }
    if model.hasattr("decide")? {
        return texts
            .iter()
            .map(|t| model.call_method1("decide", (t,)))
            .collect::<PyResult<Vec<_>>>()
            .map(Some);
    }
    Ok(None)
}

fn boxed(err: PyErr) -> ModelError {
    Box::new(err)
}

impl PyModel {
    /// The model's answers to `texts`, each Python object converted once (see [`Converter`]).
    fn answers(&self, texts: &[&str]) -> PyResult<Vec<SharedLabel>> {
        Python::attach(|py| {
            let inputs = self.batches.list(py, texts)?;
            let outputs = predict(self.obj.bind(py), &inputs)?;
            let mut converter = Converter::new(self.mode);
            outputs.iter().map(|o| converter.convert(o)).collect()
        })
    }
}

impl Model for PyModel {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok(self
            .answers(texts)
            .map_err(boxed)?
            .into_iter()
            .map(Arc::unwrap_or_clone)
            .collect())
    }

    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        self.answers(texts).map_err(boxed)
    }

    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        Python::attach(|py| {
            let run = || -> PyResult<Option<Vec<Decision>>> {
                let inputs = self.batches.list(py, texts)?;
                let Some(decisions) = decide(self.obj.bind(py), &inputs)? else {
                    return Ok(None);
                };
                let mut converter = Converter::new(self.mode);
                decisions
                    .iter()
                    .map(|d| {
                        if d.is_none() {
                            Ok(Decision::Escalate)
                        } else {
                            // The answer itself is not read by any profile; a value JSON cannot
                            // hold must not fail the run, so fall back to its `str()` form.
                            converter
                                .convert(d)
                                .map(Arc::unwrap_or_clone)
                                .or_else(|_| crate::convert::str_form(d).map(Label::String))
                                .map(Decision::Answer)
                        }
                    })
                    .collect::<PyResult<Vec<_>>>()
                    .map(Some)
            };
            run().transpose().map(|r| r.map_err(boxed))
        })
    }
}
