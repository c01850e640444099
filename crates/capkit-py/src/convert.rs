//! Python values ⇄ the JSON values (`profile_types::Label`) the Rust crates compute on.
//!
//! Two conversions exist because upstream compares labels in two ways: a classifier profile only
//! ever compares Python `str()` forms, so a label is kept as its `str()` (exact for *any* Python
//! object, tuples and custom classes included); an extractor's records need real values (Python
//! `==`, truthiness and `str()` of each field), so they are converted structurally, and a value
//! JSON cannot hold (a tuple, NaN, a custom object) is refused with a `TypeError` naming it rather
//! than approximated.

use pyo3::exceptions::{PyTypeError, PyValueError};
use std::collections::HashMap;

use foldhash::fast::FixedState;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use serde_json::{Map, Number, Value};

use profile_types::Label;

/// How a model's answers become [`Label`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LabelMode {
    /// Classifier labels: their Python `str()` form (what upstream compares).
    StrForm,
    /// Extractor records and their fields, converted structurally.
    Value,
}

/// Converts answers one after another, reusing the previous conversion when a model returns the
/// very same Python object again (constant labels are one interned object), which saves a
/// `str()` call and a UTF-8 copy per answer.
pub(crate) struct Converter<'py> {
    mode: LabelMode,
    last: Option<(Bound<'py, PyAny>, Label)>,
    strings: StrCache<'py>,
}

/// `str` objects already converted in this batch, by identity: records built as `dict(R)` share
/// their key and value objects, and under the abi3-py39 API each fresh UTF-8 copy costs a
/// temporary `bytes` object. Holding the object keeps its address from being reused.
#[derive(Default)]
pub(crate) struct StrCache<'py> {
    by_address: HashMap<usize, (Bound<'py, PyString>, String), FixedState>,
}

/// Past this many distinct `str` objects a batch is not repeating itself; stop remembering.
const STR_CACHE_LIMIT: usize = 1 << 14;

impl<'py> StrCache<'py> {
    fn get(&mut self, s: &Bound<'py, PyString>) -> PyResult<String> {
        let address = s.as_ptr() as usize;
        if let Some((_, text)) = self.by_address.get(&address) {
            return Ok(text.clone());
        }
        let text = s.to_cow()?.into_owned();
        if self.by_address.len() < STR_CACHE_LIMIT {
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
            strings: StrCache::default(),
        }
    }

    pub(crate) fn convert(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<Label> {
        if let Some((prev, label)) = &self.last
            && prev.is(obj)
        {
            return Ok(label.clone());
        }
        match self.mode {
            LabelMode::StrForm => {
                let label = Value::String(str_form(obj)?);
                self.last = Some((obj.clone(), label.clone()));
                Ok(label)
            }
            // Records are fresh objects (`dict(R)`) far more often than repeats; remembering
            // one would cost a deep copy per answer.
            LabelMode::Value => value_with(obj, &mut self.strings),
        }
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
    value_with(obj, &mut StrCache::default())
}

fn value_with<'py>(obj: &Bound<'py, PyAny>, strings: &mut StrCache<'py>) -> PyResult<Value> {
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
        return Err(PyValueError::new_err(format!(
            "the integer {} is too large for a record value (at most 64 bits)",
            str_form(obj)?
        )));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return Number::from_f64(v).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!(
                "the float {} cannot be a record value (JSON has no NaN or infinity)",
                str_form(obj).unwrap_or_default()
            ))
        });
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "record keys must be str, got {} ({})",
                    type_name(&k),
                    str_form(&k).unwrap_or_default()
                ))
            })?;
            map.insert(strings.get(key)?, value_with(&v, strings)?);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l
            .iter()
            .map(|v| to_value(&v))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    Err(PyTypeError::new_err(format!(
        "a value of type {} cannot be a record value (use dict, list, str, int, float, bool or None)",
        type_name(obj)
    )))
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
    for item in texts.try_iter()? {
        out.push(str_form(&item?)?);
    }
    Ok(out)
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
