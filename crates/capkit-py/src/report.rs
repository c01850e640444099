//! Reports from Python: the counts behind a profile with intervals, paired tests, severity
//! curves and the abstention analysis (crate `profile-stats`), their merge, and student
//! comparisons. Reports are the JSON documents `capkit profile --report` writes, as `dict`s.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use profile_stats::{Settings, Task};
use suite_core::{CapabilitySuite, Model, Side, SuiteSpec, TeacherSample};

use crate::adapters::{model_of, spec_of};
use crate::convert::{LabelMode, fields_of, texts_of, to_py, to_value, type_name};
use crate::errors::runner_error;
use crate::model::SharedBatch;
use crate::profile::{rust_suite, suite_spec};
use crate::progress::Announced;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(capture_profile_report, m)?)?;
    m.add_function(wrap_pyfunction!(extractive_profile_report, m)?)?;
    m.add_function(wrap_pyfunction!(merge_reports, m)?)?;
    m.add_function(wrap_pyfunction!(_merge_shards, m)?)?;
    m.add_function(wrap_pyfunction!(write_report, m)?)?;
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

/// The `texts` block and suite description of a Python report: the same envelope the command
/// line writes (`runner::job`), so the two report files of one run are byte-equal.
fn envelope<'a>(spec: Option<&'a SuiteSpec>, texts: &[String]) -> runner::Envelope<'a> {
    runner::Envelope {
        suite: spec,
        texts: Some(runner::TextsEntry::of(&runner::TextsFingerprint::of(
            texts.iter().map(String::as_str),
        ))),
        runs: Vec::new(),
    }
}

/// The texts in the runner's chunks (a profile's memory is bounded by its chunk).
fn chunks_of(texts: &[String]) -> impl Iterator<Item = Result<Vec<String>, runner::Error>> + '_ {
    texts
        .chunks(suite_core::DEFAULT_CHUNK_SIZE)
        .map(|c| Ok(c.to_vec()))
}

fn settings_of(level: f64, break_even: f64) -> PyResult<Settings> {
    Settings::new(level, break_even).map_err(value_error)
}

/// The teacher's sampling design of `teacher_sample` (a fraction) or `teacher_budget` (calls on
/// transformed texts, split over `stages` transformed stages of `texts` texts), or `None`: the
/// full profile.
pub(crate) fn teacher_design(
    py: Python<'_>,
    (sample, budget, seed): (Option<f64>, Option<u64>, u64),
    extract: bool,
    stages: usize,
    texts: u64,
) -> PyResult<Option<TeacherSample>> {
    let request = match (sample, budget) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err(
                "give teacher_sample or teacher_budget, not both",
            ));
        }
        (Some(f), None) => Some(runner::SampleRequest::Fraction(f)),
        (None, Some(b)) => Some(runner::SampleRequest::Budget(b)),
        (None, None) => None,
    };
    runner::plan::teacher_design(request, seed, extract, stages, texts)
        .map_err(|e| runner_error(py, e))
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
#[pyo3(signature = (student, teacher, texts, suite, *, student_name = None, teacher_name = None, level = 0.95, break_even = 0.9, teacher_sample = None, teacher_budget = None, teacher_seed = 0, examples = 5, ledger = None, reference = None, progress = None))]
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
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let texts = texts_of(texts)?;
    let mut rust = report_suite(suite, &texts, true)?;
    let reference = reference_of(reference)?;
    if let Some(r) = reference {
        rust.set_reference(r);
    }
    let spec = suite_spec(suite, reference)?;
    let options = (teacher_sample, teacher_budget, teacher_seed);
    let design = teacher_design(py, options, false, stage_count(&rust), texts.len() as u64)?;
    if let Some(path) = &ledger {
        crate::files::check_writable(path)?;
    }
    let settings = settings_of(level, break_even)?;
    let batches = SharedBatch::default();
    let student_name = student_name.or_else(|| spec_of(student));
    let teacher_name = teacher_name.or_else(|| spec_of(teacher));
    let s = Announced::new(
        model_of(student, LabelMode::StrForm, &batches)?,
        Side::Student,
        student_name.clone(),
        progress,
    );
    let t = Announced::new(
        model_of(teacher, LabelMode::StrForm, &batches)?,
        Side::Teacher,
        teacher_name.clone(),
        progress,
    );
    let job = runner::ProfileJob {
        task: Task::Classify,
        fields: &[],
        chunk_size: suite_core::DEFAULT_CHUNK_SIZE,
        sample: design,
        examples,
    };
    let output = match &ledger {
        None => py
            .detach(|| runner::job::profile(&job, &s, &t, &rust, chunks_of(&texts), None))
            .map_err(|e| runner_error(py, e))?,
        Some(path) => {
            // The report comes out of the closure that writes the ledger: the file is renamed
            // into place only when the whole profile ran.
            let mut output = None;
            let written = py.detach(|| {
                crate::files::write_atomically(path, |w| {
                    let run = runner::job::profile(&job, &s, &t, &rust, chunks_of(&texts), Some(w));
                    output = Some(run?);
                    Ok::<(), runner::Error>(())
                })
            });
            match written {
                Ok(()) => {}
                Err(crate::files::WriteError::Refused(e)) => return Err(runner_error(py, e)),
                Err(e) => return Err(pyo3::exceptions::PyOSError::new_err(e.to_string())),
            }
            output.ok_or_else(|| PyValueError::new_err("the profile wrote no report"))?
        }
    };
    // An adapter model is named by its spec, as `capkit profile --report` names it.
    let file = runner::job::report_file(
        output,
        student_name,
        teacher_name,
        settings,
        envelope(spec.as_ref(), &texts),
    );
    to_py(py, &file.to_json())
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
    let spec = suite_spec(suite, None)?;
    let settings = settings_of(level, break_even)?;
    let batches = SharedBatch::default();
    let s = model_of(student, LabelMode::Value, &batches)?;
    let t = model_of(teacher, LabelMode::Value, &batches)?;
    let job = runner::ProfileJob {
        task: Task::Extract,
        fields: &fields,
        chunk_size: suite_core::DEFAULT_CHUNK_SIZE,
        sample: None,
        examples: 0,
    };
    let output = py
        .detach(|| runner::job::profile(&job, &s, &t, &rust, chunks_of(&texts), None))
        .map_err(|e| runner_error(py, e))?;
    // An adapter model is named by its spec, as `capkit profile --report` names it.
    let file = runner::job::report_file(
        output,
        student_name.or_else(|| spec_of(student)),
        teacher_name.or_else(|| spec_of(teacher)),
        settings,
        envelope(spec.as_ref(), &texts),
    );
    to_py(py, &file.to_json())
}

/// Report files from Python values, each named `reports[i]` in errors.
fn report_files(reports: &Bound<'_, PyAny>) -> PyResult<Vec<(String, runner::ReportFile)>> {
    let mut files = Vec::new();
    for (i, item) in reports.try_iter()?.enumerate() {
        let name = format!("reports[{i}]");
        let file = runner::ReportFile::from_json(&to_value(&item?)?, &name).map_err(value_error)?;
        files.push((name, file));
    }
    Ok(files)
}

/// `merge_reports(reports, *, dedupe=False) -> dict`: the report over all the reports' texts
/// (counts added; the merged report equals the report of one run over every text), by the
/// command line's rule (`capkit profile merge`): refuses, naming what differs, reports of
/// different suites, models, settings or tasks, and a report whose texts were merged already
/// (its `texts` fingerprint repeats: they would count twice) — unless `dedupe`, which drops such
/// a report with a `UserWarning` when all its texts were merged already.
#[pyfunction]
#[pyo3(signature = (reports, *, dedupe = false))]
fn merge_reports<'py>(
    py: Python<'py>,
    reports: &Bound<'py, PyAny>,
    dedupe: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let files = report_files(reports)?;
    if files.is_empty() {
        return Err(PyValueError::new_err(
            "merge_reports needs at least one report",
        ));
    }
    let merged = runner::merge(files, dedupe).map_err(|e| runner_error(py, e))?;
    for warning in &merged.warnings {
        let message = std::ffi::CString::new(warning.to_string()).unwrap_or_default();
        PyErr::warn(
            py,
            &py.get_type::<pyo3::exceptions::PyUserWarning>(),
            &message,
            1,
        )?;
    }
    to_py(py, &merged.file.to_json())
}

/// `_merge_shards(reports, texts) -> dict`: the reports of the shards of one run (cut by
/// position, as `capkit_rs.ray` cuts its texts) merged, with the `texts` block of the whole
/// run's `texts` — what a single process over every text writes (`runner::merge_shards`).
#[pyfunction]
fn _merge_shards<'py>(
    py: Python<'py>,
    reports: &Bound<'py, PyAny>,
    texts: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let texts = texts_of(texts)?;
    let files = report_files(reports)?;
    let entry = runner::TextsEntry::of(&runner::TextsFingerprint::of(
        texts.iter().map(String::as_str),
    ));
    let merged = runner::merge_shards(files, entry).map_err(|e| runner_error(py, e))?;
    to_py(py, &merged.to_json())
}

/// `write_report(path, report)`: writes a report or comparison (`dict`) as the command line
/// writes its report files — the same bytes for the same report — atomically.
#[pyfunction]
fn write_report(path: std::path::PathBuf, report: &Bound<'_, PyAny>) -> PyResult<()> {
    let name = path.display().to_string();
    let file = runner::ReportFile::from_json(&to_value(report)?, &name).map_err(value_error)?;
    crate::files::write_bytes_atomically(&path, &file.to_bytes())
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
#[pyo3(signature = (teacher, students, texts, suite, *, fields = None, teacher_sample = None, teacher_budget = None, teacher_seed = 0, examples = 5, reference = None, aliases = None, teacher_name = None, level = 0.95, break_even = 0.9, progress = None))]
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
    level: f64,
    break_even: f64,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let texts = texts_of(texts)?;
    let reference = reference_of(reference)?;
    let teacher_name = teacher_name.or_else(|| spec_of(teacher));
    let fields = fields
        .map(|f| fields_of(f).map(|(keys, _)| keys))
        .transpose()?;
    let mode = if fields.is_some() {
        LabelMode::Value
    } else {
        LabelMode::StrForm
    };
    let mut rust = report_suite(suite, &texts, fields.is_none())?;
    if let Some(r) = reference {
        rust.set_reference(r);
    }
    let spec = suite_spec(suite, reference)?;
    let options = (teacher_sample, teacher_budget, teacher_seed);
    let extract = fields.is_some();
    let design = teacher_design(py, options, extract, stage_count(&rust), texts.len() as u64)?;
    let batches = SharedBatch::default();
    let t = Announced::new(
        model_of(teacher, mode, &batches)?,
        Side::Teacher,
        teacher_name.clone(),
        progress,
    );
    let mut models = Vec::with_capacity(students.len());
    for (name, model) in students.iter() {
        let name = name
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err("students must map str names to models"))?
            .to_cow()?
            .into_owned();
        let announced = Announced::new(
            model_of(&model, mode, &batches)?,
            Side::Student,
            Some(name.clone()),
            progress,
        );
        models.push((name, announced));
    }
    // Built inside the detached closure: `&dyn Model` is not `Sync`, the models are.
    let named = || -> Vec<(&str, &dyn Model)> {
        models
            .iter()
            .map(|(n, m)| (n.as_str(), m as &dyn Model))
            .collect()
    };
    let no_fields = Vec::new();
    let job = runner::ProfileJob {
        task: if extract {
            Task::Extract
        } else {
            Task::Classify
        },
        fields: fields.as_ref().unwrap_or(&no_fields),
        chunk_size: suite_core::DEFAULT_CHUNK_SIZE,
        sample: design,
        examples,
    };
    let (comparison, _saved) = py
        .detach(|| runner::job::compare(&job, &t, &named(), &rust, chunks_of(&texts)))
        .map_err(|e| runner_error(py, e))?;
    // The runner checks the aliases (each names a student, once; a valid alias), as it does
    // the command line's.
    let file = runner::job::comparison_file(
        comparison,
        aliases.unwrap_or_default(),
        teacher_name,
        settings_of(level, break_even)?,
        envelope(spec.as_ref(), &texts),
    )
    .map_err(|e| PyValueError::new_err(format!("aliases: {e}")))?;
    to_py(py, &file.to_json())
}
