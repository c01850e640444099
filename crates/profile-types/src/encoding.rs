//! The encoding of the Python values JSON cannot hold (see [`crate::py_value`]), read side: the
//! reserved key, the value an encoding carries, and its parts. Both the value rules
//! ([`crate::value`]) and the constructors ([`crate::py_value`]) build on it, so it sits below
//! them both and imports neither.

use serde_json::{Map, Value};

/// The reserved key of an encoded Python value (a NUL starts it: no ordinary field name does).
pub const MARKER: &str = "\u{0}capkit:py";

/// A Python value [`MARKER`] carries, borrowed from its encoding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ext<'a> {
    /// An `int` outside the 64-bit range, as its decimal digits (with `-` when negative).
    Int(&'a str),
    /// A `float` that is NaN or infinite.
    Float(f64),
    /// `bytes`, as lowercase hex.
    Bytes(&'a str),
    /// A `tuple`'s items.
    Tuple(&'a [Value]),
    /// A `dict` with a key that is not `str`: its `[key, value]` pairs in insertion order.
    Dict(&'a [Value]),
}

/// The encoding of a value of `kind` (`"int"`, `"float"`, `"bytes"`, `"tuple"`, `"dict"`).
pub(crate) fn encode(kind: &str, payload: Value) -> Value {
    let mut map = Map::with_capacity(1);
    map.insert(
        MARKER.to_owned(),
        Value::Array(vec![Value::String(kind.to_owned()), payload]),
    );
    Value::Object(map)
}

/// The Python value `value` encodes, if it is one of the encodings of [`crate::py_value`] (anything
/// else, a malformed encoding included, is an ordinary JSON value).
pub fn ext(value: &Value) -> Option<Ext<'_>> {
    let Value::Object(map) = value else {
        return None;
    };
    if map.len() != 1 {
        return None;
    }
    let Some(Value::Array(pair)) = map.get(MARKER) else {
        return None;
    };
    let [Value::String(kind), payload] = pair.as_slice() else {
        return None;
    };
    match (kind.as_str(), payload) {
        ("int", Value::String(d)) => Some(Ext::Int(d)),
        ("float", Value::String(f)) => match f.as_str() {
            "nan" => Some(Ext::Float(f64::NAN)),
            "inf" => Some(Ext::Float(f64::INFINITY)),
            "-inf" => Some(Ext::Float(f64::NEG_INFINITY)),
            _ => None,
        },
        ("bytes", Value::String(h)) => Some(Ext::Bytes(h)),
        ("tuple", Value::Array(items)) => Some(Ext::Tuple(items)),
        ("dict", Value::Array(entries)) => Some(Ext::Dict(entries)),
        _ => None,
    }
}

/// The `[key, value]` pairs of an encoded dict.
pub(crate) fn dict_entries(entries: &[Value]) -> impl Iterator<Item = (&Value, &Value)> {
    entries
        .iter()
        .filter_map(|e| match e.as_array().map(Vec::as_slice) {
            Some([k, v]) => Some((k, v)),
            _ => None,
        })
}

/// The bytes behind an encoding's hex.
pub(crate) fn unhex(hex: &str) -> Vec<u8> {
    hex.as_bytes()
        .chunks(2)
        .filter_map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
        })
        .collect()
}
