//! mixle's capability API: transforms, `capture_profile`, `extractive_capture_profile`,
//! `validate_extraction_schema`, returning the same plain `dict`s (key order included).

use std::collections::HashMap;

use pyo3::exceptions::{PyAttributeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

use profile_types::{Abstention, CaptureProfile, ExtractiveProfile};
use serde_json::{Map, Value};
use suite_core::{CapabilitySuite, MixleTypo, Side, Stage, Transform, TransformSpec, TypoRng};
use transforms::Catalogue;

use crate::adapters::model_of;
use crate::convert::{LabelMode, fields_of, str_form, texts_of, to_record, type_name};
use crate::errors::{capture_error, extractive_error, with_context};
use crate::model::{SharedBatch, predict};
use crate::suite::PySuiteSpec;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTransform>()?;
    m.add_function(wrap_pyfunction!(keyboard_typo_corruption, m)?)?;
    m.add_function(wrap_pyfunction!(_transform_from_spec, m)?)?;
    m.add_function(wrap_pyfunction!(_catalogue_transform, m)?)?;
    m.add_function(wrap_pyfunction!(_catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(capture_profile, m)?)?;
    m.add_function(wrap_pyfunction!(extractive_capture_profile, m)?)?;
    m.add_function(wrap_pyfunction!(validate_extraction_schema, m)?)?;
    let py = m.py();
    m.add(
        "case_jitter_invariance",
        PyTransform::new(
            Rebuild::from(TransformSpec::CaseJitter),
            "case_jitter_invariance",
        )?
        .into_pyobject(py)?,
    )?;
    m.add(
        "whitespace_invariance",
        PyTransform::new(
            Rebuild::from(TransformSpec::Whitespace),
            "whitespace_invariance",
        )?
        .into_pyobject(py)?,
    )?;
    Ok(())
}

/// A built-in text transform implemented in Rust (any transform of the `capkit-transforms`
/// catalogue): callable like a function (`t("text")`), and run with the GIL released when a
/// profile applies it.
#[pyclass(name = "Transform", module = "capkit_rs", frozen)]
pub(crate) struct PyTransform {
    inner: Transform,
    repr: String,
    /// What rebuilds it in another process (pickling, for Ray workers).
    spec: Rebuild,
}

/// What a built-in transform is made from: mixle's typo corruption with a seed that is not an
/// integer in `0..2^64` (mixle accepts any seed; only its text matters), or a catalogue spec
/// `{"transform": NAME, ...parameters}` (suite-core's `TransformSpec` JSON, which older pickles
/// hold, is one). Untagged, the typo first: a spec has no `mixle_seed`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum Rebuild {
    MixleTypo { rate: f64, mixle_seed: String },
    Spec(Map<String, Value>),
}

impl From<TransformSpec> for Rebuild {
    fn from(spec: TransformSpec) -> Rebuild {
        match serde_json::to_value(spec) {
            Ok(Value::Object(map)) => Rebuild::Spec(map),
            _ => Rebuild::Spec(Map::new()),
        }
    }
}

/// A transform's spec: `{"transform": NAME, ...its parameters}`.
fn spec_of(name: &str, params: Map<String, Value>) -> Map<String, Value> {
    let mut spec = Map::new();
    spec.insert("transform".into(), Value::String(name.to_owned()));
    spec.extend(params);
    spec
}

/// Builds a catalogue spec; returns the transform and the canonical spec.
fn from_catalogue(spec: Map<String, Value>) -> PyResult<(Transform, Map<String, Value>)> {
    let mut params = spec;
    let name = match params.remove("transform") {
        Some(Value::String(name)) => name,
        _ => {
            return Err(PyValueError::new_err(
                "a transform spec needs a string `transform`",
            ));
        }
    };
    let catalogue = Catalogue::standard();
    let err = |e: transforms::Error| PyValueError::new_err(e.to_string());
    let params = catalogue.canonical_params(&name, params).map_err(err)?;
    let inner = catalogue.build(&name, &params).map_err(err)?.transform;
    Ok((inner, spec_of(&name, params)))
}

impl PyTransform {
    /// A transform a suite file built (`name` with canonical `params`, and whatever the entry
    /// declared, such as its severity): it runs as built, and pickles as its catalogue spec.
    pub(crate) fn built(inner: Transform, name: &str, params: &Map<String, Value>) -> PyTransform {
        PyTransform {
            inner,
            repr: catalogue_repr(name, params),
            spec: Rebuild::Spec(spec_of(name, params.clone())),
        }
    }

    fn new(spec: Rebuild, repr: impl Into<String>) -> PyResult<PyTransform> {
        let (inner, spec) = match spec {
            Rebuild::Spec(spec) => {
                let (inner, canonical) = from_catalogue(spec)?;
                (inner, Rebuild::Spec(canonical))
            }
            Rebuild::MixleTypo { rate, mixle_seed } => {
                let inner = MixleTypo::new(rate, &mixle_seed)
                    .map(MixleTypo::into_transform)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
                (inner, Rebuild::MixleTypo { rate, mixle_seed })
            }
        };
        Ok(PyTransform {
            inner,
            repr: repr.into(),
            spec,
        })
    }
}

/// Rebuilds a pickled [`PyTransform`] from its spec (the JSON of a [`Rebuild`]).
#[pyfunction]
fn _transform_from_spec(spec: &str, repr: &str) -> PyResult<PyTransform> {
    let spec: Rebuild =
        serde_json::from_str(spec).map_err(|e| PyValueError::new_err(e.to_string()))?;
    PyTransform::new(spec, repr)
}

/// `capkit_rs.transforms.NAME(**params)`: the catalogue's transform `name` with `params` (a
/// JSON object; composition steps are specs), checked with the catalogue's messages.
#[pyfunction]
fn _catalogue_transform(name: &str, params: &str) -> PyResult<PyTransform> {
    let params = match serde_json::from_str(params) {
        Ok(Value::Object(params)) => params,
        _ => return Err(PyValueError::new_err("parameters must be a JSON object")),
    };
    let canonical = Catalogue::standard()
        .canonical_params(name, params)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let repr = catalogue_repr(name, &canonical);
    PyTransform::new(Rebuild::Spec(spec_of(name, canonical)), repr)
}

/// `capkit_rs.transforms.NAME(k=v, ...)`: how a catalogue transform shows itself.
fn catalogue_repr(name: &str, params: &Map<String, Value>) -> String {
    let args: Vec<String> = params
        .iter()
        .map(|(k, v)| format!("{k}={}", py_literal(v)))
        .collect();
    format!("capkit_rs.transforms.{name}({})", args.join(", "))
}

/// A JSON value as a Python literal (for reprs).
fn py_literal(v: &Value) -> String {
    match v {
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => "None".into(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(py_literal).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), py_literal(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// The catalogue as JSON (`capkit profile transforms --json`).
#[pyfunction]
fn _catalogue() -> PyResult<String> {
    let all = Catalogue::standard()
        .describe_all()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(all.to_string())
}

#[pymethods]
impl PyTransform {
    /// Applies the transform to one text.
    fn __call__(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<String> {
        let text = text.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{} takes a str, got {}",
                self.repr,
                type_name(text)
            ))
        })?;
        let text = text.to_cow()?;
        Ok(py.detach(|| self.inner.apply(&text)))
    }

    fn __repr__(&self) -> String {
        self.repr.clone()
    }

    /// The transform's spec as JSON: `{"transform": NAME, ...parameters}` (what composition
    /// steps hold and pickles carry).
    #[getter]
    fn _spec(&self) -> PyResult<String> {
        serde_json::to_string(&self.spec).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Pickling support: a transform is rebuilt from its spec, so suites travel to Ray workers.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String, String))> {
        let rebuild = py
            .import("capkit_rs._native")?
            .getattr("_transform_from_spec")?;
        let spec =
            serde_json::to_string(&self.spec).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok((rebuild, (spec, self.repr.clone())))
    }
}

/// `keyboard_typo_corruption(rate, *, seed=0, rng="mixle")`: each letter is replaced by a random
/// `a`-`z` with probability `rate`. By default it draws exactly as mixle 0.7 does (Python's
/// MT19937 seeded with `f"{seed}:{text}"`, so any seed mixle takes is taken, with its meaning:
/// only its formatted text matters), so migrated profiles reproduce bit for bit. `rng="chacha"`
/// is the faster generator of the Rust API and the command line (an int seed in `[0, 2**64)`).
#[pyfunction]
#[pyo3(signature = (rate, *, seed = SeedArg::default(), rng = "mixle"))]
fn keyboard_typo_corruption(
    rate: &Bound<'_, PyAny>,
    seed: SeedArg,
    rng: &str,
) -> PyResult<PyTransform> {
    let numeric = rate.is_instance_of::<PyFloat>() || rate.is_instance_of::<PyInt>();
    if !numeric {
        // What upstream's `0.0 <= rate <= 1.0` raises for a non-number.
        return Err(PyTypeError::new_err(format!(
            "'<=' not supported between instances of 'float' and '{}'",
            type_name(rate)
        )));
    }
    let message = || -> PyResult<PyErr> {
        Ok(PyValueError::new_err(format!(
            "rate must be in [0, 1], got {}",
            str_form(rate)?
        )))
    };
    // A huge int does not fit a float; it is out of range all the same.
    let value: f64 = rate.extract().or_else(|_| Err(message()?))?;
    if !(0.0..=1.0).contains(&value) {
        return Err(message()?);
    }
    let rate_text = str_form(rate)?;
    let (spec, repr) = match rng {
        "mixle" => {
            let spec = match seed.int {
                // An integer seed is a suite file's spec (the same draws, a simpler pickle).
                Some(n) if !seed.is_bool && seed.text.as_deref() == Ok(&n.to_string()) => {
                    Rebuild::from(TransformSpec::KeyboardTypo {
                        rate: value,
                        seed: n,
                        rng: TypoRng::Mixle,
                    })
                }
                _ => Rebuild::MixleTypo {
                    rate: value,
                    mixle_seed: seed.text.map_err(PyValueError::new_err)?,
                },
            };
            let repr = format!("keyboard_typo_corruption({rate_text}, seed={})", seed.shown);
            (spec, repr)
        }
        "chacha" => {
            if seed.is_bool {
                return Err(PyTypeError::new_err("seed must be an int, not bool"));
            }
            let seed_value = seed.int.ok_or_else(|| {
                PyValueError::new_err(format!(
                    "with rng=\"chacha\", seed must be an int in [0, 2**64), got {}",
                    seed.shown
                ))
            })?;
            (
                Rebuild::from(TransformSpec::KeyboardTypo {
                    rate: value,
                    seed: seed_value,
                    rng: TypoRng::Chacha,
                }),
                format!("keyboard_typo_corruption({rate_text}, seed={seed_value}, rng=\"chacha\")"),
            )
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "rng must be \"mixle\" or \"chacha\", got {other:?}"
            )));
        }
    };
    PyTransform::new(spec, repr)
}

/// A typo seed as mixle takes it: any object, of which only `format(seed, "")` matters (mixle
/// seeds `random.Random(f"{seed}:{text}")`). Omitted, it is the int 0; an explicit `None` is the
/// seed `"None"`, as in mixle.
struct SeedArg {
    /// `format(seed, "")`, or why it cannot seed (a lone surrogate).
    text: Result<String, String>,
    /// `repr(seed)`, for the transform's repr and messages.
    shown: String,
    /// The seed as an int in `[0, 2**64)`, if it is one.
    int: Option<u64>,
    is_bool: bool,
}

impl Default for SeedArg {
    fn default() -> SeedArg {
        SeedArg {
            text: Ok("0".to_owned()),
            shown: "0".to_owned(),
            int: Some(0),
            is_bool: false,
        }
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for SeedArg {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let formatted = PyModule::import(obj.py(), "builtins")?
            .getattr("format")?
            .call1((&*obj, ""))?;
        let formatted = formatted.cast::<PyString>()?;
        let text = formatted.to_cow().map(|t| t.into_owned()).map_err(|_| {
            "keyboard_typo_corruption: the seed's text (format(seed, \"\")) holds a lone \
             surrogate, which cannot seed Python's random.Random either"
                .to_owned()
        });
        let is_bool = obj.is_instance_of::<PyBool>();
        let int = if obj.is_instance_of::<PyInt>() {
            obj.extract::<u64>().ok()
        } else {
            None
        };
        Ok(SeedArg {
            text,
            shown: obj.repr()?.to_cow()?.into_owned(),
            int,
            is_bool,
        })
    }
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
