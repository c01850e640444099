//! Suite files from Python: `load_suite(path)` and `SuiteSpec.from_dict(d)` build exactly the
//! suite `capkit profile --suite FILE` builds (suite-core's `SuiteSpec`, its transforms resolved
//! by the `capkit-transforms` catalogue), with each entry's declared severity, family and
//! reference. A [`PySuiteSpec`] is accepted wherever a `CapabilitySuite` is: the profiles take
//! its built Rust suite as it is (see `profile::named_suite`), so nothing of the file is lost on
//! the way through Python objects.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use serde_json::Value;
use suite_core::{CapabilitySuite, SuiteSpec};
use transforms::Catalogue;

use crate::convert::{to_py, to_value};
use crate::files::os_error;
use crate::transform::PyTransform;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySuiteSpec>()?;
    m.add_function(wrap_pyfunction!(load_suite, m)?)?;
    m.add_function(wrap_pyfunction!(_suite_from_json, m)?)?;
    Ok(())
}

/// A suite file's suite: its canonical spec (what the command line's reports fingerprint and
/// list as their stages' transforms), the suite built from it, and the file it was read from.
#[pyclass(name = "SuiteSpec", module = "capkit_rs", frozen)]
pub(crate) struct PySuiteSpec {
    pub(crate) spec: SuiteSpec,
    pub(crate) built: CapabilitySuite,
    /// The file, as given to `load_suite`; `None` for a suite made from a `dict`.
    path: Option<String>,
}

impl PySuiteSpec {
    /// Parses and builds `json` through the catalogue, as the command line does; an error is
    /// prefixed by the file (`path`) when there is one, else by `suite`, and names the entry
    /// either way (`corruptions[2]: ...`).
    fn parse(json: &str, path: Option<String>) -> PyResult<PySuiteSpec> {
        let catalogue = Catalogue::standard();
        let refuse = |e: suite_core::Error| {
            PyValueError::new_err(match &path {
                Some(p) => format!("{p}: {e}"),
                None => format!("suite: {e}"),
            })
        };
        let spec = SuiteSpec::from_json_str_with(json, catalogue).map_err(refuse)?;
        let built = spec.build_with(catalogue).map_err(refuse)?;
        Ok(PySuiteSpec { spec, built, path })
    }

    /// `{name: Transform}` of one section, in suite order: the transforms the built suite runs.
    fn section<'py>(
        &self,
        py: Python<'py>,
        entries: &[suite_core::NamedTransform],
        built: Vec<(&str, &suite_core::Transform)>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (entry, (name, transform)) in entries.iter().zip(built) {
            let t = PyTransform::built(transform.clone(), &entry.transform, &entry.params);
            out.set_item(name, t)?;
        }
        Ok(out)
    }
}

/// What pickling a suite gives: the rebuilding function and its arguments (JSON, path).
type Reduced<'py> = (Bound<'py, PyAny>, (String, Option<String>));

#[pymethods]
impl PySuiteSpec {
    /// `SuiteSpec.from_dict(d)`: the suite a suite file holding `d` (as JSON) describes:
    /// `{"corruptions": [{"name", "transform", ...parameters}], "invariances": [...],
    /// "probes": [...]}`. A `ValueError` names the entry that is wrong.
    #[staticmethod]
    fn from_dict(d: &Bound<'_, PyAny>) -> PyResult<PySuiteSpec> {
        let json = to_value(d)?.to_string();
        PySuiteSpec::parse(&json, None)
    }

    /// The corruptions, mildest first: `{name: Transform}`.
    #[getter]
    fn corruptions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.section(
            py,
            &self.spec.corruptions,
            self.built.corruptions().collect(),
        )
    }

    /// The invariances: `{name: Transform}`.
    #[getter]
    fn invariances<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.section(
            py,
            &self.spec.invariances,
            self.built.invariances().collect(),
        )
    }

    /// The probes (texts).
    #[getter]
    fn probes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.built.probes())
    }

    /// The file the suite was read from (`None`: made from a `dict`).
    #[getter]
    fn path(&self) -> Option<String> {
        self.path.clone()
    }

    /// The canonical spec as a `dict` (every parameter, defaults written out): what
    /// `SuiteSpec.from_dict` reads back.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value =
            serde_json::to_value(&self.spec).map_err(|e| PyValueError::new_err(e.to_string()))?;
        to_py(py, &value)
    }

    /// The canonical spec as a suite file's JSON (indented).
    fn to_json(&self) -> String {
        self.spec.to_json_string()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PySuiteSpec>()
            .is_ok_and(|o| o.get().spec == self.spec)
    }

    fn __repr__(&self) -> String {
        let names = |entries: &[suite_core::NamedTransform]| {
            entries
                .iter()
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let origin = match &self.path {
            Some(p) => format!("load_suite({})", Value::from(p.as_str())),
            None => "SuiteSpec".to_owned(),
        };
        format!(
            "<{origin}: corruptions [{}], invariances [{}], {} probes>",
            names(&self.spec.corruptions),
            names(&self.spec.invariances),
            self.spec.probes.len()
        )
    }

    /// Pickling support (suites travel to Ray workers): rebuilt from the canonical JSON.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        let rebuild = py
            .import("capkit_rs._native")?
            .getattr("_suite_from_json")?;
        Ok((rebuild, (self.spec.to_json_string(), self.path.clone())))
    }
}

/// `load_suite(path) -> SuiteSpec`: the suite the suite file at `path` describes, as
/// `capkit profile --suite path` builds it. An `OSError` names an unreadable file; a
/// `ValueError` names the file and the entry that is wrong (`suite.json: corruptions[1]: ...`).
#[pyfunction]
fn load_suite(path: std::path::PathBuf) -> PyResult<PySuiteSpec> {
    let bytes = std::fs::read(&path).map_err(|e| os_error(&path, &e, "cannot read the suite"))?;
    // Lossy, as the command line reads it: a stray byte fails in the JSON parse with a position.
    let text = String::from_utf8_lossy(&bytes);
    PySuiteSpec::parse(&text, Some(path.display().to_string()))
}

/// Rebuilds a pickled [`PySuiteSpec`].
#[pyfunction]
#[pyo3(signature = (json, path = None))]
fn _suite_from_json(json: &str, path: Option<String>) -> PyResult<PySuiteSpec> {
    PySuiteSpec::parse(json, path)
}
