//! Planning a profile for execution elsewhere (Ray): how the texts are cut into shards, which
//! distinct probe texts the report asks about, and which distinct texts each stage sends the
//! models, computed by the profile engine itself over models that answer nothing, so the plan is
//! exactly what a single-process profile would ask (a sampled teacher included). `capkit_rs.ray`
//! only calls these.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

use profile_types::Label;
use suite_core::{Model, ModelError, PredictionCache, Stage, TeacherSample, TextHash};

use crate::convert::texts_of;
use crate::errors::suite_error;
use crate::profile::rust_suite;
use crate::report::{EXTRACT_SAMPLING, report_suite, teacher_design};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_plan_texts, m)?)?;
    m.add_function(wrap_pyfunction!(_teacher_fraction, m)?)?;
    m.add_function(wrap_pyfunction!(_plan_shards, m)?)?;
    m.add_function(wrap_pyfunction!(_plan_probes, m)?)?;
    Ok(())
}

/// `_teacher_fraction(suite, texts, teacher_sample=None, teacher_budget=None, *, extract=False)
/// -> float | None`: the fraction of texts a profile of `texts` texts under `suite` samples for its teacher
/// (`None`: the full profile), by the rule `capture_profile_report` applies (a budget is split
/// over the suite's transformed stages and the *total* number of texts). A profile split into
/// shards samples each shard with this one fraction, so the shards agree with a single run. An
/// extractor profile (`extract`) refuses a sample, as `compare_students` does.
#[pyfunction]
#[pyo3(signature = (suite, texts, teacher_sample = None, teacher_budget = None, *, extract = false))]
fn _teacher_fraction(
    suite: &Bound<'_, PyAny>,
    texts: u64,
    teacher_sample: Option<f64>,
    teacher_budget: Option<u64>,
    extract: bool,
) -> PyResult<Option<f64>> {
    if extract && (teacher_sample.is_some() || teacher_budget.is_some()) {
        return Err(pyo3::exceptions::PyValueError::new_err(EXTRACT_SAMPLING));
    }
    let stages = suite.getattr("corruptions")?.len()? + suite.getattr("invariances")?.len()?;
    let design = teacher_design((teacher_sample, teacher_budget, 0), stages, texts)?;
    Ok(design.map(|d| d.fraction()))
}

/// The `[start, end)` ranges of `count` items cut into `shards` contiguous shards of
/// ⌈count / shards⌉ items (at most one shard per item: fewer shards than asked for when there
/// are fewer items, and the last ones may be shorter or empty); no items are one empty shard.
fn shard_ranges(count: usize, shards: usize) -> Vec<(usize, usize)> {
    let shards = shards.clamp(1, count.max(1));
    let size = count.div_ceil(shards);
    (0..shards)
        .map(|i| ((i * size).min(count), ((i + 1) * size).min(count)))
        .collect()
}

/// `_plan_shards(count, shards) -> list[tuple[int, int]]`: the `[start, end)` ranges of the
/// shards `count` texts (or names) are cut into (see [`shard_ranges`]). `shards` must be a
/// positive `int` (a `bool` is not): anything else is a `ValueError`.
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
    Ok(shard_ranges(count, shards))
}

/// `_plan_probes(suite, *, extract=False) -> list[str]`: the distinct probe texts a report of
/// `suite` asks both models about, once for all its texts and shards, in the order the engine
/// sends them. A report keeps its probes as text, so a probe that is not a `str` is the
/// `TypeError` `capture_profile_report` raises; an extractor's report has no probes.
#[pyfunction]
#[pyo3(signature = (suite, *, extract = false))]
fn _plan_probes(py: Python<'_>, suite: &Bound<'_, PyAny>, extract: bool) -> PyResult<Vec<String>> {
    let rust = report_suite(suite, &[], !extract)?;
    let mut cache = PredictionCache::new(&Silent, &Silent);
    cache
        .stage(&Stage::Probes, rust.probes().iter().map(String::as_str))
        .map_err(|e| suite_error(py, e))?;
    Ok((0..cache.distinct_texts())
        .map(|id| cache.text(id as u32).to_owned())
        .collect())
}

/// A model that is never really asked: the plan only needs the texts.
struct Silent;

impl Model for Silent {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok(vec![Label::Null; texts.len()])
    }
}

/// `(text, stage, teacher)` for every distinct text a profile of `texts` under `suite` sends the
/// student, in the order the engine first sends it, with the stage that first sends it (`clean`,
/// `corruption:NAME`, `invariance:NAME`) and whether the teacher is asked about it too: always,
/// unless `teacher_sample` (a fraction, drawn with `teacher_seed`) samples the teacher, when a
/// transformed text reaches it only from a sampled text (the rule of `capture_profile_report`
/// with the same options, text by text). Probes are not included.
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
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    py.detach(
        || -> Result<Vec<(String, String, bool)>, suite_core::Error> {
            let mut cache = PredictionCache::new(&Silent, &Silent);
            let mut plan = Vec::new();
            let mut take = |cache: &PredictionCache<'_>, from: usize, stage: String| {
                for id in from..cache.distinct_texts() {
                    plan.push((cache.text(id as u32).to_owned(), stage.clone(), true));
                }
            };
            let from = cache.distinct_texts();
            let clean = cache.stage(&Stage::Clean, texts.iter().map(String::as_str))?;
            take(&cache, from, "clean".to_owned());
            if let Some(sample) = &sample {
                // Per position of the clean stage, as the engine draws it (by content).
                cache.sample_teacher(
                    texts
                        .iter()
                        .map(|t| sample.includes(&TextHash::of(t)))
                        .collect(),
                );
            }
            for (name, transform) in suite.corruptions() {
                let from = cache.distinct_texts();
                cache.transformed(&Stage::Corruption(name.to_owned()), &clean, transform)?;
                take(&cache, from, format!("corruption:{name}"));
            }
            for (name, transform) in suite.invariances() {
                let from = cache.distinct_texts();
                cache.transformed(&Stage::Invariance(name.to_owned()), &clean, transform)?;
                take(&cache, from, format!("invariance:{name}"));
            }
            // Whether the teacher was asked is known once every stage has run (a text first sent
            // from an unsampled text may reach the teacher later from a sampled one).
            for (id, entry) in plan.iter_mut().enumerate() {
                entry.2 = cache.teacher_answered(id as u32);
            }
            Ok(plan)
        },
    )
    .map_err(|e| suite_error(py, e))
}
