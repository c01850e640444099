//! Python values ⇄ the JSON values (`profile_types::Label`) the Rust crates compute on.
//!
//! Two conversions exist because upstream compares labels in two ways: a classifier profile only
//! ever compares Python `str()` forms, so a label is kept as its `str()` (exact for *any* Python
//! object, tuples and custom classes included); an extractor's records need real values (Python
//! `==`, truthiness and `str()` of each field), so they are converted structurally: the Python
//! values JSON cannot hold (ints beyond 64 bits, NaN, `bytes`, tuples, keys that are not `str`)
//! in `profile_types::py_value`'s encoding, which the Rust value rules read as Python does, and
//! anything else (a custom object, a set) refused with a `TypeError` naming it rather than
//! approximated. Values written as JSON (states, reports) take JSON's values only.

use pyo3::exceptions::{PyTypeError, PyValueError};
use std::collections::HashMap;
use std::sync::Arc;

use foldhash::fast::FixedState;
use profile_types::py_value;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use suite_core::SharedLabel;

/// The values of an extractor's answer: a record.
const RECORD: Values = Values::Record { top: true };

/// How a model's answers become [`Label`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LabelMode {
    /// Classifier labels: their Python `str()` form (what upstream compares).
    StrForm,
    /// Extractor records and their fields, converted structurally.
    Value,
}

/// Converts the answers of one batch into [`SharedLabel`]s, converting each Python object once:
/// an answer that is the very object of an earlier answer (a constant label is one interned
/// object) gets the earlier answer's label, shared, and so does a record (`dict`) whose keys and
/// values are, in order, the very objects of an earlier record's, all of them immutable (`dict(R)`
/// builds a fresh dict of `R`'s own objects). Sharing by address is what lets the profile recognise
/// a repeated answer without reading it ([`suite_core::LastAnswer`]).
///
/// Every object whose address is remembered is held, so no address can name another object
/// while the converter lives; a converter lives for one batch.
pub(crate) struct Converter<'py> {
    mode: LabelMode,
    /// The previous answer and its label (models often give a run of texts one label).
    last: Option<(Bound<'py, PyAny>, SharedLabel)>,
    /// Classifier answers converted so far, by identity.
    objects: HashMap<usize, (Bound<'py, PyAny>, SharedLabel), FixedState>,
    /// Records of immutable entries converted so far, by the identity of their keys and values.
    records: RecordCache<'py>,
    strings: StrCache<'py>,
}

/// Past this many remembered objects a batch is not repeating itself; stop remembering.
const IDENTITY_LIMIT: usize = 1 << 14;

/// A record's label with the key and value objects its addresses name.
type HeldLabel<'py> = (Vec<Bound<'py, PyAny>>, SharedLabel);

/// Records (`dict`s) whose keys are `str` and whose values are `str`, `int`, `float`, `bool` or
/// `None` (immutable: their conversion depends on nothing but their identity), by the addresses
/// of their keys and values in order. The key and value objects are held.
#[derive(Default)]
struct RecordCache<'py> {
    by_entries: HashMap<Box<[usize]>, HeldLabel<'py>, FixedState>,
    /// The addresses of the record being looked up (reused, so a hit allocates nothing); empty
    /// when it has an entry that is not an immutable atom.
    scratch: Vec<usize>,
}

impl<'py> RecordCache<'py> {
    /// The label of an earlier record with the very same entries, if any.
    fn find(&mut self, d: &Bound<'py, PyDict>) -> Option<SharedLabel> {
        self.scratch.clear();
        for (k, v) in d.iter() {
            if !k.is_exact_instance_of::<PyString>() || !is_atom(&v) {
                self.scratch.clear();
                return None;
            }
            self.scratch.push(k.as_ptr() as usize);
            self.scratch.push(v.as_ptr() as usize);
        }
        self.by_entries
            .get(self.scratch.as_slice())
            .map(|(_, label)| Arc::clone(label))
    }

    /// Remembers `label` for `d`, the record [`RecordCache::find`] last looked up and missed.
    fn store(&mut self, d: &Bound<'py, PyDict>, label: &SharedLabel) {
        if self.scratch.is_empty() || self.by_entries.len() >= IDENTITY_LIMIT {
            return;
        }
        let held = d.iter().flat_map(|(k, v)| [k, v]).collect();
        self.by_entries
            .insert(self.scratch.as_slice().into(), (held, Arc::clone(label)));
    }
}

/// Whether `obj` is immutable and converts by its value alone: `None`, `bool`, or an instance of
/// `str`, `int` or `float` (subclasses included: their conversion reads the built-in value).
fn is_atom(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_none()
        || obj.is_exact_instance_of::<PyString>()
        || obj.is_exact_instance_of::<PyInt>()
        || obj.is_exact_instance_of::<PyFloat>()
        || obj.is_exact_instance_of::<PyBool>()
        || obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyInt>()
        || obj.is_instance_of::<PyFloat>()
}

/// `str` objects already converted in this batch, by identity: records built as `dict(R)` share
/// their key and value objects, and under the abi3-py39 API each fresh UTF-8 copy costs a
/// temporary `bytes` object. Holding the object keeps its address from being reused.
#[derive(Default)]
pub(crate) struct StrCache<'py> {
    by_address: HashMap<usize, (Bound<'py, PyString>, String), FixedState>,
}

impl<'py> StrCache<'py> {
    fn get(&mut self, s: &Bound<'py, PyString>) -> PyResult<String> {
        let address = s.as_ptr() as usize;
        if let Some((_, text)) = self.by_address.get(&address) {
            return Ok(text.clone());
        }
        let text = s.to_cow()?.into_owned();
        if self.by_address.len() < IDENTITY_LIMIT {
            self.by_address.insert(address, (s.clone(), text.clone()));
        }
        Ok(text)
    }
}

impl<'py> Converter<'py> {
    pub(crate) fn new(mode: LabelMode) -> Converter<'py> {
        Converter {
            mode,
            last: None,
            objects: HashMap::default(),
            records: RecordCache::default(),
            strings: StrCache::default(),
        }
    }

    /// The label of one answer, shared with every earlier answer of the batch it is known to
    /// equal by identity.
    pub(crate) fn convert(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<SharedLabel> {
        if let Some((prev, label)) = &self.last
            && prev.is(obj)
        {
            return Ok(Arc::clone(label));
        }
        let label = match self.mode {
            LabelMode::StrForm => {
                let address = obj.as_ptr() as usize;
                match self.objects.get(&address) {
                    Some((_, label)) => Arc::clone(label),
                    None => {
                        let label = Arc::new(Value::String(str_form(obj)?));
                        if self.objects.len() < IDENTITY_LIMIT {
                            self.objects
                                .insert(address, (obj.clone(), Arc::clone(&label)));
                        }
                        label
                    }
                }
            }
            LabelMode::Value => match obj.cast::<PyDict>() {
                Ok(d) => match self.records.find(d) {
                    Some(label) => label,
                    None => {
                        let label = Arc::new(value_with(obj, &mut self.strings, RECORD)?);
                        self.records.store(d, &label);
                        label
                    }
                },
                Err(_) => Arc::new(value_with(obj, &mut self.strings, RECORD)?),
            },
        };
        self.last = Some((obj.clone(), Arc::clone(&label)));
        Ok(label)
    }
}

/// Python `str(obj)` as a Rust string.
pub(crate) fn str_form(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = obj.cast_exact::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    Ok(obj.str()?.to_cow()?.into_owned())
}

/// A Python value as JSON: `dict` (string keys, order kept), `list`, `str`, `int`, finite
/// `float`, `bool`, `None`. Anything else is a `TypeError`/`ValueError` naming what it was.
pub(crate) fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    value_with(obj, &mut StrCache::default(), Values::Json)
}

/// An extractor's record (or any value in one) as the Rust rules read it: JSON values as
/// [`to_value`] gives them, and the Python values JSON cannot hold (ints beyond 64 bits, NaN and
/// the infinities, `bytes`, tuples, keys that are not `str`) in `profile_types::py_value`'s
/// encoding, so `==`, truthiness and `str()` are mixle's.
pub(crate) fn to_record(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    value_with(obj, &mut StrCache::default(), Values::Record { top: true })
}

/// Which values a conversion accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Values {
    /// JSON's only (states, reports, settings: they are written as JSON).
    Json,
    /// Any value mixle's record rules take; `top`: the record itself (its keys are the field
    /// names the Rust crates look up, so keys that are not `str` become `py_value::record_key`
    /// strings; a nested dict with such keys is kept whole, its keys printed as Python does).
    Record { top: bool },
}

fn value_with<'py>(
    obj: &Bound<'py, PyAny>,
    strings: &mut StrCache<'py>,
    values: Values,
) -> PyResult<Value> {
    let record = values != Values::Json;
    let inner = if record {
        Values::Record { top: false }
    } else {
        Values::Json
    };
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(strings.get(s)?));
    }
    // bool before int: `True` is an `int` in Python.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::Number(u.into()));
        }
        if record {
            // The int's own digits (an int subclass may print otherwise).
            let digits = obj.py().get_type::<PyInt>().call1((obj,))?.str()?;
            return Ok(py_value::big_int(&digits.to_cow()?));
        }
        return Err(PyValueError::new_err(format!(
            "the integer {} is too large for a JSON value (at most 64 bits)",
            str_form(obj)?
        )));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        if record {
            return Ok(py_value::float(v));
        }
        return Number::from_f64(v).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!(
                "the float {} cannot be a JSON value (JSON has no NaN or infinity)",
                str_form(obj).unwrap_or_default()
            ))
        });
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return dict_value(d, strings, values);
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l
            .iter()
            .map(|v| value_with(&v, strings, inner))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    if record {
        if let Ok(t) = obj.cast::<PyTuple>() {
            return t
                .iter()
                .map(|v| value_with(&v, strings, inner))
                .collect::<PyResult<_>>()
                .map(py_value::tuple);
        }
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(py_value::bytes(b.as_bytes()));
        }
    }
    if is_numpy(obj) {
        // A numpy scalar or array is its Python value (`.tolist()`: an int, float, bool, str or
        // nested list), which is what mixle's `==`, truthiness and `str()` see of it, nearly.
        return value_with(&obj.call_method0("tolist")?, strings, values);
    }
    Err(PyTypeError::new_err(if record {
        format!(
            "a value of type {} cannot be a record value (use dict, list, tuple, str, bytes, int, \
             float, bool or None)",
            type_name(obj)
        )
    } else {
        format!(
            "a value of type {} cannot be a JSON value (use dict, list, str, int, float, bool or \
             None)",
            type_name(obj)
        )
    }))
}

/// A `dict`: a JSON object when its keys are `str`; otherwise (records only) a record's keys as
/// `py_value::record_key` strings, or a nested dict in `py_value`'s dict encoding.
fn dict_value<'py>(
    d: &Bound<'py, PyDict>,
    strings: &mut StrCache<'py>,
    values: Values,
) -> PyResult<Value> {
    let inner = match values {
        Values::Json => Values::Json,
        Values::Record { .. } => Values::Record { top: false },
    };
    let all_str = d.keys().iter().all(|k| k.is_instance_of::<PyString>());
    if all_str || values == (Values::Record { top: true }) {
        let mut map = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let key = match k.cast::<PyString>() {
                Ok(s) => {
                    let s = strings.get(s)?;
                    if values != Values::Json {
                        not_reserved(&s, "record key")?;
                    }
                    s
                }
                Err(_) if values == Values::Json => {
                    return Err(PyTypeError::new_err(format!(
                        "JSON object keys must be str, got {} ({})",
                        type_name(&k),
                        str_form(&k).unwrap_or_default()
                    )));
                }
                Err(_) => py_value::record_key(&value_with(&k, strings, inner)?).into_owned(),
            };
            map.insert(key, value_with(&v, strings, inner)?);
        }
        return Ok(Value::Object(map));
    }
    let mut entries = Vec::with_capacity(d.len());
    for (k, v) in d.iter() {
        entries.push((
            value_with(&k, strings, inner)?,
            value_with(&v, strings, inner)?,
        ));
    }
    Ok(py_value::dict(entries))
}

/// Whether `obj` is a numpy scalar or array (its type lives in numpy and has `tolist`).
fn is_numpy(obj: &Bound<'_, PyAny>) -> bool {
    obj.get_type()
        .getattr("__module__")
        .and_then(|m| m.extract::<String>())
        .is_ok_and(|m| m == "numpy" || m.starts_with("numpy."))
        && obj.hasattr("tolist").unwrap_or(false)
}

/// A JSON value as the Python value it came from.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// The Python type name of an object, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .and_then(|n| n.to_cow().map(|c| c.into_owned()))
        .unwrap_or_else(|_| "object".to_owned())
}

/// Every element of a Python iterable, as `str()` (upstream stringifies `texts` this way).
pub(crate) fn texts_of(texts: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let mut out = Vec::new();
    for (i, item) in texts.try_iter()?.enumerate() {
        let item = item?;
        let text = str_form(&item).map_err(|e| {
            if e.is_instance_of::<pyo3::exceptions::PyUnicodeEncodeError>(item.py()) {
                PyValueError::new_err(format!(
                    "text {i} holds a lone surrogate ({e}); texts must be valid Unicode"
                ))
            } else {
                e
            }
        })?;
        out.push(text);
    }
    Ok(out)
}

/// An extractor's `fields` (any values, as mixle's `f in record` takes them): each as the key
/// string a record stores it under ([`to_record`]), with the objects themselves.
pub(crate) fn fields_of<'py>(
    fields: &Bound<'py, PyAny>,
) -> PyResult<(Vec<String>, Vec<Bound<'py, PyAny>>)> {
    let mut keys = Vec::new();
    let mut objects = Vec::new();
    let mut strings = StrCache::default();
    for item in fields.try_iter()? {
        let item = item?;
        let key = match item.cast::<PyString>() {
            Ok(s) => {
                let s = strings.get(s)?;
                not_reserved(&s, "field")?;
                s
            }
            Err(_) => py_value::record_key(&value_with(
                &item,
                &mut strings,
                Values::Record { top: false },
            )?)
            .into_owned(),
        };
        keys.push(key);
        objects.push(item);
    }
    Ok((keys, objects))
}

/// A `ValueError` for a `str` key that would read as one of `py_value`'s encodings.
fn not_reserved(key: &str, what: &str) -> PyResult<()> {
    if py_value::is_reserved_key(key) {
        return Err(PyValueError::new_err(format!(
            "the {what} {key:?} starts as capkit's reserved keys do (a NUL and \"capkit:\"); \
             rename it"
        )));
    }
    Ok(())
}

/// Every element of a Python iterable, which must be `str` (`what` names the argument).
pub(crate) fn strs_of(items: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    let mut out = Vec::new();
    for item in items.try_iter()? {
        let item = item?;
        let s = item.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{what} must hold str values, got {}",
                type_name(&item)
            ))
        })?;
        out.push(s.to_cow()?.into_owned());
    }
    Ok(out)
}
