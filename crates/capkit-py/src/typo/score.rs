//! Scoring: `score` (one prediction, strict whole-set) and `summarize` (per-task macro
//! averages labelled with their `Needs`).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use typo_tasks::{ScoreResult, Summary, score, summarize};

use super::tables::{PyRegistry, PyTask};
use super::{add_function, needs_py, variants_of, variants_py};
use crate::convert::type_name;
use crate::reprs::{repr_bool, repr_str};
use profile_types::value::py_float_repr;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyScoreResult>()?;
    m.add_class::<PySummary>()?;
    add_function(m, wrap_pyfunction!(py_score, m)?)?;
    add_function(m, wrap_pyfunction!(py_summarize, m)?)?;
    Ok(())
}

/// One scored prediction. The lists are sorted bytewise (members `str`, or `bytes` when not
/// UTF-8): `hit` and `spurious` split `predict`, `missed` is what `expect` has that the
/// prediction lacks.
#[pyclass(name = "ScoreResult", module = "capkit_rs.typo", frozen, eq)]
#[derive(Clone, PartialEq)]
pub(super) struct PyScoreResult {
    inner: ScoreResult,
}

#[pymethods]
impl PyScoreResult {
    /// The task id.
    #[getter]
    fn task(&self) -> &str {
        &self.inner.task
    }

    /// The input name.
    #[getter]
    fn input(&self) -> &str {
        &self.inner.input
    }

    /// The oracle's expected set.
    #[getter]
    fn expect<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        variants_py(py, &self.inner.expect)
    }

    /// The normalised prediction (without `""`, the input and duplicates; sorted).
    #[getter]
    fn predict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        variants_py(py, &self.inner.predict)
    }

    /// Predicted members that are expected.
    #[getter]
    fn hit<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        variants_py(py, &self.inner.hit)
    }

    /// Expected members not predicted.
    #[getter]
    fn missed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        variants_py(py, &self.inner.missed)
    }

    /// Predicted members not expected.
    #[getter]
    fn spurious<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        variants_py(py, &self.inner.spurious)
    }

    /// The whole set: nothing missed and nothing invented.
    #[getter]
    fn exact(&self) -> bool {
        self.inner.exact()
    }

    /// `len(hit) / len(predict)`, and 1.0 for an empty prediction.
    #[getter]
    fn precision(&self) -> f64 {
        self.inner.precision()
    }

    /// `len(hit) / len(expect)`, and 1.0 for an empty expected set.
    #[getter]
    fn recall(&self) -> f64 {
        self.inner.recall()
    }

    /// `2PR / (P + R)`, and 0.0 when `P + R` is 0.
    #[getter]
    fn f1(&self) -> f64 {
        self.inner.f1()
    }

    /// The result as a `dict` (the shape of upstream's `Result` JSON).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("task", self.task())?;
        d.set_item("input", self.input())?;
        d.set_item("expect", self.expect(py)?)?;
        d.set_item("predict", self.predict(py)?)?;
        d.set_item("hit", self.hit(py)?)?;
        d.set_item("missed", self.missed(py)?)?;
        d.set_item("spurious", self.spurious(py)?)?;
        d.set_item("exact", self.exact())?;
        d.set_item("precision", self.precision())?;
        d.set_item("recall", self.recall())?;
        d.set_item("f1", self.f1())?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "ScoreResult(task={}, input={}, exact={}, precision={}, recall={}, f1={})",
            repr_str(&self.inner.task),
            repr_str(&self.inner.input),
            repr_bool(self.inner.exact()),
            py_float_repr(self.inner.precision()),
            py_float_repr(self.inner.recall()),
            py_float_repr(self.inner.f1())
        )
    }
}

/// `score(task, input, predict) -> ScoreResult`: strict scoring of a predicted set (`str` or
/// `bytes` members) against the task's whole expected set, which the oracle computes again.
/// The prediction is normalised exactly as the oracle's output is, and nothing else: case,
/// whitespace and Unicode normalisation all count.
#[pyfunction(name = "score")]
fn py_score(
    py: Python<'_>,
    task: &Bound<'_, PyTask>,
    input: &str,
    predict: &Bound<'_, PyAny>,
) -> PyResult<PyScoreResult> {
    let predict = variants_of(predict, "predict")?;
    let task = &task.get().inner;
    let inner = py.detach(|| score(task, input, predict));
    Ok(PyScoreResult { inner })
}

/// One task's macro-averaged scores: each mean is over results, so `f1` is the mean of the
/// per-result F1 values. `needs` comes from the registry. `str()` is upstream's one-line layout.
#[pyclass(name = "Summary", module = "capkit_rs.typo", frozen, eq)]
#[derive(PartialEq)]
pub(super) struct PySummary {
    inner: Summary,
}

#[pymethods]
impl PySummary {
    /// The task id.
    #[getter]
    fn task(&self) -> &str {
        &self.inner.task
    }

    /// Rule or table, from the registry.
    #[getter]
    fn needs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        needs_py(py, self.inner.needs)
    }

    /// Results summarised.
    #[getter]
    fn n(&self) -> usize {
        self.inner.n
    }

    /// Share of exact results.
    #[getter]
    fn exact_match(&self) -> f64 {
        self.inner.exact_match
    }

    /// Mean precision.
    #[getter]
    fn precision(&self) -> f64 {
        self.inner.precision
    }

    /// Mean recall.
    #[getter]
    fn recall(&self) -> f64 {
        self.inner.recall
    }

    /// Mean F1.
    #[getter]
    fn f1(&self) -> f64 {
        self.inner.f1
    }

    /// The summary as a `dict` (`needs` as its string), the JSON shape of `capkit typo score
    /// --json`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("task", &self.inner.task)?;
        d.set_item("needs", self.inner.needs.as_str())?;
        d.set_item("n", self.inner.n)?;
        d.set_item("exact_match", self.inner.exact_match)?;
        d.set_item("precision", self.inner.precision)?;
        d.set_item("recall", self.inner.recall)?;
        d.set_item("f1", self.inner.f1)?;
        Ok(d)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Summary(task={}, needs={}, n={}, exact_match={}, precision={}, recall={}, f1={})",
            repr_str(&self.inner.task),
            repr_str(self.inner.needs.as_str()),
            self.inner.n,
            py_float_repr(self.inner.exact_match),
            py_float_repr(self.inner.precision),
            py_float_repr(self.inner.recall),
            py_float_repr(self.inner.f1)
        )
    }
}

/// `summarize(results, registry) -> list[Summary]`: macro-averaged summaries per task, in id
/// order, each labelled with its `Needs` from `registry`. Results naming a task the registry
/// does not have are a `ValueError` (their needs would be unknown, and a memorised table could
/// be reported as a learned rule).
#[pyfunction(name = "summarize")]
fn py_summarize(
    py: Python<'_>,
    results: &Bound<'_, PyAny>,
    registry: &Bound<'_, PyRegistry>,
) -> PyResult<Vec<PySummary>> {
    let mut rs = Vec::new();
    for item in results.try_iter()? {
        let item = item?;
        let r = item.cast::<PyScoreResult>().map_err(|_| {
            PyTypeError::new_err(format!(
                "results must hold ScoreResult objects (from score()), got {}",
                type_name(&item)
            ))
        })?;
        rs.push(r.get().inner.clone());
    }
    let registry = &registry.get().inner;
    let summaries = py
        .detach(|| summarize(&rs, registry))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(summaries
        .into_iter()
        .map(|inner| PySummary { inner })
        .collect())
}
