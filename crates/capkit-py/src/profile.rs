//! mixle's capability API: transforms, `capture_profile`, `extractive_capture_profile`,
//! `validate_extraction_schema`, returning the same plain `dict`s (key order included).

use std::collections::HashMap;

use pyo3::exceptions::{PyAttributeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use profile_types::{Abstention, CaptureProfile, ExtractiveProfile};
use serde_json::{Map, Value};
use suite_core::{CapabilitySuite, Side, Stage, Transform};
use transforms::Catalogue;

use crate::adapters::model_of;
use crate::convert::{LabelMode, fields_of, str_form, texts_of, to_record, type_name};
use crate::errors::{capture_error, extractive_error, with_context};
use crate::model::{SharedBatch, predict};
use crate::suite::PySuiteSpec;
use crate::transform::{PyTransform, Rebuild};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::transform::register(m)?;
    m.add_function(wrap_pyfunction!(capture_profile, m)?)?;
    m.add_function(wrap_pyfunction!(extractive_capture_profile, m)?)?;
    m.add_function(wrap_pyfunction!(validate_extraction_schema, m)?)?;
    Ok(())
}

/// A Python callable used as a transform: applied under the GIL before the profile runs, once
/// per distinct clean text (transforms only ever see clean texts), then looked up.
fn python_transform(f: &Bound<'_, PyAny>, texts: &[String], what: &str) -> PyResult<Transform> {
    let mut outputs: HashMap<String, String> = HashMap::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        if outputs.contains_key(text) {
            continue;
        }
        let out = f
            .call1((text,))
            .map_err(|e| with_context(f.py(), e, &format!("{what} failed on text {i}")))?;
        let out = out.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{what} returned {} for text {i}; a transform must return str (its output is \
                 a text the models are asked about)",
                type_name(&out)
            ))
        })?;
        let out = out.to_cow().map_err(|_| {
            PyValueError::new_err(format!(
                "{what} returned a str holding a lone surrogate for text {i}; texts must be \
                 valid Unicode"
            ))
        })?;
        outputs.insert(text.clone(), out.into_owned());
    }
    Ok(Transform::new(move |t| {
        outputs.get(t).cloned().unwrap_or_else(|| t.to_owned())
    }))
}

/// The spec of a Python suite, for its report's suite description (fingerprint, transforms,
/// weights, tags): a [`PySuiteSpec`]'s own (`load_suite`, `SuiteSpec.from_dict`: its report
/// describes the suite exactly as the command line's report of the same file does), else one
/// made of its stages when every stage
/// is a catalogue transform and every name and probe a `str`; `None` for a suite with Python
/// callables (its report then carries no fingerprint: nothing identifies a callable).
/// `reference` is written into it as the command line's `--reference` is.
pub(crate) fn suite_spec(
    suite: &Bound<'_, PyAny>,
    reference: Option<suite_core::Reference>,
) -> PyResult<Option<suite_core::SuiteSpec>> {
    let catalogue = Catalogue::standard();
    let parse = |json: &str| {
        suite_core::SuiteSpec::from_json_str_with(json, catalogue)
            .map_err(|e| PyValueError::new_err(format!("suite spec: {e}")))
    };
    let mut spec = if let Ok(file) = suite.cast::<PySuiteSpec>() {
        file.get().spec.clone()
    } else {
        let mut doc = Map::new();
        for section in ["corruptions", "invariances"] {
            let mut entries = Vec::new();
            for item in suite.getattr(section)?.call_method0("items")?.try_iter()? {
                let (name, f): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
                let Ok(name) = name.extract::<String>() else {
                    return Ok(None);
                };
                let Ok(t) = f.cast::<PyTransform>() else {
                    return Ok(None);
                };
                let Rebuild::Spec(params) = &t.get().spec else {
                    return Ok(None);
                };
                let mut entry = Map::new();
                entry.insert("name".into(), Value::String(name));
                entry.extend(params.clone());
                entries.push(Value::Object(entry));
            }
            doc.insert(section.into(), Value::Array(entries));
        }
        let mut probes = Vec::new();
        for probe in suite.getattr("probes")?.try_iter()? {
            let Ok(p) = probe?.extract::<String>() else {
                return Ok(None);
            };
            probes.push(Value::String(p));
        }
        doc.insert("probes".into(), Value::Array(probes));
        parse(&Value::Object(doc).to_string())?
    };
    if let Some(reference) = reference {
        for entry in &mut spec.corruptions {
            entry.reference = Some(reference);
        }
    }
    Ok(Some(spec))
}

/// The Rust suite behind a Python `CapabilitySuite` (anything with `corruptions`, `invariances`
/// mappings and a `probes` iterable, mixle's own suites included), and its raw probes.
pub(crate) fn rust_suite<'py>(
    suite: &Bound<'py, PyAny>,
    texts: &[String],
) -> PyResult<(CapabilitySuite, Bound<'py, PyList>)> {
    named_suite(suite, texts).map(|s| (s.rust, s.probes))
}

/// A Python suite in Rust, with the Python objects that name its stages.
pub(crate) struct NamedSuite<'py> {
    pub(crate) rust: CapabilitySuite,
    pub(crate) probes: Bound<'py, PyList>,
    /// The name objects of the corruptions, then of the invariances, in suite order (the Rust
    /// suite's stages, one for one): mixle's profile dicts are keyed by them.
    pub(crate) names: [Vec<Bound<'py, PyAny>>; 2],
}

/// [`rust_suite`], keeping the name objects. A name that is not a `str` (mixle keys its result by
/// any name) is its `str()` in Rust, made distinct by a ` #N` suffix if another name has that
/// form; `str` names are kept as they are.
pub(crate) fn named_suite<'py>(
    suite: &Bound<'py, PyAny>,
    texts: &[String],
) -> PyResult<NamedSuite<'py>> {
    if let Ok(file) = suite.cast::<PySuiteSpec>() {
        return file_suite(file.get(), suite.py());
    }
    let mut out = CapabilitySuite::new();
    let mut names: [Vec<Bound<'py, PyAny>>; 2] = [Vec::new(), Vec::new()];
    let mut entries = [Vec::new(), Vec::new()];
    for (i, section) in ["corruptions", "invariances"].into_iter().enumerate() {
        let mapping = suite.getattr(section)?;
        for item in mapping.call_method0("items")?.try_iter()? {
            let (name, f): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
            names[i].push(name);
            entries[i].push(f);
        }
    }
    let rust_names = stage_names(&names)?;
    for (i, kind) in ["corruption", "invariance"].into_iter().enumerate() {
        for (name, f) in rust_names[i].iter().zip(&entries[i]) {
            let transform = match f.cast::<PyTransform>() {
                Ok(t) => t.get().inner.clone(),
                Err(_) => python_transform(f, texts, &format!("the {kind} `{name}`"))?,
            };
            if i == 0 {
                out.add_corruption(name.clone(), transform);
            } else {
                out.add_invariance(name.clone(), transform);
            }
        }
    }
    let probes = PyList::new(
        suite.py(),
        suite
            .getattr("probes")?
            .try_iter()?
            .collect::<PyResult<Vec<_>>>()?,
    )?;
    Ok(NamedSuite {
        rust: out,
        probes,
        names,
    })
}

/// A suite file's suite, as built: its transforms keep what the file declared (severities,
/// families, references), which a suite rebuilt from its Python transforms would lose.
fn file_suite<'py>(file: &PySuiteSpec, py: Python<'py>) -> PyResult<NamedSuite<'py>> {
    let strs = |names: Vec<&str>| -> Vec<Bound<'py, PyAny>> {
        names
            .into_iter()
            .map(|n| PyString::new(py, n).into_any())
            .collect()
    };
    // The probes travel as the list, as a Python suite's do (the callers decide whether the
    // Rust suite asks them).
    let mut rust = CapabilitySuite::new();
    for (name, t) in file.built.corruptions() {
        rust.add_corruption(name, t.clone());
    }
    for (name, t) in file.built.invariances() {
        rust.add_invariance(name, t.clone());
    }
    Ok(NamedSuite {
        rust,
        probes: PyList::new(py, file.built.probes())?,
        names: [
            strs(file.built.corruption_names().collect()),
            strs(file.built.invariance_names().collect()),
        ],
    })
}

/// The Rust names of a suite's stages: `str` names as they are, others their `str()`, made
/// distinct within their section.
fn stage_names(names: &[Vec<Bound<'_, PyAny>>; 2]) -> PyResult<[Vec<String>; 2]> {
    let mut out: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    for (section, objects) in names.iter().enumerate() {
        // Every `str` name first: a generated name never takes one.
        let mut used: std::collections::HashSet<String> = objects
            .iter()
            .filter_map(|n| n.cast::<PyString>().ok())
            .map(|s| s.to_cow().map(|c| c.into_owned()))
            .collect::<PyResult<_>>()?;
        for name in objects {
            let rust = match name.cast::<PyString>() {
                Ok(s) => s.to_cow()?.into_owned(),
                Err(_) => {
                    let base = str_form(name)?;
                    let mut candidate = base.clone();
                    let mut n = 2;
                    while used.contains(&candidate) {
                        candidate = format!("{base} #{n}");
                        n += 1;
                    }
                    used.insert(candidate.clone());
                    candidate
                }
            };
            out[section].push(rust);
        }
    }
    Ok(out)
}

fn abstention_dict<'py>(py: Python<'py>, a: &Abstention) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("student_escalation_rate", a.student_escalation_rate)?;
    d.set_item("teacher_escalation_rate", a.teacher_escalation_rate)?;
    Ok(d)
}

/// Raw predictions of one side on the probes (upstream passes probes and answers through as is).
fn probe_predictions<'py>(
    model: &Bound<'py, PyAny>,
    probes: &Bound<'py, PyList>,
    side: Side,
) -> PyResult<Bound<'py, PyList>> {
    let out = predict(model, probes).map_err(|e| {
        with_context(
            model.py(),
            e,
            &format!("{side} model failed on the {}", Stage::Probes),
        )
    })?;
    PyList::new(model.py(), out)
}

/// `capture_profile(student, teacher, texts, suite) -> dict`, as mixle returns it.
#[pyfunction]
fn capture_profile<'py>(
    py: Python<'py>,
    student: &Bound<'py, PyAny>,
    teacher: &Bound<'py, PyAny>,
    texts: &Bound<'py, PyAny>,
    suite: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let texts = texts_of(texts)?;
    let NamedSuite {
        rust: rust_suite,
        probes,
        names: [corruption_names, invariance_names],
    } = named_suite(suite, &texts)?;
    let batches = SharedBatch::default();
    let s = model_of(student, LabelMode::StrForm, &batches)?;
    let t = model_of(teacher, LabelMode::StrForm, &batches)?;
    let profile: CaptureProfile = py
        .detach(|| capture::capture_profile(&s, &t, &texts, &rust_suite))
        .map_err(|e| capture_error(py, e))?;

    let out = PyDict::new(py);
    out.set_item("clean_agreement", profile.clean_agreement)?;
    let corruptions = PyDict::new(py);
    for ((_, rate), name) in profile.corruptions.iter().zip(&corruption_names) {
        corruptions.set_item(name, rate)?;
    }
    out.set_item("corruptions", corruptions)?;
    let invariances = PyDict::new(py);
    for ((_, v), name) in profile.invariances.iter().zip(&invariance_names) {
        let d = PyDict::new(py);
        d.set_item("student_violation_rate", v.student_violation_rate)?;
        d.set_item("teacher_violation_rate", v.teacher_violation_rate)?;
        invariances.set_item(name, d)?;
    }
    out.set_item("invariances", invariances)?;
    if !probes.is_empty() {
        let d = PyDict::new(py);
        d.set_item(
            "student",
            probe_predictions(student, &probes, Side::Student)?,
        )?;
        d.set_item(
            "teacher",
            probe_predictions(teacher, &probes, Side::Teacher)?,
        )?;
        out.set_item("probes", d)?;
    }
    if let Some(a) = &profile.abstention {
        out.set_item("abstention", abstention_dict(py, a)?)?;
    }
    Ok(out)
}

/// `extractive_capture_profile(student, teacher, texts, suite, *, fields) -> dict`, as mixle
/// returns it (suite probes are ignored, as upstream ignores them).
#[pyfunction]
#[pyo3(signature = (student, teacher, texts, suite, *, fields))]
fn extractive_capture_profile<'py>(
    py: Python<'py>,
    student: &Bound<'py, PyAny>,
    teacher: &Bound<'py, PyAny>,
    texts: &Bound<'py, PyAny>,
    suite: &Bound<'py, PyAny>,
    fields: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let texts = texts_of(texts)?;
    let (fields, _) = fields_of(fields)?;
    let NamedSuite {
        rust: rust_suite,
        names: stage_names,
        ..
    } = named_suite(suite, &texts)?;
    let batches = SharedBatch::default();
    let s = model_of(student, LabelMode::Value, &batches)?;
    let t = model_of(teacher, LabelMode::Value, &batches)?;
    let profile: ExtractiveProfile = py
        .detach(|| extractive::extractive_capture_profile(&s, &t, &texts, &rust_suite, &fields))
        .map_err(|e| extractive_error(py, e))?;

    let out = PyDict::new(py);
    out.set_item("clean_f1", profile.clean_f1)?;
    let validity = PyDict::new(py);
    validity.set_item("student", profile.schema_validity.student)?;
    validity.set_item("teacher", profile.schema_validity.teacher)?;
    out.set_item("schema_validity", validity)?;
    for ((key, section), names) in [
        ("corruptions", &profile.corruptions),
        ("invariances", &profile.invariances),
    ]
    .into_iter()
    .zip(&stage_names)
    {
        let d = PyDict::new(py);
        for ((_, pair), name) in section.iter().zip(names) {
            let p = PyDict::new(py);
            p.set_item("student_f1", pair.student_f1)?;
            p.set_item("teacher_f1", pair.teacher_f1)?;
            d.set_item(name, p)?;
        }
        out.set_item(key, d)?;
    }
    if let Some(a) = &profile.abstention {
        out.set_item("abstention", abstention_dict(py, a)?)?;
    }
    Ok(out)
}

/// `validate_extraction_schema(record, source_text, fields) -> dict`: is the record complete
/// (every field present and truthy) and grounded (every truthy field's `str()` occurs in the
/// source text)?
#[pyfunction]
fn validate_extraction_schema<'py>(
    py: Python<'py>,
    record: &Bound<'py, PyAny>,
    source_text: &Bound<'py, PyAny>,
    fields: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let (fields, field_objects) = fields_of(fields)?;
    let Ok(record_dict) = record.cast::<PyDict>() else {
        // Upstream's own failures: a membership test on None, `.items()` on anything else.
        if record.is_none() && !fields.is_empty() {
            return Err(PyTypeError::new_err(
                "argument of type 'NoneType' is not iterable",
            ));
        }
        return Err(PyAttributeError::new_err(format!(
            "'{}' object has no attribute 'items'",
            type_name(record)
        )));
    };
    let source_text = source_text.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "source_text must be str, got {}",
            type_name(source_text)
        ))
    })?;
    let value = to_record(record)?;
    let check = extractive::validate_extraction_schema(&value, &source_text.to_cow()?, &fields)
        .map_err(|e| extractive_error(py, e))?;
    // The lists hold mixle's objects: the fields given and the record's own keys (the Rust
    // lists name them by their stored key strings, in the same order).
    let keys: Vec<&String> = value
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    let out = PyDict::new(py);
    out.set_item("complete", check.complete)?;
    out.set_item("grounded", check.grounded)?;
    out.set_item(
        "missing",
        in_order(&check.missing, fields.iter().zip(&field_objects)),
    )?;
    out.set_item(
        "ungrounded",
        in_order(&check.ungrounded, keys.into_iter().zip(record_dict.keys())),
    )?;
    Ok(out)
}

/// The objects behind `wanted`, a subsequence (in order) of the strings `all` pairs with them.
fn in_order<'a, 'py, S, O>(
    wanted: &[String],
    all: impl Iterator<Item = (S, O)>,
) -> Vec<Bound<'py, PyAny>>
where
    S: AsRef<str> + 'a,
    O: std::borrow::Borrow<Bound<'py, PyAny>>,
{
    let mut out = Vec::with_capacity(wanted.len());
    let mut next = wanted.iter().peekable();
    for (key, object) in all {
        if next.peek().is_some_and(|w| w.as_str() == key.as_ref()) {
            out.push(object.borrow().clone());
            next.next();
        }
    }
    out
}
