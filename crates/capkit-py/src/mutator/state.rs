//! The interpretive state's data model as Python classes: `ValueConfidence`, `Inference`,
//! `InterpretiveFieldState`, `InterpretiveState`, `StructuredInput`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;

use mutator_eval::{InterpretiveState, StructuredInput, candidates_equal, parse_json};
use profile_types::value::{py_float_repr, py_repr};
use profile_types::{FieldState, Inference, ValueConfidence};

use crate::convert::{to_py, to_value, type_name};
use crate::reprs::{repr_opt, repr_str};

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyValueConfidence>()?;
    m.add_class::<PyInference>()?;
    m.add_class::<PyFieldState>()?;
    m.add_class::<PyInterpretiveState>()?;
    m.add_class::<PyStructuredInput>()?;
    Ok(())
}

/// A confidence given as a Python number (`bool` counts, as Pydantic's lax float lets it).
fn confidence_of(obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    let numeric = obj.is_instance_of::<PyFloat>()
        || obj.is_instance_of::<PyInt>()
        || obj.is_instance_of::<PyBool>();
    if !numeric {
        return Err(PyTypeError::new_err(format!(
            "confidence must be a number, got {}",
            type_name(obj)
        )));
    }
    obj.extract::<f64>()
        .map_err(|_| PyValueError::new_err("confidence is too large for a float"))
}

/// One candidate value of a field with its confidence in [-1, 1] (NaN and infinities refused).
///
/// The value is any JSON-like Python value (`str`, `int`, `float`, `bool`, `None`, `list`,
/// `dict`), stored as given. Equality is upstream's: Python `==` on the values
/// (`1 == 1.0 == True`, dicts ignore key order) and exact equality of the confidences.
#[pyclass(name = "ValueConfidence", module = "capkit_rs.mutator", frozen)]
#[derive(Clone)]
pub(crate) struct PyValueConfidence {
    pub(crate) inner: ValueConfidence,
}

impl PyValueConfidence {
    pub(crate) fn from_rust(inner: ValueConfidence) -> PyValueConfidence {
        PyValueConfidence { inner }
    }
}

#[pymethods]
impl PyValueConfidence {
    #[new]
    #[pyo3(signature = (value, confidence = None), text_signature = "(value, confidence=0.0)")]
    fn new(
        value: &Bound<'_, PyAny>,
        confidence: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyValueConfidence> {
        let value = to_value(value)?;
        let confidence = match confidence {
            Some(c) => confidence_of(c)?,
            None => 0.0,
        };
        ValueConfidence::new(value, confidence)
            .map(|inner| PyValueConfidence { inner })
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The candidate value.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.inner.value())
    }

    /// The confidence, in [-1, 1].
    #[getter]
    fn confidence(&self) -> f64 {
        self.inner.confidence()
    }

    /// `{"value": ..., "confidence": ...}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("value", self.value(py)?)?;
        d.set_item("confidence", self.inner.confidence())?;
        Ok(d)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyValueConfidence>()
            .is_ok_and(|o| candidates_equal(Some(&self.inner), Some(&o.get().inner)))
    }

    fn __repr__(&self) -> String {
        format!(
            "ValueConfidence(value={}, confidence={})",
            py_repr(self.inner.value()),
            py_float_repr(self.inner.confidence())
        )
    }
}

/// Why a field holds its values: the reasoning of the mutator that wrote it last.
#[pyclass(name = "Inference", module = "capkit_rs.mutator", frozen, eq)]
#[derive(Clone, PartialEq)]
pub(crate) struct PyInference {
    pub(crate) inner: Inference,
}

#[pymethods]
impl PyInference {
    #[new]
    #[pyo3(signature = (content, mutator_id = None, message_id = None))]
    fn new(content: String, mutator_id: Option<String>, message_id: Option<String>) -> Self {
        PyInference {
            inner: Inference {
                content,
                mutator_id,
                message_id,
            },
        }
    }

    /// The reasoning text.
    #[getter]
    fn content(&self) -> &str {
        &self.inner.content
    }

    /// The id of the mutator that produced it, if known.
    #[getter]
    fn mutator_id(&self) -> Option<&str> {
        self.inner.mutator_id.as_deref()
    }

    /// The id of the input message it was drawn from, if known.
    #[getter]
    fn message_id(&self) -> Option<&str> {
        self.inner.message_id.as_deref()
    }

    /// `{"content", "mutator_id", "message_id"}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("content", &self.inner.content)?;
        d.set_item("mutator_id", &self.inner.mutator_id)?;
        d.set_item("message_id", &self.inner.message_id)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Inference(content={}, mutator_id={}, message_id={})",
            repr_str(&self.inner.content),
            repr_opt(self.inner.mutator_id.as_deref()),
            repr_opt(self.inner.message_id.as_deref())
        )
    }
}

/// The state of one field: its latest inference and its candidates in the order they were
/// added (on equal confidence the earliest is best).
#[pyclass(name = "InterpretiveFieldState", module = "capkit_rs.mutator", frozen)]
#[derive(Clone)]
pub(crate) struct PyFieldState {
    pub(crate) inner: FieldState,
}

impl PyFieldState {
    fn from_rust(inner: FieldState) -> PyFieldState {
        PyFieldState { inner }
    }
}

#[pymethods]
impl PyFieldState {
    #[new]
    #[pyo3(signature = (inference = None, values = None))]
    fn new(
        inference: Option<&Bound<'_, PyInference>>,
        values: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyFieldState> {
        let mut out = FieldState {
            inference: inference.map(|i| i.get().inner.clone()),
            values: Vec::new(),
        };
        if let Some(values) = values {
            for item in values.try_iter()? {
                let item = item?;
                let vc = item.cast::<PyValueConfidence>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "values must hold ValueConfidence objects, got {}",
                        type_name(&item)
                    ))
                })?;
                out.values.push(vc.get().inner.clone());
            }
        }
        Ok(PyFieldState { inner: out })
    }

    /// The latest inference, or `None`.
    #[getter]
    fn inference(&self) -> Option<PyInference> {
        self.inner
            .inference
            .clone()
            .map(|inner| PyInference { inner })
    }

    /// The candidates, in append order (a copy).
    #[getter]
    fn values(&self) -> Vec<PyValueConfidence> {
        self.inner
            .values
            .iter()
            .cloned()
            .map(PyValueConfidence::from_rust)
            .collect()
    }

    /// `{"inference": {...} | None, "values": [{"value", "confidence"}, ...]}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, &self.inner)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyFieldState>().is_ok_and(|o| {
            let (a, b) = (&self.inner, &o.get().inner);
            a.inference == b.inference
                && a.values.len() == b.values.len()
                && a.values
                    .iter()
                    .zip(&b.values)
                    .all(|(x, y)| candidates_equal(Some(x), Some(y)))
        })
    }

    fn __repr__(&self) -> String {
        let values: Vec<String> = self
            .values()
            .iter()
            .map(PyValueConfidence::__repr__)
            .collect();
        format!(
            "InterpretiveFieldState(inference={}, values=[{}])",
            self.inference()
                .map_or_else(|| "None".to_owned(), |i| i.__repr__()),
            values.join(", ")
        )
    }
}

/// Any serialisable Rust value as the Python value of its JSON.
pub(crate) fn json_py<'py, T: serde::Serialize>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(value).map_err(|e| PyValueError::new_err(e.to_string()))?;
    to_py(py, &value)
}

/// Paths mapped to field states, with implicit parent nodes: writing `a.b.c` first creates the
/// parents `a` and `a.b` (no field state), and parents take part in comparisons.
///
/// `add_value` appends a candidate, `add_inference` replaces the inference, `get_best_value`
/// is the highest confidence (ties to the earliest). `copy()` is a deep copy that keeps the
/// parents. `to_snapshot()` / `from_snapshot()` (and `to_json` / `from_json`) are the snapshot
/// shape of the dataset files: `{path: {"inference", "values"} | None}`, keys sorted.
#[pyclass(name = "InterpretiveState", module = "capkit_rs.mutator", eq)]
#[derive(Clone, Default, PartialEq)]
pub(crate) struct PyInterpretiveState {
    pub(crate) inner: InterpretiveState,
}

impl PyInterpretiveState {
    pub(crate) fn from_rust(inner: InterpretiveState) -> PyInterpretiveState {
        PyInterpretiveState { inner }
    }
}

/// A snapshot (JSON value) as a state; `what` names the argument in errors.
pub(crate) fn state_of_value(value: Value, what: &str) -> PyResult<InterpretiveState> {
    serde_json::from_value(value)
        .map_err(|e| PyValueError::new_err(format!("{what}: not a state snapshot: {e}")))
}

#[pymethods]
impl PyInterpretiveState {
    #[new]
    fn new() -> Self {
        PyInterpretiveState::default()
    }

    /// Appends a candidate to `path` (creating the field and its parents).
    fn add_value(&mut self, path: &str, value: &Bound<'_, PyValueConfidence>) {
        self.inner.add_value(path, value.get().inner.clone());
    }

    /// Sets the inference of `path`, replacing any earlier one.
    fn add_inference(&mut self, path: &str, inference: &Bound<'_, PyInference>) {
        self.inner
            .add_inference(path, inference.get().inner.clone());
    }

    /// Replaces the field state at `path` (creating its parents).
    fn set_field(&mut self, path: &str, field: &Bound<'_, PyFieldState>) {
        self.inner.set_field(path, field.get().inner.clone());
    }

    /// Makes sure a (parent) node exists at `path`, without giving it a field state.
    fn add_node(&mut self, path: &str) {
        self.inner.add_node(path);
    }

    /// The field state at `path`; `None` when absent or a parent node.
    fn get_field(&self, path: &str) -> Option<PyFieldState> {
        self.inner.field(path).cloned().map(PyFieldState::from_rust)
    }

    /// The candidate with the highest confidence (ties to the earliest); `None` for an absent
    /// path, a parent node or a field without values.
    fn get_best_value(&self, path: &str) -> Option<PyValueConfidence> {
        self.inner
            .best_value(path)
            .cloned()
            .map(PyValueConfidence::from_rust)
    }

    /// Every node, parents included (`None`), in creation order: `{path: field | None}`.
    fn get_all_fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (path, field) in self.inner.iter() {
            d.set_item(path, field.cloned().map(PyFieldState::from_rust))?;
        }
        Ok(d)
    }

    /// `(path, field | None)` pairs, in creation order.
    fn iter_fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self
            .inner
            .iter()
            .map(|(path, field)| {
                PyTuple::new(
                    py,
                    [
                        PyString::new(py, path).into_any(),
                        field
                            .cloned()
                            .map(PyFieldState::from_rust)
                            .into_pyobject(py)?
                            .into_any(),
                    ],
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// Paths with at least one candidate.
    fn get_filled_fields(&self) -> Vec<String> {
        self.inner.filled_paths().map(str::to_owned).collect()
    }

    /// Paths without a candidate: parents, inference-only and empty fields.
    fn get_empty_fields(&self) -> Vec<String> {
        self.inner.empty_paths().map(str::to_owned).collect()
    }

    /// With `required`: every required path holds a candidate. Without: every node that has a
    /// field state holds one (parents are not checked).
    #[pyo3(signature = (required = None))]
    fn is_complete(&self, required: Option<Vec<String>>) -> bool {
        match required {
            Some(paths) => {
                let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
                self.inner.is_complete(Some(&refs))
            }
            None => self.inner.is_complete(None),
        }
    }

    /// Every path, parents included, in creation order.
    fn paths(&self) -> Vec<String> {
        self.inner.paths().map(str::to_owned).collect()
    }

    /// A deep copy (parents kept).
    fn copy(&self) -> Self {
        self.clone()
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, path: &str) -> bool {
        self.inner.contains(path)
    }

    /// The state as a snapshot `dict`: `{path: {"inference", "values"} | None}`, keys sorted.
    fn to_snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, &self.inner)
    }

    /// A state from a snapshot `dict` (entries in order, `None` for parents; dotted paths
    /// create their parents). A `ValueError` names what is wrong.
    #[staticmethod]
    fn from_snapshot(snapshot: &Bound<'_, PyAny>) -> PyResult<Self> {
        state_of_value(to_value(snapshot)?, "snapshot").map(PyInterpretiveState::from_rust)
    }

    /// The snapshot as JSON text (keys sorted; `indent` spaces per level, or one line).
    #[pyo3(signature = (indent = None))]
    fn to_json(&self, indent: Option<usize>) -> PyResult<String> {
        let out = match indent {
            None => serde_json::to_string(&self.inner),
            Some(n) => {
                let spaces = " ".repeat(n);
                let mut buf = Vec::new();
                let formatter = serde_json::ser::PrettyFormatter::with_indent(spaces.as_bytes());
                let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
                serde::Serialize::serialize(&self.inner, &mut ser)
                    .map(|()| String::from_utf8_lossy(&buf).into_owned())
            }
        };
        out.map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// A state from snapshot JSON text (floats read correctly rounded).
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        let value = parse_json(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
        state_of_value(value, "from_json").map(PyInterpretiveState::from_rust)
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("InterpretiveState({})", self.to_json(None)?))
    }
}

/// The input a mutator interprets: a prompt (passed to the model verbatim) and the id of the
/// message it came from (copied into every inference the mutator writes).
#[pyclass(name = "StructuredInput", module = "capkit_rs.mutator", frozen, eq)]
#[derive(Clone, PartialEq)]
pub(crate) struct PyStructuredInput {
    pub(crate) inner: StructuredInput,
}

#[pymethods]
impl PyStructuredInput {
    #[new]
    #[pyo3(signature = (prompt, message_id = None))]
    fn new(prompt: &Bound<'_, PyAny>, message_id: Option<String>) -> PyResult<Self> {
        let prompt = prompt.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!("prompt must be a str, got {}", type_name(prompt)))
        })?;
        Ok(PyStructuredInput {
            inner: StructuredInput {
                prompt: prompt.to_cow()?.into_owned(),
                message_id,
            },
        })
    }

    /// The user's text.
    #[getter]
    fn prompt(&self) -> &str {
        &self.inner.prompt
    }

    /// The id of the message, or `None`.
    #[getter]
    fn message_id(&self) -> Option<&str> {
        self.inner.message_id.as_deref()
    }

    fn __repr__(&self) -> String {
        format!(
            "StructuredInput(prompt={}, message_id={})",
            repr_str(&self.inner.prompt),
            repr_opt(self.inner.message_id.as_deref())
        )
    }
}
