//! `capkit_rs.models`: capkit's model adapters (crate `capkit-model-adapters`) as Python
//! objects, usable as a student or teacher wherever a profile takes a model.
//!
//! `models.cmd([...])`, `models.http(url)`, `models.openai(name, prompt_template=...)`,
//! `models.file(path)` and `models.parse("cmd:…")` (any spec `capkit profile` accepts) return an
//! [`PyAdapterModel`]. It holds the spec and settings and opens the crate's adapter lazily, once
//! per task (a classify profile and an extract profile of the same model are two adapters: a
//! `cmd:` model answers labels to one and records to the other), each in the crate's disk
//! prediction cache unless `cache=False` (the CLI's format and default directory, so the CLI and
//! Python share answers). Profiles reach an adapter in Rust ([`model_of`]): no Python runs and
//! the GIL stays released while it answers. Everything else (spec syntax, protocols, retries,
//! the cache) is the crate's; this module converts arguments and errors.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use pyo3::exceptions::{
    PyFileNotFoundError, PyOSError, PyPermissionError, PyRuntimeError, PyRuntimeWarning,
    PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};

use model_adapters::{Adapter, Cached, ModelSpec, Settings, Task};
use profile_types::Label;
use suite_core::{Decision, Model, ModelError, SharedLabel};

use crate::convert::{LabelMode, to_py, type_name};
use crate::model::{PyModel, SharedBatch};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyAdapterModel>()?;
    for f in [
        wrap_pyfunction!(cmd, m)?,
        wrap_pyfunction!(http, m)?,
        wrap_pyfunction!(openai, m)?,
        wrap_pyfunction!(file, m)?,
        wrap_pyfunction!(parse, m)?,
    ] {
        crate::native::add_prefixed(m, "models", f)?;
    }
    Ok(())
}

/// A crate error as the Python exception of its kind: a program or file that cannot be opened
/// is an `OSError` (`FileNotFoundError`, `PermissionError`), a model that failed to answer a
/// `RuntimeError`, a bad spec or setting a `ValueError`.
pub(crate) fn adapter_error(e: model_adapters::Error) -> PyErr {
    use model_adapters::Error;
    let message = chain(&e);
    match &e {
        Error::Start { source, .. }
        | Error::ReadPredictions { source, .. }
        | Error::Cache { source, .. } => match source.kind() {
            std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
            std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
            _ => PyOSError::new_err(message),
        },
        Error::Model(_) => PyRuntimeError::new_err(message),
        Error::NoCache { .. } => PyFileNotFoundError::new_err(message),
        _ => PyValueError::new_err(message),
    }
}

/// An error and its causes, joined (`model `cmd:x`: cannot start `x`: No such file …`).
fn chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

/// Warns (a `RuntimeWarning`) that the cache of `name` could not be used (the answers are
/// kept in memory only, or not at all); the run goes on unless the warnings filter makes the
/// warning an error.
fn warn_cache(py: Python<'_>, name: &str, e: &model_adapters::Error) -> PyResult<()> {
    let message = format!("prediction cache of `{name}` not used: {}", chain(e));
    let category = py.get_type::<PyRuntimeWarning>();
    let message = std::ffi::CString::new(message.replace('\0', " "))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    PyErr::warn(py, category.as_any(), &message, 1)
}

/// `cache=`: `True` the CLI's default directory (`$XDG_CACHE_HOME/capkit`, else
/// `~/.cache/capkit`), `False` no cache, a path (`str` or `os.PathLike`) that directory.
pub(crate) enum CacheArg {
    Flag(bool),
    Dir(PathBuf),
}

impl<'a, 'py> FromPyObject<'a, 'py> for CacheArg {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = obj.cast::<PyBool>() {
            return Ok(CacheArg::Flag(b.is_true()));
        }
        obj.extract::<PathBuf>().map(CacheArg::Dir).map_err(|_| {
            PyTypeError::new_err(format!(
                "cache must be True, False or a directory (str or os.PathLike), got {}",
                type_name(&obj)
            ))
        })
    }
}

impl CacheArg {
    fn dir(self) -> Option<PathBuf> {
        match self {
            CacheArg::Flag(true) => Some(model_adapters::default_cache_dir()),
            CacheArg::Flag(false) => None,
            CacheArg::Dir(dir) => Some(dir),
        }
    }
}

fn timeout(secs: f64) -> PyResult<Duration> {
    if secs.is_finite() && secs > 0.0 {
        Ok(Duration::from_secs_f64(secs))
    } else {
        Err(PyValueError::new_err(format!(
            "timeout must be a positive number of seconds, got {secs}"
        )))
    }
}

fn at_least_one(n: usize, what: &str) -> PyResult<usize> {
    if n >= 1 {
        Ok(n)
    } else {
        Err(PyValueError::new_err(format!("{what} must be at least 1")))
    }
}

/// A task by name.
fn task_of(name: &str) -> PyResult<Task> {
    match name {
        "classify" => Ok(Task::Classify),
        "extract" => Ok(Task::Extract),
        other => Err(PyValueError::new_err(format!(
            "task must be \"classify\" or \"extract\", got {other:?}"
        ))),
    }
}

/// The adapters of one model, by task.
type Opened = [Option<Arc<Cached<Adapter>>>; 2];

fn slot(task: Task) -> usize {
    match task {
        Task::Classify => 0,
        Task::Extract => 1,
    }
}

/// A model reached through capkit's adapters (`cmd:`, `http:`, `openai:`, `file:`): pass it as
/// a student or teacher to any profile. It answers in Rust with the GIL released and keeps its
/// answers in the prediction cache on disk.
#[pyclass(name = "AdapterModel", module = "capkit_rs.models", frozen)]
pub(crate) struct PyAdapterModel {
    spec: ModelSpec,
    /// Everything but the task, which each opening sets.
    settings: Settings,
    cache: Option<PathBuf>,
    opened: Mutex<Opened>,
}

impl PyAdapterModel {
    fn new(spec: ModelSpec, settings: Settings, cache: Option<PathBuf>) -> PyResult<Self> {
        // Settings a scheme refuses whatever the task (an openai: model without a `{text}`
        // slot, an https URL without TLS) are refused now, by opening it once. Only http: and
        // openai: open without side effects (cmd: would start its program, file: read its file).
        if matches!(spec, ModelSpec::Http { .. } | ModelSpec::OpenAi { .. }) {
            spec.open(&settings).map_err(adapter_error)?;
        }
        Ok(PyAdapterModel {
            spec,
            // openai: replies go into the cache's database (`open_cached` with `cache`).
            settings,
            cache,
            opened: Mutex::default(),
        })
    }

    fn opened(&self) -> std::sync::MutexGuard<'_, Opened> {
        self.opened.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The adapter for `task`, opened (a `cmd:` program started) on first use.
    pub(crate) fn open(&self, py: Python<'_>, task: Task) -> PyResult<Arc<Cached<Adapter>>> {
        if let Some(model) = &self.opened()[slot(task)] {
            return Ok(Arc::clone(model));
        }
        let settings = Settings {
            task,
            ..self.settings.clone()
        };
        let spec = &self.spec;
        let cache = self.cache.as_deref();
        let model = py
            .detach(|| spec.open_cached(&settings, cache, None))
            .map_err(adapter_error)?;
        if let Some(e) = model.take_warning() {
            warn_cache(py, &self.spec.to_string(), &e)?;
        }
        let model = Arc::new(model);
        // Another thread may have opened it meanwhile: the first one stays (this one is dropped).
        let mut opened = self.opened();
        Ok(Arc::clone(
            opened[slot(task)].get_or_insert_with(|| Arc::clone(&model)),
        ))
    }
}

#[pymethods]
impl PyAdapterModel {
    /// The model's spec, as `capkit profile` takes it (URL credentials shown as `***`).
    #[getter]
    fn spec(&self) -> String {
        self.spec.to_string()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let spec = PyString::new(py, &self.spec.to_string()).repr()?;
        Ok(format!("AdapterModel({spec})"))
    }

    /// The model's answers for `texts` (labels for ``task="classify"``, records for
    /// ``"extract"``), through the cache: how profiles reach its probes, and a way to ask it
    /// directly.
    #[pyo3(signature = (texts, *, task = "classify"))]
    fn batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        task: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        let task = task_of(task)?;
        if texts.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "texts must be a list of str, not one str",
            ));
        }
        let mut owned = Vec::new();
        for text in texts.try_iter()? {
            let text = text?;
            let s = text.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{} answers text: got {}",
                    self.spec,
                    type_name(&text)
                ))
            })?;
            owned.push(s.to_cow()?.into_owned());
        }
        let model = self.open(py, task)?;
        let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
        let labels = py
            .detach(|| model.predict_batch(&refs))
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        if let Some(e) = model.take_warning() {
            warn_cache(py, &self.spec.to_string(), &e)?;
        }
        let list = PyList::empty(py);
        for label in &labels {
            list.append(to_py(py, label)?)?;
        }
        Ok(list)
    }

    /// The prediction cache of each task opened so far: ``{"classify": {"path", "hits",
    /// "misses"}}`` (``path`` is ``None`` without a cache).
    fn cache_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        let opened = self.opened().clone();
        for (task, model) in [Task::Classify, Task::Extract].into_iter().zip(opened) {
            let Some(model) = model else { continue };
            let d = PyDict::new(py);
            d.set_item("path", model.path())?;
            d.set_item("hits", model.hits())?;
            d.set_item("misses", model.misses())?;
            out.set_item(task.name(), d)?;
        }
        Ok(out)
    }

    /// Ends the model: a `cmd:` program gets end-of-input and is waited for, the caches are
    /// flushed. A later use opens it again (a new process).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let opened = std::mem::take(&mut *self.opened());
        for model in opened.into_iter().flatten() {
            py.detach(|| model.inner().finish())
                .map_err(adapter_error)?;
            if let Err(e) = model.flush() {
                warn_cache(py, &self.spec.to_string(), &e)?;
            }
        }
        Ok(())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
}

/// Settings shared by the constructors.
struct Common {
    timeout: f64,
    retries: u32,
    concurrency: usize,
    batch_size: usize,
}

impl Common {
    fn settings(&self) -> PyResult<Settings> {
        Ok(Settings {
            timeout: timeout(self.timeout)?,
            retries: self.retries,
            concurrency: at_least_one(self.concurrency, "concurrency")?,
            batch_size: at_least_one(self.batch_size, "batch_size")?,
            ..Settings::default()
        })
    }
}

/// `cmd(argv, *, timeout=60.0, cache=True)`: a program speaking capkit's JSONL protocol on
/// stdin/stdout (`{"id", "text"}` lines in, `{"id", "label"}` or `{"id", "record"}` lines out,
/// optionally with `"decision"`), started on first use and never through a shell.
#[pyfunction]
#[pyo3(signature = (argv, *, timeout = 60.0, cache = CacheArg::Flag(true)), text_signature = "(argv, *, timeout=60.0, cache=True)")]
fn cmd(argv: &Bound<'_, PyAny>, timeout: f64, cache: CacheArg) -> PyResult<PyAdapterModel> {
    if argv.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "argv must be a list of str (the program and its arguments), not one str",
        ));
    }
    let argv: Vec<String> = argv.extract()?;
    let spec = ModelSpec::cmd(argv).map_err(adapter_error)?;
    let settings = Common {
        timeout,
        retries: 0,
        concurrency: 1,
        batch_size: 1,
    }
    .settings()?;
    PyAdapterModel::new(spec, settings, cache.dir())
}

/// `http(url, *, batch_size=64, concurrency=4, timeout=60.0, retries=3, cache=True)`: an
/// endpoint taking POST `{"texts": [...]}` and answering `{"labels": [...]}` (or
/// `"records"`, optionally `"decisions"`).
#[pyfunction]
#[pyo3(
    signature = (url, *, batch_size = 64, concurrency = 4, timeout = 60.0, retries = 3, cache = CacheArg::Flag(true)),
    text_signature = "(url, *, batch_size=64, concurrency=4, timeout=60.0, retries=3, cache=True)"
)]
fn http(
    url: &str,
    batch_size: usize,
    concurrency: usize,
    timeout: f64,
    retries: u32,
    cache: CacheArg,
) -> PyResult<PyAdapterModel> {
    let spec = ModelSpec::Http {
        url: url.to_owned(),
    };
    let settings = Common {
        timeout,
        retries,
        concurrency,
        batch_size,
    }
    .settings()?;
    PyAdapterModel::new(spec, settings, cache.dir())
}

/// `openai(model, *, prompt_template, base_url="http://localhost:8000/v1",
/// api_key_env="OPENAI_API_KEY", concurrency=4, timeout=60.0, retries=3, cache=True)`: a model
/// on an OpenAI-compatible chat API, one completion per text of `prompt_template` (with a
/// `{text}` slot); the label is the trimmed reply, a record the reply as a JSON object.
#[pyfunction]
#[pyo3(
    signature = (model, *, prompt_template, base_url = None, api_key_env = "OPENAI_API_KEY", concurrency = 4, timeout = 60.0, retries = 3, cache = CacheArg::Flag(true)),
    text_signature = "(model, *, prompt_template, base_url=None, api_key_env='OPENAI_API_KEY', concurrency=4, timeout=60.0, retries=3, cache=True)"
)]
#[allow(clippy::too_many_arguments)]
fn openai(
    model: &str,
    prompt_template: &str,
    base_url: Option<&str>,
    api_key_env: &str,
    concurrency: usize,
    timeout: f64,
    retries: u32,
    cache: CacheArg,
) -> PyResult<PyAdapterModel> {
    if model.is_empty() {
        return Err(PyValueError::new_err("model must name a model"));
    }
    let spec = ModelSpec::OpenAi {
        model: model.to_owned(),
        base_url: base_url.map(str::to_owned),
    };
    let settings = Settings {
        api_key_env: api_key_env.to_owned(),
        prompt_template: Some(prompt_template.to_owned()),
        ..Common {
            timeout,
            retries,
            concurrency,
            batch_size: 1,
        }
        .settings()?
    };
    PyAdapterModel::new(spec, settings, cache.dir())
}

/// `file(path)`: precomputed answers, one `{"text", "label"}` (or `"record"`, optionally
/// `"decision"`) JSON object per line; read on first use. Not cached (it is on disk already).
#[pyfunction]
fn file(path: PathBuf) -> PyResult<PyAdapterModel> {
    PyAdapterModel::new(ModelSpec::File { path }, Settings::default(), None)
}

/// `parse(spec, *, ...)`: any spec `capkit profile --student/--teacher` accepts (`cmd:…`,
/// `http:…`, `openai:MODEL[@URL]`, `file:…`), with the settings of the constructors above.
#[pyfunction]
#[pyo3(
    signature = (spec, *, prompt_template = None, base_url = None, api_key_env = "OPENAI_API_KEY", batch_size = 64, concurrency = 4, timeout = 60.0, retries = 3, cache = CacheArg::Flag(true)),
    text_signature = "(spec, *, prompt_template=None, base_url=None, api_key_env='OPENAI_API_KEY', batch_size=64, concurrency=4, timeout=60.0, retries=3, cache=True)"
)]
#[allow(clippy::too_many_arguments)]
fn parse(
    spec: &str,
    prompt_template: Option<&str>,
    base_url: Option<&str>,
    api_key_env: &str,
    batch_size: usize,
    concurrency: usize,
    timeout: f64,
    retries: u32,
    cache: CacheArg,
) -> PyResult<PyAdapterModel> {
    let spec = ModelSpec::parse(spec).map_err(adapter_error)?;
    let defaults = Settings::default();
    let settings = Settings {
        api_key_env: api_key_env.to_owned(),
        prompt_template: prompt_template.map(str::to_owned),
        base_url: base_url.map_or(defaults.base_url, str::to_owned),
        ..Common {
            timeout,
            retries,
            concurrency,
            batch_size,
        }
        .settings()?
    };
    let cache = match spec {
        ModelSpec::File { .. } => None,
        _ => cache.dir(),
    };
    PyAdapterModel::new(spec, settings, cache)
}

/// A model a profile runs: a Python object reached as mixle reaches it, or an adapter reached
/// in Rust.
pub(crate) enum ProfileModel {
    Python(PyModel),
    Adapter {
        spec: String,
        model: Arc<Cached<Adapter>>,
    },
}

/// The model `obj` is for a profile whose labels are converted by `mode` (`StrForm`:
/// classifiers, `Value`: extractors).
pub(crate) fn model_of(
    obj: &Bound<'_, PyAny>,
    mode: LabelMode,
    batches: &SharedBatch,
) -> PyResult<ProfileModel> {
    match obj.cast::<PyAdapterModel>() {
        Ok(adapter) => {
            let task = match mode {
                LabelMode::StrForm => Task::Classify,
                LabelMode::Value => Task::Extract,
            };
            let adapter = adapter.get();
            Ok(ProfileModel::Adapter {
                spec: adapter.spec.to_string(),
                model: adapter.open(obj.py(), task)?,
            })
        }
        Err(_) => Ok(ProfileModel::Python(PyModel::new(obj, mode, batches))),
    }
}

/// The spec of an adapter model, for a report's model names.
pub(crate) fn spec_of(obj: &Bound<'_, PyAny>) -> Option<String> {
    obj.cast::<PyAdapterModel>()
        .ok()
        .map(|m| m.get().spec.to_string())
}

impl ProfileModel {
    /// After an adapter's call: a cache that could not be written is a warning (its answers
    /// stay in memory); a warning turned into an error by the warnings filter fails the call.
    fn after(&self) -> Result<(), ModelError> {
        if let ProfileModel::Adapter { spec, model } = self
            && let Some(e) = model.take_warning()
        {
            Python::attach(|py| warn_cache(py, spec, &e)).map_err(|e| Box::new(e) as ModelError)?;
        }
        Ok(())
    }
}

impl Model for ProfileModel {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        let out = match self {
            ProfileModel::Python(m) => m.predict_batch(texts),
            ProfileModel::Adapter { model, .. } => model.predict_batch(texts),
        }?;
        self.after()?;
        Ok(out)
    }

    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        let out = match self {
            ProfileModel::Python(m) => m.predict_shared(texts),
            ProfileModel::Adapter { model, .. } => model.predict_shared(texts),
        }?;
        self.after()?;
        Ok(out)
    }

    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        match self {
            ProfileModel::Python(m) => m.decide_batch(texts),
            ProfileModel::Adapter { model, .. } => model.decide_batch(texts),
        }
    }
}
