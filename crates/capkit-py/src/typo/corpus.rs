//! Corpora: `Example`, `Corpus`, `emit`/`emit_with_empty`, splits (`assign`, `Splitter`,
//! `leakage`), JSONL (`write_jsonl`/`read_jsonl`, byte for byte the Rust writer's output) and
//! `stats`.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PySlice, PyString};

use typo_tasks::{
    DEFAULT_RATIO, Example, FingerprintWriter, HarnessError, Ratio, Splitter, Stats, Task, assign,
    describe, emit, emit_with_empty, encode_example, filter, leakage, read_jsonl, representable,
    split_hash, split_position, write_jsonl,
};

use super::tables::PyTask;
use super::{add_function, variants_of, variants_py};
use crate::convert::{strs_of, type_name};
use crate::files::{WriteError, os_error, write_atomically};
use crate::reprs::repr_str;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyExample>()?;
    m.add_class::<PyCorpus>()?;
    m.add_class::<PyCorpusIter>()?;
    m.add_class::<PyStats>()?;
    m.add_class::<PySplitter>()?;
    for f in [
        wrap_pyfunction!(py_emit, m)?,
        wrap_pyfunction!(py_emit_with_empty, m)?,
        wrap_pyfunction!(py_assign, m)?,
        wrap_pyfunction!(py_leakage, m)?,
        wrap_pyfunction!(py_representable, m)?,
        wrap_pyfunction!(py_filter, m)?,
        wrap_pyfunction!(py_write_jsonl, m)?,
        wrap_pyfunction!(py_read_jsonl, m)?,
        wrap_pyfunction!(py_jsonl_bytes, m)?,
        wrap_pyfunction!(py_stats, m)?,
        wrap_pyfunction!(py_split_hash, m)?,
        wrap_pyfunction!(py_split_position, m)?,
        wrap_pyfunction!(py_fingerprint, m)?,
    ] {
        add_function(m, f)?;
    }
    let py = m.py();
    m.add(
        "typo_DEFAULT_RATIO",
        (DEFAULT_RATIO.train, DEFAULT_RATIO.val, DEFAULT_RATIO.test).into_pyobject(py)?,
    )?;
    m.add("typo_TRAIN", typo_tasks::TRAIN)?;
    m.add("typo_VAL", typo_tasks::VAL)?;
    m.add("typo_TEST", typo_tasks::TEST)?;
    Ok(())
}

/// One (input, task) pair with the task's whole expected set, as written to and read from JSONL.
///
/// `expect` is `None` for upstream's nil set (written `null`) and a list otherwise (`[]` is
/// written `[]`); members are `str`, or `bytes` when not UTF-8. Examples are immutable: use
/// `with_split` for a copy with another split.
#[pyclass(name = "Example", module = "capkit_rs.typo", frozen, eq)]
#[derive(Clone, PartialEq)]
pub(super) struct PyExample {
    inner: Example,
}

#[pymethods]
impl PyExample {
    #[new]
    #[pyo3(signature = (task, input, expect = None, split = "", source = ""))]
    fn new(
        task: String,
        input: String,
        expect: Option<&Bound<'_, PyAny>>,
        split: &str,
        source: &str,
    ) -> PyResult<PyExample> {
        let expect = match expect {
            None => None,
            Some(e) if e.is_none() => None,
            Some(e) => Some(variants_of(e, "expect")?),
        };
        Ok(PyExample {
            inner: Example {
                task,
                input,
                expect,
                split: split.to_owned(),
                source: source.to_owned(),
            },
        })
    }

    /// The task id, e.g. `"co"`.
    #[getter]
    fn task(&self) -> &str {
        &self.inner.task
    }

    /// The name the task was applied to.
    #[getter]
    fn input(&self) -> &str {
        &self.inner.input
    }

    /// The expected set (`str` members, `bytes` when not UTF-8), or `None` for the nil set.
    #[getter]
    fn expect<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        self.inner
            .expect
            .as_deref()
            .map(|set| variants_py(py, set))
            .transpose()
    }

    /// The expected set, `[]` when it is `None`.
    #[getter]
    fn expect_set<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        variants_py(py, self.inner.expect_set())
    }

    /// `"train"`, `"val"`, `"test"`, or `""` when no split has been assigned.
    #[getter]
    fn split(&self) -> &str {
        &self.inner.split
    }

    /// Where the input came from, or `""`.
    #[getter]
    fn source(&self) -> &str {
        &self.inner.source
    }

    /// The grouping key splits are assigned by: the input.
    #[getter]
    fn group(&self) -> &str {
        self.inner.group()
    }

    /// A copy with `split` replaced.
    fn with_split(&self, split: String) -> PyExample {
        let mut inner = self.inner.clone();
        inner.split = split;
        PyExample { inner }
    }

    /// The example's JSONL line (object and `\n`), the exact bytes `write_jsonl` writes; a
    /// `ValueError` when a member is not UTF-8 (JSONL cannot carry it).
    fn to_jsonl<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        encode_example(&self.inner, &mut out).map_err(harness_error)?;
        Ok(PyBytes::new(py, &out))
    }

    /// The example as a `dict` with `task`, `input`, `expect`, `split`, `source`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("task", &self.inner.task)?;
        d.set_item("input", &self.inner.input)?;
        d.set_item("expect", self.expect(py)?)?;
        d.set_item("split", &self.inner.split)?;
        d.set_item("source", &self.inner.source)?;
        Ok(d)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let expect = match self.expect(py)? {
            Some(list) => list.repr()?.to_cow()?.into_owned(),
            None => "None".to_owned(),
        };
        Ok(format!(
            "Example(task={}, input={}, expect={expect}, split={}, source={})",
            repr_str(&self.inner.task),
            repr_str(&self.inner.input),
            repr_str(&self.inner.split),
            repr_str(&self.inner.source)
        ))
    }
}

/// A list of examples held in Rust: what `emit` and `read_jsonl` return and what `assign`
/// changes in place. A sequence (`len`, indexing, slicing, iteration); items are `Example`s
/// (immutable copies). `Corpus(examples)` builds one from any iterable of `Example`s.
#[pyclass(name = "Corpus", module = "capkit_rs.typo", sequence)]
#[derive(Default)]
pub(super) struct PyCorpus {
    examples: Vec<Example>,
}

impl PyCorpus {
    fn new_with(examples: Vec<Example>) -> PyCorpus {
        PyCorpus { examples }
    }
}

#[pymethods]
impl PyCorpus {
    #[new]
    #[pyo3(signature = (examples = None))]
    fn new(examples: Option<&Bound<'_, PyAny>>) -> PyResult<PyCorpus> {
        Ok(PyCorpus {
            examples: match examples {
                Some(e) => collect_examples(e)?,
                None => Vec::new(),
            },
        })
    }

    fn __len__(&self) -> usize {
        self.examples.len()
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Ok(slice) = index.cast::<PySlice>() {
            let len = isize::try_from(self.examples.len()).unwrap_or(isize::MAX);
            let ix = slice.indices(len)?;
            let mut out = Vec::with_capacity(ix.slicelength);
            let mut i = ix.start;
            for _ in 0..ix.slicelength {
                if let Some(e) = usize::try_from(i).ok().and_then(|i| self.examples.get(i)) {
                    out.push(e.clone());
                }
                i += ix.step;
            }
            return Ok(Bound::new(py, PyCorpus::new_with(out))?.into_any());
        }
        let i: isize = index.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "Corpus indices must be integers or slices, not {}",
                type_name(index)
            ))
        })?;
        let len = self.examples.len();
        let at = if i < 0 {
            len.checked_sub(i.unsigned_abs())
        } else {
            Some(i.unsigned_abs())
        };
        let e = at
            .and_then(|at| self.examples.get(at))
            .ok_or_else(|| PyIndexError::new_err("Corpus index out of range"))?;
        Ok(Bound::new(py, PyExample { inner: e.clone() })?.into_any())
    }

    fn __iter__(slf: Bound<'_, PyCorpus>) -> PyCorpusIter {
        PyCorpusIter {
            corpus: slf.unbind(),
            next: 0,
        }
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyCorpus>()
            .is_ok_and(|o| o.try_borrow().is_ok_and(|o| o.examples == self.examples))
    }

    /// Appends one example.
    fn append(&mut self, example: &Bound<'_, PyExample>) {
        self.examples.push(example.get().inner.clone());
    }

    /// Appends every example of an iterable (or another `Corpus`).
    fn extend(&mut self, examples: &Bound<'_, PyAny>) -> PyResult<()> {
        let more = collect_examples(examples)?;
        self.examples.extend(more);
        Ok(())
    }

    /// The examples whose split is exactly `split`, in order (`""`: those without a split).
    fn filter(&self, py: Python<'_>, split: &str) -> PyCorpus {
        PyCorpus::new_with(py.detach(|| owned(filter(&self.examples, split))))
    }

    /// Sets every example's split from its input (see `assign`), in place.
    #[pyo3(signature = (ratio = None, salt = ""))]
    fn assign(
        &mut self,
        py: Python<'_>,
        ratio: Option<&Bound<'_, PyAny>>,
        salt: &str,
    ) -> PyResult<()> {
        let ratio = ratio_of(ratio)?;
        let examples = &mut self.examples;
        py.detach(|| assign(examples, ratio, salt));
        Ok(())
    }

    /// The inputs whose examples carry two or more splits, sorted (empty: leak-free).
    fn leakage(&self, py: Python<'_>) -> Vec<String> {
        py.detach(|| leakage(&self.examples))
    }

    /// What the corpus holds (see `stats`).
    fn stats(&self, py: Python<'_>) -> PyStats {
        PyStats {
            inner: py.detach(|| describe(&self.examples)),
        }
    }

    /// A new corpus without the examples JSONL cannot carry (a `bf` member that is not UTF-8).
    fn representable_only(&self, py: Python<'_>) -> PyCorpus {
        PyCorpus::new_with(py.detach(|| {
            self.examples
                .iter()
                .filter(|e| representable(e))
                .cloned()
                .collect()
        }))
    }

    /// Writes the corpus as JSONL (see `write_jsonl`); returns its fingerprint.
    fn write_jsonl(&self, py: Python<'_>, dest: &Bound<'_, PyAny>) -> PyResult<String> {
        write_to(py, dest, &self.examples)
    }

    /// The corpus's JSONL bytes (see `jsonl_bytes`).
    fn to_jsonl<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py
            .detach(|| encode_all(&self.examples))
            .map_err(harness_error)?;
        Ok(PyBytes::new(py, &bytes))
    }

    fn __repr__(&self) -> String {
        format!("Corpus({} examples)", self.examples.len())
    }
}

/// Iterates a `Corpus` by index (each item a copy).
#[pyclass(name = "CorpusIterator", module = "capkit_rs.typo")]
pub(super) struct PyCorpusIter {
    corpus: Py<PyCorpus>,
    next: usize,
}

#[pymethods]
impl PyCorpusIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<PyExample>> {
        let corpus = self.corpus.bind(py).try_borrow()?;
        let item = corpus.examples.get(self.next).cloned();
        self.next += 1;
        Ok(item.map(|inner| PyExample { inner }))
    }
}

fn owned(examples: Vec<&Example>) -> Vec<Example> {
    examples.into_iter().cloned().collect()
}

/// Every `Example` of an iterable (a `Corpus` is copied).
fn collect_examples(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Example>> {
    if let Ok(c) = obj.cast::<PyCorpus>() {
        return Ok(c.try_borrow()?.examples.clone());
    }
    let mut out = Vec::new();
    for item in obj.try_iter()? {
        let item = item?;
        let e = item.cast::<PyExample>().map_err(|_| {
            PyTypeError::new_err(format!("expected Example items, got {}", type_name(&item)))
        })?;
        out.push(e.get().inner.clone());
    }
    Ok(out)
}

/// Runs `f` over the examples of a `Corpus` (borrowed, no copy) or of any iterable of
/// `Example`s, with the GIL released.
fn with_examples<R: Send>(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    f: impl FnOnce(&[Example]) -> R + Send,
) -> PyResult<R> {
    if let Ok(c) = obj.cast::<PyCorpus>() {
        let corpus = c.try_borrow()?;
        let examples = corpus.examples.as_slice();
        return Ok(py.detach(|| f(examples)));
    }
    let examples = collect_examples(obj)?;
    Ok(py.detach(|| f(&examples)))
}

/// A `HarnessError` with no file to name: refusals and JSON errors are `ValueError`s.
fn harness_error(err: HarnessError) -> PyErr {
    PyValueError::new_err(err.to_string())
}

/// A ratio given as `None` (the default 80/10/10), a `Ratio`, or any sequence of three weights.
pub(super) fn ratio_of(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Ratio> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(DEFAULT_RATIO);
    };
    let weights: Vec<f64> = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "ratio must be a Ratio or three numbers (train, val, test), got {}",
            type_name(obj)
        ))
    })?;
    let [train, val, test] = weights[..] else {
        return Err(PyValueError::new_err(format!(
            "ratio must have three weights (train, val, test), got {}",
            weights.len()
        )));
    };
    for (name, w) in [("train", train), ("val", val), ("test", test)] {
        if !w.is_finite() {
            return Err(PyValueError::new_err(format!(
                "ratio: the {name} weight {w} is not a finite number"
            )));
        }
    }
    Ok(Ratio { train, val, test })
}

pub(super) fn tasks_of(tasks: &Bound<'_, PyAny>) -> PyResult<Vec<Task>> {
    if tasks.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "tasks must be Task objects (registry.select(\"co,cs\") gives them), not a str",
        ));
    }
    let mut out = Vec::new();
    for item in tasks.try_iter()? {
        let item = item?;
        let t = item.cast::<PyTask>().map_err(|_| {
            PyTypeError::new_err(format!(
                "tasks must hold Task objects (from a Registry), got {}",
                type_name(&item)
            ))
        })?;
        out.push(t.get().inner.clone());
    }
    Ok(out)
}

pub(super) fn names_of(corpus: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if corpus.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "corpus must be an iterable of names, not a single str",
        ));
    }
    strs_of(corpus, "corpus")
}

fn emit_with(
    py: Python<'_>,
    tasks: &Bound<'_, PyAny>,
    corpus: &Bound<'_, PyAny>,
    source: &str,
    with_empty: bool,
) -> PyResult<PyCorpus> {
    let tasks = tasks_of(tasks)?;
    let names = names_of(corpus)?;
    let examples = py.detach(|| {
        let refs: Vec<&Task> = tasks.iter().collect();
        let names = names.iter().map(String::as_str);
        if with_empty {
            emit_with_empty(&refs, names, source)
        } else {
            emit(&refs, names, source)
        }
    });
    Ok(PyCorpus::new_with(examples))
}

/// `emit(tasks, corpus, source="") -> Corpus`: one example per (name, task) whose expected set
/// is non-empty, in corpus order and then task order. A name that is exactly `""` is skipped;
/// duplicates are kept. Every example carries `source` and no split.
#[pyfunction(name = "emit")]
#[pyo3(signature = (tasks, corpus, source = ""))]
fn py_emit(
    py: Python<'_>,
    tasks: &Bound<'_, PyAny>,
    corpus: &Bound<'_, PyAny>,
    source: &str,
) -> PyResult<PyCorpus> {
    emit_with(py, tasks, corpus, source, false)
}

/// `emit_with_empty(tasks, corpus, source="") -> Corpus`: as `emit`, but keeps the pairs whose
/// expected set is empty, with `expect=None`.
#[pyfunction(name = "emit_with_empty")]
#[pyo3(signature = (tasks, corpus, source = ""))]
fn py_emit_with_empty(
    py: Python<'_>,
    tasks: &Bound<'_, PyAny>,
    corpus: &Bound<'_, PyAny>,
    source: &str,
) -> PyResult<PyCorpus> {
    emit_with(py, tasks, corpus, source, true)
}

/// `assign(corpus, ratio=DEFAULT_RATIO, salt="")`: sets every example's split in place from
/// SHA-256(salt ‖ 0x00 ‖ input), so a name never straddles splits and adding names never moves
/// the others (bit for bit upstream's `Assign`).
#[pyfunction(name = "assign")]
#[pyo3(signature = (corpus, ratio = None, salt = ""))]
fn py_assign(
    py: Python<'_>,
    corpus: &Bound<'_, PyAny>,
    ratio: Option<&Bound<'_, PyAny>>,
    salt: &str,
) -> PyResult<()> {
    let corpus = corpus.cast::<PyCorpus>().map_err(|_| {
        PyTypeError::new_err(format!(
            "assign() changes a Corpus in place, got {}; build one with Corpus(examples)",
            type_name(corpus)
        ))
    })?;
    corpus.try_borrow_mut()?.assign(py, ratio, salt)
}

/// `leakage(examples) -> list[str]`: the inputs whose examples carry two or more distinct
/// splits, sorted; empty when the corpus is leak-free. Examples without a split are left out.
#[pyfunction(name = "leakage")]
fn py_leakage(py: Python<'_>, examples: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    with_examples(py, examples, leakage)
}

/// `representable(example) -> bool`: whether every member of the expected set is UTF-8, so the
/// example survives a JSONL round trip.
#[pyfunction(name = "representable")]
fn py_representable(example: &Bound<'_, PyExample>) -> bool {
    representable(&example.get().inner)
}

/// `filter(examples, split) -> Corpus`: the examples whose split is exactly `split`.
#[pyfunction(name = "filter")]
fn py_filter(py: Python<'_>, examples: &Bound<'_, PyAny>, split: &str) -> PyResult<PyCorpus> {
    with_examples(py, examples, |e| owned(filter(e, split))).map(PyCorpus::new_with)
}

fn encode_all(examples: &[Example]) -> Result<Vec<u8>, HarnessError> {
    let mut out = Vec::new();
    write_jsonl(&mut out, examples)?;
    Ok(out)
}

/// Writes `examples` to `dest` through the Rust writer; returns the fingerprint.
fn write_to(py: Python<'_>, dest: &Bound<'_, PyAny>, examples: &[Example]) -> PyResult<String> {
    if let Ok(path) = dest.extract::<PathBuf>() {
        let outcome = py.detach(|| {
            let mut fingerprint = None;
            let written = write_atomically(&path, |w| {
                let mut fw = FingerprintWriter::new(w);
                write_jsonl(&mut fw, examples)?;
                fingerprint = Some(fw.fingerprint());
                Ok::<(), HarnessError>(())
            });
            written.map(|()| fingerprint)
        });
        return match outcome {
            Ok(fingerprint) => Ok(fingerprint.map(|f| f.to_string()).unwrap_or_default()),
            Err(WriteError::Refused(HarnessError::Write {
                task,
                input,
                source,
            })) => Err(os_error(
                &path,
                &source,
                &format!("writing example {task}/{input:?}"),
            )),
            Err(WriteError::Refused(e)) => Err(PyValueError::new_err(format!(
                "{}: {e} (nothing was written)",
                path.display()
            ))),
            Err(WriteError::Io(at, e, what)) => Err(os_error(&at, &e, what)),
        };
    }
    if dest.hasattr("write")? {
        let bytes = py
            .detach(|| encode_all(examples))
            .map_err(|e| PyValueError::new_err(format!("{e} (nothing was written)")))?;
        let fingerprint = typo_tasks::Fingerprint::of(&bytes).to_string();
        // One call, so nothing is half-written by us.
        dest.call_method1("write", (PyBytes::new(py, &bytes),))?;
        return Ok(fingerprint);
    }
    Err(PyTypeError::new_err(format!(
        "dest must be a path (str or os.PathLike) or a binary file object, got {}",
        type_name(dest)
    )))
}

/// `write_jsonl(dest, examples) -> str`: the examples as JSONL, byte for byte what the Rust
/// writer (and upstream's Go `WriteJSONL`) writes; returns the fingerprint
/// (`"blake3:<hex>"`) of the bytes.
///
/// `dest` is a path (written atomically: a temporary file beside it, renamed into place only
/// when complete, so a refusal or a crash leaves no partial file and an existing file untouched)
/// or a binary file object (written with one `write` call). An example JSONL cannot carry (a
/// `bf` member that is not UTF-8) is a `ValueError` before anything is written: filter with
/// `representable` first.
#[pyfunction(name = "write_jsonl")]
fn py_write_jsonl(
    py: Python<'_>,
    dest: &Bound<'_, PyAny>,
    examples: &Bound<'_, PyAny>,
) -> PyResult<String> {
    if let Ok(c) = examples.cast::<PyCorpus>() {
        let corpus = c.try_borrow()?;
        return write_to(py, dest, &corpus.examples);
    }
    let examples = collect_examples(examples)?;
    write_to(py, dest, &examples)
}

/// `jsonl_bytes(examples) -> bytes`: what `write_jsonl` would write.
#[pyfunction(name = "jsonl_bytes")]
fn py_jsonl_bytes<'py>(
    py: Python<'py>,
    examples: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = with_examples(py, examples, encode_all)?.map_err(harness_error)?;
    Ok(PyBytes::new(py, &bytes))
}

/// `read_jsonl(src) -> Corpus`: a JSONL corpus from a path or a binary file object, with Go's
/// decoder rules (blank lines skipped, keys case-insensitive, unknown keys ignored). A bad line
/// is a `ValueError` naming the file, the line and the column.
#[pyfunction(name = "read_jsonl")]
fn py_read_jsonl(py: Python<'_>, src: &Bound<'_, PyAny>) -> PyResult<PyCorpus> {
    let (label, result) = if let Ok(path) = src.extract::<PathBuf>() {
        let file = File::open(&path).map_err(|e| os_error(&path, &e, "cannot read"))?;
        let result = py.detach(|| read_jsonl(BufReader::with_capacity(1 << 16, file)));
        if let Err(HarnessError::Read { source }) = &result {
            return Err(os_error(&path, source, "cannot read"));
        }
        (path.display().to_string(), result)
    } else if src.hasattr("read")? {
        let data = src.call_method0("read")?;
        let bytes: Vec<u8> = if let Ok(s) = data.cast::<PyString>() {
            s.to_cow()?.as_bytes().to_vec()
        } else {
            data.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "src.read() must return bytes or str, got {}",
                    type_name(&data)
                ))
            })?
        };
        let label = match src.getattr("name") {
            Ok(name) => crate::convert::str_form(&name)?,
            Err(_) => "<stream>".to_owned(),
        };
        (label, py.detach(|| read_jsonl(bytes.as_slice())))
    } else {
        return Err(PyTypeError::new_err(format!(
            "src must be a path (str or os.PathLike) or a binary file object, got {}",
            type_name(src)
        )));
    };
    result
        .map(PyCorpus::new_with)
        .map_err(|e| PyValueError::new_err(format!("{label}: {e}")))
}

/// Counts over a corpus: examples, variants (sum of the expected sets' sizes), distinct inputs
/// and tasks, examples per task and per split. `str()` is upstream's one-line form
/// (`9 examples, 3 inputs, 3 tasks, 32 variants [train=6 test=3]`).
#[pyclass(name = "Stats", module = "capkit_rs.typo", frozen, eq)]
#[derive(PartialEq)]
pub(super) struct PyStats {
    inner: Stats,
}

impl From<Stats> for PyStats {
    fn from(inner: Stats) -> PyStats {
        PyStats { inner }
    }
}

#[pymethods]
impl PyStats {
    /// Number of examples.
    #[getter]
    fn examples(&self) -> usize {
        self.inner.examples
    }

    /// Sum of the expected sets' sizes.
    #[getter]
    fn variants(&self) -> usize {
        self.inner.variants
    }

    /// Number of distinct inputs.
    #[getter]
    fn inputs(&self) -> usize {
        self.inner.inputs
    }

    /// Number of distinct tasks.
    #[getter]
    fn tasks(&self) -> usize {
        self.inner.tasks
    }

    /// Examples per task id (sorted by id).
    #[getter]
    fn by_task(&self) -> BTreeMap<String, usize> {
        self.inner.by_task.clone()
    }

    /// Examples per non-empty split value (sorted).
    #[getter]
    fn splits(&self) -> BTreeMap<String, usize> {
        self.inner.splits.clone()
    }

    /// The counts as a `dict`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("examples", self.inner.examples)?;
        d.set_item("variants", self.inner.variants)?;
        d.set_item("inputs", self.inner.inputs)?;
        d.set_item("tasks", self.inner.tasks)?;
        d.set_item("by_task", self.by_task())?;
        d.set_item("splits", self.splits())?;
        Ok(d)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Stats({})", self.inner)
    }
}

/// `stats(examples) -> Stats`: counts the examples, variants, distinct inputs, tasks and splits
/// of a corpus (a `Corpus` or any iterable of `Example`s).
#[pyfunction(name = "stats")]
fn py_stats(py: Python<'_>, examples: &Bound<'_, PyAny>) -> PyResult<PyStats> {
    with_examples(py, examples, describe).map(|inner| PyStats { inner })
}

/// A ratio and a salt with the cuts computed once: `Splitter(ratio, salt).split_of(name)` is the
/// split `assign` gives `name`.
#[pyclass(name = "Splitter", module = "capkit_rs.typo", frozen)]
pub(super) struct PySplitter {
    inner: Splitter,
}

#[pymethods]
impl PySplitter {
    #[new]
    #[pyo3(signature = (ratio = None, salt = ""))]
    fn new(ratio: Option<&Bound<'_, PyAny>>, salt: &str) -> PyResult<PySplitter> {
        Ok(PySplitter {
            inner: Splitter::new(ratio_of(ratio)?, salt),
        })
    }

    /// `"train"`, `"val"` or `"test"`.
    fn split_of(&self, input: &str) -> &'static str {
        self.inner.split_of(input)
    }
}

/// `split_hash(salt, input) -> int`: the first 8 bytes of SHA-256(salt ‖ 0x00 ‖ input),
/// big-endian.
#[pyfunction(name = "split_hash")]
fn py_split_hash(salt: &str, input: &str) -> u64 {
    split_hash(salt, input)
}

/// `split_position(hash) -> float`: the hash's top 53 bits over 2**53, in [0, 1).
#[pyfunction(name = "split_position")]
fn py_split_position(hash: u64) -> f64 {
    split_position(hash)
}

/// `fingerprint(jsonl: bytes) -> str`: a corpus's identity, `"blake3:<64 hex digits>"` of its
/// JSONL bytes (what `write_jsonl` returns and `capkit typo stats` prints).
#[pyfunction(name = "fingerprint")]
fn py_fingerprint(py: Python<'_>, jsonl: &[u8]) -> String {
    py.detach(|| typo_tasks::Fingerprint::of(jsonl).to_string())
}
