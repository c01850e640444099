//! The tasks and what they read: `Data` (the tables), `Keyboard` (the layouts), `Registry`,
//! `Task`, `TaskInfo`, `Unregistered`, and `select`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Value};

use typo_tasks::{Data, FIELDS, Keyboard, Registry, Task, TaskInfo, Unregistered, select};

use super::{add_function, needs_py, variants_py};
use crate::convert::{str_form, type_name};
use crate::files::os_error;
use crate::reprs::{repr_opt, repr_str};

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyData>()?;
    m.add_class::<PyKeyboard>()?;
    m.add_class::<PyRegistry>()?;
    m.add_class::<PyTask>()?;
    m.add_class::<PyTaskInfo>()?;
    m.add_class::<PyUnregistered>()?;
    add_function(m, wrap_pyfunction!(task_info, m)?)?;
    add_function(m, wrap_pyfunction!(select_tasks, m)?)?;
    m.add("typo_FIELDS", PyTuple::new(m.py(), FIELDS)?)?;
    m.add(
        "typo_KEYBOARD_NAMES",
        PyTuple::new(m.py(), Keyboard::NAMES)?,
    )?;
    Ok(())
}

/// A `typo_tasks::Error` (bad data or layout) as a `ValueError` with its field path.
fn data_error(err: typo_tasks::Error) -> PyErr {
    PyValueError::new_err(err.to_string())
}

/// A Python table value in the JSON shape `Data` reads: `str`, lists and tuples (as arrays),
/// dicts with `str` keys, `None`; numbers and booleans pass through so that `Data` names them
/// in its own error ("expected a string, found a number").
fn table_value(obj: &Bound<'_, PyAny>, path: &str) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.is_truthy()?));
    }
    if obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyFloat>() {
        return Ok(Value::from(0));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "typo data: field `{path}`: keys must be str, got {} ({})",
                    type_name(&k),
                    str_form(&k).unwrap_or_default()
                ))
            })?;
            let key = key.to_cow()?.into_owned();
            let value = table_value(&v, &format!("{path}[{key:?}]"))?;
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return obj
            .try_iter()?
            .enumerate()
            .map(|(i, item)| table_value(&item?, &format!("{path}[{i}]")))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    Err(PyTypeError::new_err(format!(
        "typo data: field `{path}`: a {} cannot be part of typo data (use str, list, tuple or dict)",
        type_name(obj)
    )))
}

/// The reference tables of the table tasks (graphemes, vowels, homoglyphs, homophones,
/// misspellings, numerals) and the keyboard layout, in the JSON shape of upstream's
/// `aitypo.Data`. An empty table *deregisters* the tasks that read it.
///
/// `Data()` is empty, `Data(vowels=["a", "e"], keyboard=["qwe", "asd"])` holds the tables given,
/// `Data.english()` the embedded English tables with the QWERTY layout.
#[pyclass(name = "Data", module = "capkit_rs.typo", frozen, eq)]
#[derive(PartialEq)]
pub(super) struct PyData {
    pub(super) inner: Data,
}

#[pymethods]
impl PyData {
    #[new]
    #[pyo3(signature = (**tables))]
    fn new(tables: Option<&Bound<'_, PyDict>>) -> PyResult<PyData> {
        let mut object = Map::new();
        if let Some(tables) = tables {
            for (k, v) in tables.iter() {
                let key: String = k.extract()?;
                let value = table_value(&v, &key)?;
                object.insert(key, value);
            }
        }
        Data::from_json_str(&Value::Object(object).to_string())
            .map(|inner| PyData { inner })
            .map_err(data_error)
    }

    /// The shipped English tables (embedded in the package) with the 4-row QWERTY layout.
    #[staticmethod]
    fn english() -> PyData {
        PyData {
            inner: Data::english(),
        }
    }

    /// Tables from JSON text in the shape of `data.json`; errors name the field
    /// (`homophones[3][1]`).
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<PyData> {
        Data::from_json_str(text)
            .map(|inner| PyData { inner })
            .map_err(data_error)
    }

    /// Tables from a JSON file; errors name the file and the field.
    #[staticmethod]
    fn from_file(path: PathBuf) -> PyResult<PyData> {
        let text =
            std::fs::read_to_string(&path).map_err(|e| os_error(&path, &e, "cannot read"))?;
        Data::from_json_str(&text)
            .map(|inner| PyData { inner })
            .map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))
    }

    /// These tables with the keyboard replaced: a `Keyboard`, a layout name (`"azerty"`) or rows.
    fn with_keyboard(&self, keyboard: &Bound<'_, PyAny>) -> PyResult<PyData> {
        let keyboard = keyboard_of(keyboard)?;
        Ok(PyData {
            inner: self.inner.clone().with_keyboard(keyboard),
        })
    }

    /// The tables as JSON text, in the shape `from_json` reads.
    fn to_json(&self) -> String {
        self.inner.to_json_string()
    }

    /// Graphemes inserted (`gi`) and substituted (`gr`).
    #[getter]
    fn graphemes(&self) -> Vec<String> {
        self.inner.graphemes.clone()
    }

    /// Vowels swapped with each other (`vs`).
    #[getter]
    fn vowels(&self) -> Vec<String> {
        self.inner.vowels.clone()
    }

    /// One-character key → look-alikes (`hr`).
    #[getter]
    fn homoglyphs(&self) -> BTreeMap<String, Vec<String>> {
        self.inner.homoglyphs.clone()
    }

    /// Groups of words that sound the same (`hs`).
    #[getter]
    fn homophones(&self) -> Vec<Vec<String>> {
        self.inner.homophones.clone()
    }

    /// Groups of a word and its common misspellings (`cm`).
    #[getter]
    fn misspellings(&self) -> Vec<Vec<String>> {
        self.inner.misspellings.clone()
    }

    /// Numeral key → `[cardinal, ordinal, ...]` (`cns`, `ons`).
    #[getter]
    fn numerals(&self) -> BTreeMap<String, Vec<String>> {
        self.inner.numerals.clone()
    }

    /// Keyboard rows, top first (`acs`, `aci`, `rar`).
    #[getter]
    fn keyboard(&self) -> Vec<String> {
        self.inner.keyboard.clone()
    }

    fn __repr__(&self) -> String {
        let d = &self.inner;
        format!(
            "Data(graphemes={}, vowels={}, homoglyphs={}, homophones={}, misspellings={}, numerals={}, keyboard rows={})",
            d.graphemes.len(),
            d.vowels.len(),
            d.homoglyphs.len(),
            d.homophones.len(),
            d.misspellings.len(),
            d.numerals.len(),
            d.keyboard.len()
        )
    }
}

/// A keyboard layout as rows of keys, top row first; a space is padding (a hole in the grid).
/// `Keyboard()` is the default 4-row QWERTY, `Keyboard.by_name("azerty")` a built-in layout
/// (see `KEYBOARD_NAMES`), `Keyboard(["qwe", "asd"])` your own rows.
#[pyclass(name = "Keyboard", module = "capkit_rs.typo", frozen, eq)]
#[derive(PartialEq)]
pub(super) struct PyKeyboard {
    inner: Keyboard,
}

#[pymethods]
impl PyKeyboard {
    #[new]
    #[pyo3(signature = (rows = None))]
    fn new(rows: Option<&Bound<'_, PyAny>>) -> PyResult<PyKeyboard> {
        let inner = match rows {
            None => Keyboard::default(),
            Some(rows) => Keyboard::from_rows(crate::convert::strs_of(rows, "keyboard rows")?)
                .map_err(data_error)?,
        };
        Ok(PyKeyboard { inner })
    }

    /// A built-in layout: one of `KEYBOARD_NAMES` (case-sensitive).
    #[staticmethod]
    fn by_name(name: &str) -> PyResult<PyKeyboard> {
        Keyboard::by_name(name)
            .map(|inner| PyKeyboard { inner })
            .map_err(data_error)
    }

    /// The rows, top first.
    #[getter]
    fn rows(&self) -> Vec<String> {
        self.inner.rows().to_vec()
    }

    fn __repr__(&self) -> String {
        let rows: Vec<String> = self.inner.rows().iter().map(|r| repr_str(r)).collect();
        format!("Keyboard([{}])", rows.join(", "))
    }
}

/// A keyboard given as a `Keyboard`, a layout name, or rows.
fn keyboard_of(obj: &Bound<'_, PyAny>) -> PyResult<Keyboard> {
    if let Ok(k) = obj.cast::<PyKeyboard>() {
        return Ok(k.get().inner.clone());
    }
    if let Ok(name) = obj.cast::<PyString>() {
        return Keyboard::by_name(&name.to_cow()?).map_err(data_error);
    }
    Keyboard::from_rows(crate::convert::strs_of(obj, "keyboard rows")?).map_err(data_error)
}

/// The tasks one `Data` supports, by id (in id order). The eleven rule tasks and `sp` are
/// always registered; a table task only when its table is non-empty.
///
/// `Registry()` uses the embedded English tables and QWERTY; `Registry(data, keyboard="azerty")`
/// replaces the data's keyboard first (as `capkit typo --data --keyboard` does).
#[pyclass(name = "Registry", module = "capkit_rs.typo", frozen)]
pub(super) struct PyRegistry {
    pub(super) inner: Registry,
}

impl PyRegistry {
    fn why_message(&self, id: &str) -> String {
        match self.inner.why_unregistered(id) {
            Some(u) => format!("task {id:?} is not registered: {u}"),
            None => format!("unknown task {id:?}; have: {}", self.inner.ids().join(", ")),
        }
    }
}

#[pymethods]
impl PyRegistry {
    #[new]
    #[pyo3(signature = (data = None, *, keyboard = None))]
    fn new(
        py: Python<'_>,
        data: Option<&Bound<'_, PyData>>,
        keyboard: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRegistry> {
        let mut data = match data {
            Some(d) => d.get().inner.clone(),
            None => Data::english(),
        };
        if let Some(k) = keyboard {
            data = data.with_keyboard(keyboard_of(k)?);
        }
        let inner = py.detach(|| Registry::new(&data));
        Ok(PyRegistry { inner })
    }

    /// The task with this id, or `None` when the registry does not have it.
    fn get(&self, id: &str) -> Option<PyTask> {
        self.inner.get(id).map(|t| PyTask { inner: t.clone() })
    }

    /// The task with this id; a `KeyError` says why a known task is not registered.
    fn __getitem__(&self, id: &str) -> PyResult<PyTask> {
        self.get(id)
            .ok_or_else(|| PyKeyError::new_err(self.why_message(id)))
    }

    fn __contains__(&self, id: &str) -> bool {
        self.inner.get(id).is_some()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        PyList::new(py, self.tasks())?
            .into_any()
            .try_iter()
            .map(Bound::into_any)
    }

    /// The registered ids, sorted.
    fn ids(&self) -> Vec<&'static str> {
        self.inner.ids()
    }

    /// The registered tasks, in id order.
    fn tasks(&self) -> Vec<PyTask> {
        self.inner
            .iter()
            .map(|t| PyTask { inner: t.clone() })
            .collect()
    }

    /// The catalogue tasks this registry left out, in id order, each with the empty table
    /// that is why.
    fn unregistered(&self) -> Vec<PyUnregistered> {
        self.inner
            .unregistered()
            .iter()
            .map(|u| PyUnregistered { inner: *u })
            .collect()
    }

    /// Why `id` is not registered, when it is a catalogue task left out; otherwise `None`.
    fn why_unregistered(&self, id: &str) -> Option<PyUnregistered> {
        self.inner
            .why_unregistered(id)
            .map(|u| PyUnregistered { inner: *u })
    }

    /// The tasks named by `ids` (each may be comma-separated: `select("co,cs", "hr")`), in id
    /// order; no argument selects every task. Unknown ids and selections that name nothing
    /// are a `ValueError` with upstream's message.
    #[pyo3(signature = (*ids))]
    fn select(&self, ids: Vec<String>) -> PyResult<Vec<PyTask>> {
        select_from(self, &ids)
    }

    /// The catalogue entry of all 22 tasks, registered or not, in id order.
    #[staticmethod]
    fn catalog() -> Vec<PyTaskInfo> {
        Registry::catalog()
            .iter()
            .map(|i| PyTaskInfo { inner: *i })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!("Registry({})", self.inner.ids().join(" "))
    }
}

fn select_from(registry: &PyRegistry, ids: &[String]) -> PyResult<Vec<PyTask>> {
    let tasks = select(&registry.inner, ids).map_err(|e| {
        let mut message = e.to_string();
        if let typo_tasks::HarnessError::UnknownTasks { unknown, .. } = &e {
            let why: Vec<String> = unknown
                .iter()
                .filter_map(|id| registry.inner.why_unregistered(id))
                .map(ToString::to_string)
                .collect();
            if !why.is_empty() {
                message.push_str(&format!(" (not registered: {})", why.join("; ")));
            }
        }
        PyValueError::new_err(message)
    })?;
    Ok(tasks
        .into_iter()
        .map(|t| PyTask { inner: t.clone() })
        .collect())
}

/// `select(registry, *ids) -> list[Task]`: the tasks named by `ids`, in id order (see
/// `Registry.select`).
#[pyfunction(name = "select")]
#[pyo3(signature = (registry, *ids))]
fn select_tasks(registry: &Bound<'_, PyRegistry>, ids: Vec<String>) -> PyResult<Vec<PyTask>> {
    select_from(registry.get(), &ids)
}

/// One typo generator as an exact task: `task.expect(name)` is the set of names it derives
/// (sorted bytewise, unique, never `""` nor the name itself). Get tasks from a `Registry`.
#[pyclass(name = "Task", module = "capkit_rs.typo", frozen)]
#[derive(Clone)]
pub(super) struct PyTask {
    pub(super) inner: Task,
}

#[pymethods]
impl PyTask {
    /// The short id (`"co"`).
    #[getter]
    fn id(&self) -> &'static str {
        self.inner.id
    }

    /// The upstream title (`"Character Omission"`).
    #[getter]
    fn title(&self) -> &'static str {
        self.inner.title
    }

    /// Rule (`Needs.NOTHING`) or table (`Needs.LANGUAGE`, `Needs.KEYBOARD`).
    #[getter]
    fn needs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        needs_py(py, self.inner.needs)
    }

    /// The data table the task reads (`"homoglyphs"`, ...), or `None` for rules and `sp`.
    #[getter]
    fn table(&self) -> Option<&'static str> {
        self.inner.info().table.map(|t| t.as_str())
    }

    /// The oracle: every name this task derives from `input`, sorted bytewise without
    /// duplicates. Members are `str`, or `bytes` when they are not UTF-8 (only `bf` makes those).
    fn expect<'py>(&self, py: Python<'py>, input: &str) -> PyResult<Bound<'py, PyList>> {
        let set = py.detach(|| self.inner.expect(input));
        variants_py(py, &set)
    }

    /// `expect(input)` with every member as its raw `bytes`.
    fn expect_bytes<'py>(&self, py: Python<'py>, input: &str) -> PyResult<Bound<'py, PyList>> {
        let set = py.detach(|| self.inner.expect(input));
        PyList::new(
            py,
            set.iter()
                .map(|v| pyo3::types::PyBytes::new(py, v.as_bytes())),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "Task({}, {}, needs={})",
            repr_str(self.inner.id),
            repr_str(self.inner.title),
            repr_str(self.inner.needs.as_str())
        )
    }
}

/// Static facts about one task id, whether or not a registry has it.
#[pyclass(name = "TaskInfo", module = "capkit_rs.typo", frozen)]
pub(super) struct PyTaskInfo {
    inner: TaskInfo,
}

#[pymethods]
impl PyTaskInfo {
    /// The short id.
    #[getter]
    fn id(&self) -> &'static str {
        self.inner.id
    }

    /// The upstream title.
    #[getter]
    fn title(&self) -> &'static str {
        self.inner.title
    }

    /// Rule or table.
    #[getter]
    fn needs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        needs_py(py, self.inner.needs)
    }

    /// The data table it reads, or `None`.
    #[getter]
    fn table(&self) -> Option<&'static str> {
        self.inner.table.map(|t| t.as_str())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyTaskInfo>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        format!(
            "TaskInfo({}, {}, needs={}, table={})",
            repr_str(self.inner.id),
            repr_str(self.inner.title),
            repr_str(self.inner.needs.as_str()),
            repr_opt(self.inner.table.map(|t| t.as_str()))
        )
    }
}

/// `task_info(id) -> TaskInfo | None`: the catalogue entry of `id`, if it is one of the 22.
#[pyfunction]
fn task_info(id: &str) -> Option<PyTaskInfo> {
    typo_tasks::task_info(id).map(|i| PyTaskInfo { inner: *i })
}

/// A task a registry does not have, and the empty table that is why (`str()` says so).
#[pyclass(name = "Unregistered", module = "capkit_rs.typo", frozen)]
pub(super) struct PyUnregistered {
    inner: Unregistered,
}

#[pymethods]
impl PyUnregistered {
    /// The task id.
    #[getter]
    fn id(&self) -> &'static str {
        self.inner.id
    }

    /// The task title.
    #[getter]
    fn title(&self) -> &'static str {
        self.inner.title
    }

    /// What it needs.
    #[getter]
    fn needs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        needs_py(py, self.inner.needs)
    }

    /// The table that was empty.
    #[getter]
    fn table(&self) -> &'static str {
        self.inner.table.as_str()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyUnregistered>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Unregistered({}, table={})",
            repr_str(self.inner.id),
            repr_str(self.inner.table.as_str())
        )
    }
}
