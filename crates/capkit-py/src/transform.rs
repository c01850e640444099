//! Built-in transforms as Python objects: `Transform` (any transform of the catalogue, or
//! mixle's typo corruption with a seed that is not an integer), its pickling by spec, the
//! catalogue's factories and `keyboard_typo_corruption`. Its own module so that the suite files
//! (`suite`) and the profiles (`profile`) can both hand these out without importing each other.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

use serde_json::{Map, Value};
use suite_core::{MixleTypo, Transform, TransformSpec, TypoRng};
use transforms::Catalogue;

use crate::convert::{str_form, type_name};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTransform>()?;
    m.add_function(wrap_pyfunction!(keyboard_typo_corruption, m)?)?;
    m.add_function(wrap_pyfunction!(_transform_from_spec, m)?)?;
    m.add_function(wrap_pyfunction!(_catalogue_transform, m)?)?;
    m.add_function(wrap_pyfunction!(_catalogue, m)?)?;
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
    pub(crate) inner: Transform,
    repr: String,
    /// What rebuilds it in another process (pickling, for Ray workers).
    pub(crate) spec: Rebuild,
}

/// What a built-in transform is made from: mixle's typo corruption with a seed that is not an
/// integer in `0..2^64` (mixle accepts any seed; only its text matters), or a catalogue spec
/// `{"transform": NAME, ...parameters}` (suite-core's `TransformSpec` JSON, which older pickles
/// hold, is one). Untagged, the typo first: a spec has no `mixle_seed`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub(crate) enum Rebuild {
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
