//! Reports from Python: the counts behind a profile with intervals, paired tests, severity
//! curves and the abstention analysis (crate `profile-stats`), their merge, and student
//! comparisons. Reports are the JSON documents `capkit profile --report` writes, as `dict`s.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use profile_stats::{Comparison, ProfileReport, Settings};
use suite_core::{CapabilitySuite, Model, TeacherSample};

use crate::adapters::{model_of, spec_of};
use crate::convert::{LabelMode, fields_of, texts_of, to_py, to_value, type_name};
use crate::errors::{capture_error, extractive_error};
use crate::model::SharedBatch;
use crate::profile::rust_suite;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(capture_profile_report, m)?)?;
    m.add_function(wrap_pyfunction!(extractive_profile_report, m)?)?;
    m.add_function(wrap_pyfunction!(merge_reports, m)?)?;
    m.add_function(wrap_pyfunction!(compare_students, m)?)?;
    Ok(())
}

/// Why an extractor profile refuses a teacher sample (the CLI says the same).
pub(crate) const EXTRACT_SAMPLING: &str = profile_stats::RATIO_SAMPLE_REFUSED;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The Rust suite of a report: a report records its probes' predictions, so probes (which a
/// report keeps as text) must be `str`.
pub(crate) fn report_suite(
    suite: &Bound<'_, PyAny>,
    texts: &[String],
    with_probes: bool,
) -> PyResult<CapabilitySuite> {
    let (mut rust, probes) = rust_suite(suite, texts)?;
    if with_probes {
        for probe in probes.iter() {
            let p = probe.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a report keeps its probes as text: suite.probes must hold str values, got {}",
                    type_name(&probe)
                ))
            })?;
            rust.add_probe(p.to_cow()?.into_owned());
        }
    }
    Ok(rust)
}

fn finish<'py>(
    py: Python<'py>,
    report: ProfileReport,
    names: (Option<String>, Option<String>),
    level: f64,
    break_even: f64,
) -> PyResult<Bound<'py, PyAny>> {
    let settings = Settings::new(level, break_even).map_err(value_error)?;
    let report = report.with_models(names.0, names.1).with_settings(settings);
    to_py(py, &report.to_json())
}

/// The teacher's sampling design of `teacher_sample` (a fraction) or `teacher_budget` (calls on
/// transformed texts, split over `stages` transformed stages of `texts` texts), or `None`: the
/// full profile.
pub(crate) fn teacher_design(
    (sample, budget, seed): (Option<f64>, Option<u64>, u64),
    stages: usize,
    texts: u64,
) -> PyResult<Option<TeacherSample>> {
    let design = match (sample, budget) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err(
                "give teacher_sample or teacher_budget, not both",
            ));
        }
        (Some(f), None) => TeacherSample::new(f, seed),
        (None, Some(b)) => TeacherSample::for_budget(b, stages, texts, seed),
    };
    design.map(Some).map_err(value_error)
}

/// The transformed stages of a suite (what a teacher budget is split over).
fn stage_count(suite: &CapabilitySuite) -> usize {
    suite.corruptions().count() + suite.invariances().count()
}

/// The `reference=` of a Python call: every corruption's headline against that teacher answer.
// `examples = 5` in the signatures below is profile_stats::DEFAULT_EXAMPLES written out: a
// literal, so that the signature Python sees (and stubtest checks) shows the default;
// pytests/test_whose_change.py checks the default report keeps 5, as the CLI's test does.
fn reference_of(reference: Option<&str>) -> PyResult<Option<suite_core::Reference>> {
    reference
        .map(|r| {
            suite_core::Reference::from_name(r).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "reference must be 'teacher_transformed' or 'teacher_clean', got {r:?}"
                ))
            })
        })
        .transpose()
}

/// `capture_profile_report(student, teacher, texts, suite, *, student_name=None,
/// teacher_name=None, level=0.95, break_even=0.9, teacher_sample=None, teacher_budget=None,
/// teacher_seed=0, examples=5, ledger=None, reference=None) -> dict`: the counts behind
/// `capture_profile`, with every figure derived from them (``report["profile"]`` is exactly
/// `capture_profile`'s result, probe predictions as ``str()`` forms). With `teacher_sample` (a
/// fraction) or `teacher_budget` (teacher calls on transformed texts), the teacher answers the
/// corrupted and rewritten versions of a seeded sample of the texts only, and the figures
/// needing them are prediction-powered estimates. `examples`: example texts kept per stage and
/// kind of outcome (0: none); `ledger`: a path the per-text ledger is written to (JSONL,
/// atomically, as `capkit profile classify --ledger` writes it); `reference`:
/// ``"teacher_clean"`` or ``"teacher_transformed"`` for every corruption's headline.
#[pyfunction]
#[pyo3(signature = (student, teacher, texts, suite, *, student_name = None, teacher_name = None, level = 0.95, break_even = 0.9, teacher_sample = None, teacher_budget = None, teacher_seed = 0, examples = 5, ledger = None, reference = None))]
#[allow(clippy::too_many_arguments)]
fn capture_profile_report<'py>(
    py: Python<'py>,
    student: &Bound<'py, PyAny>,
    teacher: &Bound<'py, PyAny>,
    texts: &Bound<'py, PyAny>,
    suite: &Bound<'py, PyAny>,
    student_name: Option<String>,
    teacher_name: Option<String>,
    level: f64,
    break_even: f64,
    teacher_sample: Option<f64>,
    teacher_budget: Option<u64>,
    teacher_seed: u64,
    examples: usize,
    ledger: Option<std::path::PathBuf>,
    reference: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let texts = texts_of(texts)?;
    let mut rust = report_suite(suite, &texts, true)?;
    if let Some(r) = reference_of(reference)? {
        rust.set_reference(r);
    }
    let options = (teacher_sample, teacher_budget, teacher_seed);
    let design = teacher_design(options, stage_count(&rust), texts.len() as u64)?;
    if let Some(path) = &ledger {
        crate::files::check_writable(path)?;
    }
    let batches = SharedBatch::default();
    let s = model_of(student, LabelMode::StrForm, &batches)?;
    let t = model_of(teacher, LabelMode::StrForm, &batches)?;
    // A macro, not a closure: the run borrows the ledger's writer, which lives inside the
    // atomic write's closure only.
    macro_rules! run {
        () => {
            capture::CaptureRun::new(&s, &t, &rust)?
                .with_teacher_sample(design)
                .with_examples(examples)
        };
    }
    let report = match &ledger {
        None => py
            .detach(|| {
                let mut run = run!();
                run.add(&texts)?;
                run.report()
            })
            .map_err(|e| capture_error(py, e))?,
        Some(path) => {
            // The report comes out of the closure that writes the ledger: the file is renamed
            // into place only when the whole profile ran.
            let mut report = None;
            let written = py.detach(|| {
                crate::files::write_atomically(path, |w| {
                    let mut run = run!().with_ledger(w);
                    run.add(&texts)?;
                    report = Some(run.report()?);
                    Ok::<(), capture::Error>(())
                })
            });
            match written {
                Ok(()) => {}
                Err(crate::files::WriteError::Refused(e)) => return Err(capture_error(py, e)),
                Err(e) => return Err(pyo3::exceptions::PyOSError::new_err(e.to_string())),
            }
            report.ok_or_else(|| PyValueError::new_err("the profile wrote no report"))?
        }
    };
    // An adapter model is named by its spec, as `capkit profile --report` names it.
    let names = (
        student_name.or_else(|| spec_of(student)),
        teacher_name.or_else(|| spec_of(teacher)),
    );
    finish(py, report, names, level, break_even)
}

/// `extractive_profile_report(student, teacher, texts, suite, *, fields, student_name=None,
/// teacher_name=None, level=0.95, break_even=0.9, teacher_sample=None, teacher_budget=None,
/// teacher_seed=0) -> dict`: the counts behind `extractive_capture_profile` (micro TP/FP/FN
/// and the sums behind the F1 intervals). A teacher sample is refused, with the reason
/// ([`EXTRACT_SAMPLING`]): the options exist so that the refusal says why.
#[pyfunction]
#[pyo3(signature = (student, teacher, texts, suite, *, fields, student_name = None, teacher_name = None, level = 0.95, break_even = 0.9, teacher_sample = None, teacher_budget = None, teacher_seed = 0))]
#[allow(clippy::too_many_arguments)]
fn extractive_profile_report<'py>(
    py: Python<'py>,
    student: &Bound<'py, PyAny>,
    teacher: &Bound<'py, PyAny>,
    texts: &Bound<'py, PyAny>,
    suite: &Bound<'py, PyAny>,
    fields: &Bound<'py, PyAny>,
    student_name: Option<String>,
    teacher_name: Option<String>,
    level: f64,
    break_even: f64,
    teacher_sample: Option<f64>,
    teacher_budget: Option<u64>,
    teacher_seed: u64,
) -> PyResult<Bound<'py, PyAny>> {
    // A seed alone samples nothing: accepted, as capture_profile_report accepts it, and unused.
    let _ = teacher_seed;
    if teacher_sample.is_some() || teacher_budget.is_some() {
        return Err(PyValueError::new_err(EXTRACT_SAMPLING));
    }
    let texts = texts_of(texts)?;
    let (fields, _) = fields_of(fields)?;
    let rust = report_suite(suite, &texts, false)?;
    let batches = SharedBatch::default();
    let s = model_of(student, LabelMode::Value, &batches)?;
    let t = model_of(teacher, LabelMode::Value, &batches)?;
    let report = py
        .detach(|| extractive::extractive_profile_report(&s, &t, &texts, &rust, &fields))
        .map_err(|e| extractive_error(py, e))?;
    // An adapter model is named by its spec, as `capkit profile --report` names it.
    let names = (
        student_name.or_else(|| spec_of(student)),
        teacher_name.or_else(|| spec_of(teacher)),
    );
    finish(py, report, names, level, break_even)
}

/// `merge_reports(reports) -> dict`: the report over all the reports' texts (counts added; the
/// merged report equals the report of one run over every text). Refuses, naming what differs,
/// reports of different suites, models, settings or tasks.
#[pyfunction]
fn merge_reports<'py>(py: Python<'py>, reports: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let mut merged: Option<ProfileReport> = None;
    for (i, item) in reports.try_iter()?.enumerate() {
        let report = ProfileReport::from_json(&to_value(&item?)?)
            .map_err(|e| PyValueError::new_err(format!("report {i}: {e}")))?;
        merged = Some(match merged {
            None => report,
            Some(m) => m
                .merge(&report)
                .map_err(|e| PyValueError::new_err(format!("report {i}: {e}")))?,
        });
    }
    let merged =
        merged.ok_or_else(|| PyValueError::new_err("merge_reports needs at least one report"))?;
    to_py(py, &merged.to_json())
}

/// `compare_students(teacher, students, texts, suite, *, fields=None, teacher_sample=None,
/// teacher_budget=None, teacher_seed=0) -> dict`: several students (a `dict` name -> model)
/// against one teacher on one suite, the teacher's answers computed once; each student's report
/// and, for every pair, McNemar's score tests and Tango intervals of the differences
/// (Holm-adjusted). With
/// `fields`, the students are extractors. `teacher_sample` / `teacher_budget` as for
/// `capture_profile_report` (classifiers only), and so are `examples` (per student) and
/// `reference`. `aliases`: short names for some students (`{alias: student name}`, as the
/// command line's `--alias`; the others get A, B, C…), which pages and gates use;
/// `teacher_name`: the teacher's name in the comparison and every student's report (an adapter
/// model is named by its spec without it).
#[pyfunction]
#[pyo3(signature = (teacher, students, texts, suite, *, fields = None, teacher_sample = None, teacher_budget = None, teacher_seed = 0, examples = 5, reference = None, aliases = None, teacher_name = None))]
#[allow(clippy::too_many_arguments)]
fn compare_students<'py>(
    py: Python<'py>,
    teacher: &Bound<'py, PyAny>,
    students: &Bound<'py, PyDict>,
    texts: &Bound<'py, PyAny>,
    suite: &Bound<'py, PyAny>,
    fields: Option<&Bound<'py, PyAny>>,
    teacher_sample: Option<f64>,
    teacher_budget: Option<u64>,
    teacher_seed: u64,
    examples: usize,
    reference: Option<&str>,
    aliases: Option<std::collections::BTreeMap<String, String>>,
    teacher_name: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let texts = texts_of(texts)?;
    let reference = reference_of(reference)?;
    let teacher_name = teacher_name.or_else(|| spec_of(teacher));
    let fields = fields
        .map(|f| fields_of(f).map(|(keys, _)| keys))
        .transpose()?;
    if fields.is_some() && (teacher_sample.is_some() || teacher_budget.is_some()) {
        return Err(PyValueError::new_err(EXTRACT_SAMPLING));
    }
    let mode = if fields.is_some() {
        LabelMode::Value
    } else {
        LabelMode::StrForm
    };
    let mut rust = report_suite(suite, &texts, fields.is_none())?;
    if let Some(r) = reference {
        rust.set_reference(r);
    }
    let options = (teacher_sample, teacher_budget, teacher_seed);
    let design = teacher_design(options, stage_count(&rust), texts.len() as u64)?;
    let batches = SharedBatch::default();
    let t = model_of(teacher, mode, &batches)?;
    let mut models = Vec::with_capacity(students.len());
    for (name, model) in students.iter() {
        let name = name
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err("students must map str names to models"))?
            .to_cow()?
            .into_owned();
        models.push((name, model_of(&model, mode, &batches)?));
    }
    // Built inside the detached closures: `&dyn Model` is not `Sync`, the models are.
    let named = || -> Vec<(&str, &dyn Model)> {
        models
            .iter()
            .map(|(n, m)| (n.as_str(), m as &dyn Model))
            .collect()
    };
    let comparison: Comparison = match &fields {
        None => py
            .detach(|| {
                capture::compare_students_with(&t, &named(), [&texts[..]], &rust, design, examples)
            })
            .map_err(|e| capture_error(py, e))?,
        Some(fields) => py
            .detach(|| extractive::compare_students(&t, &named(), &texts, &rust, fields))
            .map_err(|e| extractive_error(py, e))?,
    };
    // The library checks the aliases (each names a student, once; a valid alias), as it does
    // the command line's.
    let comparison = comparison
        .with_aliases(aliases.unwrap_or_default())
        .map_err(|e| PyValueError::new_err(format!("aliases: {e}")))?;
    let comparison = match teacher_name {
        Some(name) => comparison.with_teacher(Some(name)),
        None => comparison,
    };
    to_py(py, &comparison.to_json())
}
