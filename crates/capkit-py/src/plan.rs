//! Planning a profile for execution elsewhere (Ray), by the runner's plan (`runner::plan`): how
//! the texts are cut into shards, the teacher's sampling fraction, which distinct probe texts
//! the report asks about, and which distinct texts each stage sends the models. `capkit_rs.ray`
//! only calls these; this module only converts.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

use suite_core::TeacherSample;

use crate::convert::texts_of;
use crate::errors::{runner_error, suite_error};
use crate::profile::rust_suite;
use crate::report::{report_suite, teacher_design};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_plan_texts, m)?)?;
    m.add_function(wrap_pyfunction!(_teacher_fraction, m)?)?;
    m.add_function(wrap_pyfunction!(_plan_shards, m)?)?;
    m.add_function(wrap_pyfunction!(_plan_probes, m)?)?;
    Ok(())
}

/// `_teacher_fraction(suite, texts, teacher_sample=None, teacher_budget=None, *, extract=False)
/// -> float | None`: the fraction of texts a profile of `texts` texts under `suite` samples for
/// its teacher (`None`: the full profile), by the runner's rule (a budget is split over the
/// suite's transformed stages and the *total* number of texts), which `capture_profile_report`
/// and the command line apply too. A profile split into shards samples each shard with this
/// one fraction, so the shards agree with a single run.
#[pyfunction]
#[pyo3(signature = (suite, texts, teacher_sample = None, teacher_budget = None, *, extract = false))]
fn _teacher_fraction(
    py: Python<'_>,
    suite: &Bound<'_, PyAny>,
    texts: u64,
    teacher_sample: Option<f64>,
    teacher_budget: Option<u64>,
    extract: bool,
) -> PyResult<Option<f64>> {
    let stages = suite.getattr("corruptions")?.len()? + suite.getattr("invariances")?.len()?;
    let design = teacher_design(
        py,
        (teacher_sample, teacher_budget, 0),
        extract,
        stages,
        texts,
    )?;
    Ok(design.map(|d| d.fraction()))
}

/// `_plan_shards(count, shards) -> list[tuple[int, int]]`: the `[start, end)` ranges of the
/// shards `count` texts (or names) are cut into (`runner::plan::shard_ranges`). `shards` must be
/// a positive `int` (a `bool` is not): anything else is a `ValueError`.
#[pyfunction]
fn _plan_shards(count: usize, shards: &Bound<'_, PyAny>) -> PyResult<Vec<(usize, usize)>> {
    let positive_int =
        shards.is_instance_of::<PyInt>() && !shards.is_instance_of::<PyBool>() && shards.gt(0)?;
    if !positive_int {
        return Err(PyValueError::new_err(format!(
            "shards must be a positive int, got {}",
            shards.repr()?
        )));
    }
    // Beyond usize, as many shards as texts.
    let shards = shards.extract::<usize>().unwrap_or(usize::MAX);
    Ok(runner::plan::shard_ranges(count, shards))
}

/// `_plan_probes(suite, *, extract=False) -> list[str]`: the distinct probe texts a report of
/// `suite` asks both models about, once for all its texts and shards, in the order the engine
/// sends them. A report keeps its probes as text, so a probe that is not a `str` is the
/// `TypeError` `capture_profile_report` raises; an extractor's report has no probes.
#[pyfunction]
#[pyo3(signature = (suite, *, extract = false))]
fn _plan_probes(py: Python<'_>, suite: &Bound<'_, PyAny>, extract: bool) -> PyResult<Vec<String>> {
    let rust = report_suite(suite, &[], !extract)?;
    runner::plan::plan_probes(&rust).map_err(|e| suite_error(py, e))
}

/// `(text, stage, teacher)` for every distinct text a profile of `texts` under `suite` sends the
/// student, in the order the engine first sends it, with the stage that first sends it (`clean`,
/// `corruption:NAME`, `invariance:NAME`) and whether the teacher is asked about it too
/// (`runner::plan::plan_texts`). Probes are not included.
#[pyfunction]
#[pyo3(signature = (texts, suite, *, teacher_sample = None, teacher_seed = 0))]
fn _plan_texts(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    suite: &Bound<'_, PyAny>,
    teacher_sample: Option<f64>,
    teacher_seed: u64,
) -> PyResult<Vec<(String, String, bool)>> {
    let texts = texts_of(texts)?;
    let (suite, _probes) = rust_suite(suite, &texts)?;
    let sample = teacher_sample
        .map(|f| TeacherSample::new(f, teacher_seed))
        .transpose()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let plan = py
        .detach(|| runner::plan::plan_texts(&texts, &suite, sample.as_ref()))
        .map_err(|e| runner_error(py, runner::Error::Engine(e)))?;
    Ok(plan
        .into_iter()
        .map(|p| (p.text, p.stage, p.teacher))
        .collect())
}
