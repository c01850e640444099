//! Python values JSON cannot hold, carried inside a JSON value.
//!
//! mixle's extractors may put any Python value in a record: integers beyond 64 bits, NaN and the
//! infinities, `bytes`, tuples, dicts with keys that are not `str`, and records whose own keys are
//! not `str`. The value rules of [`crate::value`] (`str()`, `==`, truthiness) must see them as
//! Python does, and every crate carries records as [`serde_json::Value`]s, so such a value is
//! carried as a JSON object of one entry under the reserved key [`MARKER`], `[kind, payload]`:
//!
//! | Python value | encoding |
//! |---|---|
//! | `int` outside `i64`/`u64` | `["int", "<decimal digits>"]` |
//! | `float` NaN, `inf`, `-inf` | `["float", "nan" \| "inf" \| "-inf"]` |
//! | `bytes` | `["bytes", "<lowercase hex>"]` |
//! | `tuple` | `["tuple", [items...]]` |
//! | `dict` with a key that is not `str` | `["dict", [[key, value], ...]]` (insertion order) |
//!
//! A *record's* own keys are strings in every crate (`Map<String, Value>`): a key that is not a
//! `str` becomes [`KEY_PREFIX`] followed by its equality form (see [`record_key`]), so two keys
//! Python's dict lookup takes for one (`1`, `1.0`, `True`) are one string, and no `str` key can
//! collide with it (keys starting with the reserved prefix are refused by the binding, see
//! [`is_reserved_key`]).
//!
//! Written for capkit, MIT OR Apache-2.0.
//!
//! ```
//! use profile_types::py_value::{big_int, record_key, tuple};
//! use profile_types::value::{py_eq, py_str, py_truthy};
//! use serde_json::json;
//!
//! let big = big_int("1180591620717411303424"); // 2**70
//! assert!(py_eq(&big, &json!(1180591620717411303424.0_f64)));
//! assert_eq!(py_str(&tuple(vec![json!(1), json!("a")])), "(1, 'a')");
//! assert!(!py_eq(&tuple(vec![json!(1)]), &json!([1])));
//! assert!(py_truthy(&big));
//! assert_eq!(record_key(&json!(1.0)), record_key(&json!(true)));
//! ```

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

pub use crate::encoding::{Ext, MARKER, ext};
use crate::encoding::{dict_entries, encode};
use crate::value::{py_float_repr, py_repr};

/// The prefix of a record key that is not a `str`.
pub const KEY_PREFIX: &str = "\u{0}capkit:key:";

/// An `int` of any size: a JSON number when it fits 64 bits, else its encoding. `decimal` is
/// Python's `str()` of the int.
pub fn big_int(decimal: &str) -> Value {
    if let Ok(i) = decimal.parse::<i64>() {
        return Value::from(i);
    }
    if let Ok(u) = decimal.parse::<u64>() {
        return Value::from(u);
    }
    encode("int", Value::String(decimal.to_owned()))
}

/// A `float`: a JSON number when finite, else its encoding.
pub fn float(f: f64) -> Value {
    match serde_json::Number::from_f64(f) {
        Some(n) => Value::Number(n),
        None => {
            let name = if f.is_nan() {
                "nan"
            } else if f > 0.0 {
                "inf"
            } else {
                "-inf"
            };
            encode("float", Value::String(name.to_owned()))
        }
    }
}

/// A `bytes` value.
pub fn bytes(b: &[u8]) -> Value {
    let mut hex = String::with_capacity(2 * b.len());
    for byte in b {
        let _ = write!(hex, "{byte:02x}");
    }
    encode("bytes", Value::String(hex))
}

/// A `tuple` of already converted items.
pub fn tuple(items: Vec<Value>) -> Value {
    encode("tuple", Value::Array(items))
}

/// A `dict` whose keys are not all `str`, as its converted `(key, value)` pairs in order.
pub fn dict(entries: Vec<(Value, Value)>) -> Value {
    encode(
        "dict",
        Value::Array(
            entries
                .into_iter()
                .map(|(k, v)| Value::Array(vec![k, v]))
                .collect(),
        ),
    )
}

/// Whether a `str` key would read as an encoding ([`MARKER`] or a [`KEY_PREFIX`] key): the
/// binding refuses such keys rather than misread them.
pub fn is_reserved_key(key: &str) -> bool {
    key == MARKER || key.starts_with(KEY_PREFIX)
}

/// The string a record key is stored under: a `str` key is itself; any other key is
/// [`KEY_PREFIX`] + its equality form, equal for keys Python's `dict` takes for one
/// (`1`, `1.0`, `True`; `(1, 2)` and `(1.0, 2)`). A NaN is equal to nothing, so each NaN key
/// gets a form of its own (Python would find the very same NaN object again: a difference).
pub fn record_key(key: &Value) -> Cow<'_, str> {
    match key {
        Value::String(s) => Cow::Borrowed(s),
        other => {
            let mut out = String::from(KEY_PREFIX);
            write_key_form(&mut out, other);
            Cow::Owned(out)
        }
    }
}

/// How JSON written for people names a stored record key (a field breakdown's keys): a `str`
/// key as itself, any other key as its equality form in brackets, as a subscript reads it
/// (`[1]`, `[(1, 'a')]`, `[None]`, `[b'x']`), so it is never taken for the `str` key that
/// prints alike (`"1"`). A `str` key that itself starts with `[` gets one more (`[x` is shown
/// `[[x`), so every label reads back to one key ([`key_of_label`]).
///
/// ```
/// use profile_types::py_value::{key_label, key_of_label, record_key};
/// use serde_json::json;
///
/// let int_key = record_key(&json!(1)).into_owned();
/// assert_eq!(key_label(&int_key), "[1]");
/// assert_eq!(key_label("1"), "1");
/// assert_eq!(key_label("[x]"), "[[x]");
/// assert_eq!(key_of_label("[1]"), int_key);
/// assert_eq!(key_of_label("[[x]"), "[x]");
/// ```
pub fn key_label(stored: &str) -> Cow<'_, str> {
    match stored.strip_prefix(KEY_PREFIX) {
        Some(form) => Cow::Owned(format!("[{form}]")),
        None if stored.starts_with('[') => Cow::Owned(format!("[{stored}")),
        None => Cow::Borrowed(stored),
    }
}

/// The stored record key behind a [`key_label`]. (An equality form never starts with `[`: a
/// list is not a Python key.) A label written before labels existed (a `str` key starting with
/// `[`, or a stored key with its NUL) reads as the key it was, unless it starts with `[`.
pub fn key_of_label(label: &str) -> Cow<'_, str> {
    let Some(rest) = label.strip_prefix('[') else {
        return Cow::Borrowed(label);
    };
    if rest.starts_with('[') {
        return Cow::Borrowed(rest);
    }
    match rest.strip_suffix(']') {
        Some(form) => Cow::Owned(format!("{KEY_PREFIX}{form}")),
        None => Cow::Borrowed(label),
    }
}

/// The first reserved key ([`is_reserved_key`]) anywhere in `value`, objects inside arrays and
/// objects included. JSON from outside capkit (a model's answer) holding one would be read as a
/// Python value it does not hold (an encoded `int`, a non-`str` key), so its readers refuse it.
///
/// ```
/// use profile_types::py_value::reserved_key_in;
/// use serde_json::json;
///
/// assert_eq!(reserved_key_in(&json!({"a": [{"\u{0}capkit:py": ["int", "5"]}]})), Some("\u{0}capkit:py"));
/// assert_eq!(reserved_key_in(&json!({"a": [1, {"b": "capkit:py"}]})), None);
/// ```
pub fn reserved_key_in(value: &Value) -> Option<&str> {
    match value {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if is_reserved_key(k) {
                Some(k.as_str())
            } else {
                reserved_key_in(v)
            }
        }),
        Value::Array(items) => items.iter().find_map(reserved_key_in),
        _ => None,
    }
}

/// Serde of a map keyed by stored record keys (a field breakdown's per-field counts) whose JSON
/// keys are [`key_label`]s: `#[serde(with = "profile_types::py_value::labelled_keys")]`.
pub mod labelled_keys {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{key_label, key_of_label};

    /// Writes the map with its keys as labels (in stored-key order).
    pub fn serialize<V: Serialize, S: Serializer>(
        map: &BTreeMap<String, V>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_map(map.iter().map(|(k, v)| (key_label(k), v)))
    }

    /// Reads a map written by [`serialize`], keys back to their stored form.
    pub fn deserialize<'de, V: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, V>, D::Error> {
        let labelled = BTreeMap::<String, V>::deserialize(d)?;
        Ok(labelled
            .into_iter()
            .map(|(k, v)| (key_of_label(&k).into_owned(), v))
            .collect())
    }
}

static NAN_KEYS: AtomicU64 = AtomicU64::new(0);

fn write_key_form(out: &mut String, key: &Value) {
    match (key, ext(key)) {
        (Value::Null, _) => out.push_str("None"),
        (Value::Bool(b), _) => out.push(if *b { '1' } else { '0' }),
        (Value::Number(n), _) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "{u}");
            } else {
                write_float_form(out, n.as_f64().unwrap_or(0.0));
            }
        }
        (_, Some(Ext::Int(d))) => out.push_str(d),
        (_, Some(Ext::Float(f))) if f.is_nan() => {
            let _ = write!(out, "nan#{}", NAN_KEYS.fetch_add(1, Ordering::Relaxed));
        }
        (_, Some(Ext::Float(f))) => out.push_str(&py_float_repr(f)),
        (_, Some(Ext::Tuple(items))) => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_key_form(out, item);
            }
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        // str (quoted, so `'1'` is not `1`), bytes; lists and dicts cannot be Python keys.
        (other, _) => out.push_str(&py_repr(other)),
    }
}

/// A finite float's equality form: an integral one is its exact integer (Python's `1.0 == 1`
/// and `2.0**70 == 2**70`), any other its `repr()`.
fn write_float_form(out: &mut String, f: f64) {
    if f == 0.0 {
        out.push('0');
    } else if f.fract() == 0.0 {
        let _ = write!(out, "{f:.0}");
    } else {
        out.push_str(&py_float_repr(f));
    }
}

/// Whether `value` holds a NaN anywhere (Python's `v == v` is then false for `v` itself).
pub fn has_nan(value: &Value) -> bool {
    match (value, ext(value)) {
        (_, Some(Ext::Float(f))) => f.is_nan(),
        (_, Some(Ext::Tuple(items))) => items.iter().any(has_nan),
        (_, Some(Ext::Dict(entries))) => {
            dict_entries(entries).any(|(k, v)| has_nan(k) || has_nan(v))
        }
        (_, Some(_)) => false,
        (Value::Array(items), None) => items.iter().any(has_nan),
        (Value::Object(map), None) => map.values().any(has_nan),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::unhex;
    use crate::value::{py_eq, py_str, py_truthy};
    use serde_json::json;

    #[test]
    fn encodings_read_back_and_plain_values_stay_plain() {
        assert_eq!(big_int("5"), json!(5));
        assert_eq!(big_int("18446744073709551615"), json!(u64::MAX));
        assert_eq!(
            ext(&big_int("-18446744073709551616")),
            Some(Ext::Int("-18446744073709551616"))
        );
        assert_eq!(float(1.5), json!(1.5));
        assert!(matches!(ext(&float(f64::NAN)), Some(Ext::Float(f)) if f.is_nan()));
        assert_eq!(
            ext(&float(f64::NEG_INFINITY)),
            Some(Ext::Float(f64::NEG_INFINITY))
        );
        assert_eq!(unhex("00ff27"), vec![0, 255, 0x27]);
        // A record that merely has the marker key with something else is not an encoding.
        assert_eq!(ext(&json!({MARKER: ["int", 5]})), None);
        assert_eq!(ext(&json!({MARKER: ["int", "5"], "x": 1})), None);
    }

    #[test]
    fn str_matches_python() {
        assert_eq!(
            py_str(&big_int("1180591620717411303424")),
            "1180591620717411303424"
        );
        assert_eq!(py_str(&float(f64::NAN)), "nan");
        assert_eq!(py_str(&float(f64::NEG_INFINITY)), "-inf");
        assert_eq!(py_str(&bytes(b"ab")), "b'ab'");
        assert_eq!(py_str(&bytes(b"\x00'\n\\\x7f")), r#"b"\x00'\n\\\x7f""#);
        assert_eq!(py_str(&bytes(b"'\"")), r#"b'\'"'"#);
        assert_eq!(py_str(&tuple(vec![])), "()");
        assert_eq!(py_str(&tuple(vec![json!("a")])), "('a',)");
        assert_eq!(
            py_str(&dict(vec![
                (json!(1.0), json!("x")),
                (tuple(vec![json!(1), json!("a")]), bytes(b"\x00'"))
            ])),
            r#"{1.0: 'x', (1, 'a'): b"\x00'"}"#
        );
        assert_eq!(
            py_str(&json!([float(f64::INFINITY), bytes(b"")])),
            "[inf, b'']"
        );
    }

    #[test]
    fn equality_matches_python() {
        let big = big_int("1180591620717411303424");
        assert!(py_eq(&big, &big_int("1180591620717411303424")));
        assert!(py_eq(&big, &json!(1180591620717411303424.0_f64)));
        assert!(!py_eq(&big, &big_int("1180591620717411303425")));
        assert!(!py_eq(&big, &json!("1180591620717411303424")));
        assert!(!py_eq(&float(f64::NAN), &float(f64::NAN)));
        assert!(py_eq(&float(f64::INFINITY), &float(f64::INFINITY)));
        assert!(!py_eq(&float(f64::INFINITY), &float(f64::NEG_INFINITY)));
        assert!(py_eq(&bytes(b"a"), &bytes(b"a")) && !py_eq(&bytes(b"a"), &json!("a")));
        let t = tuple(vec![json!(1), json!("a")]);
        assert!(py_eq(&t, &tuple(vec![json!(1.0), json!("a")])));
        assert!(!py_eq(&t, &json!([1, "a"])));
        let d = dict(vec![(json!(1), json!("x")), (json!(2), json!("y"))]);
        assert!(py_eq(
            &d,
            &dict(vec![(json!(2.0), json!("y")), (json!(true), json!("x"))])
        ));
        assert!(!py_eq(&d, &dict(vec![(json!(1), json!("x"))])));
    }

    #[test]
    fn key_labels_keep_str_and_other_keys_apart_and_read_back() {
        let stored = [
            "1".to_owned(),
            record_key(&json!(1)).into_owned(),
            "[1]".to_owned(),
            "[".to_owned(),
            "[[".to_owned(),
            String::new(),
            record_key(&json!(null)).into_owned(),
            record_key(&tuple(vec![json!(1), json!("a")])).into_owned(),
            record_key(&bytes(b"x")).into_owned(),
            record_key(&json!(1.5)).into_owned(),
        ];
        let labels: Vec<String> = stored.iter().map(|k| key_label(k).into_owned()).collect();
        assert_eq!(
            labels,
            [
                "1",
                "[1]",
                "[[1]",
                "[[",
                "[[[",
                "",
                "[None]",
                "[(1, 'a')]",
                "[b'x']",
                "[1.5]"
            ]
        );
        for (key, label) in stored.iter().zip(&labels) {
            assert_eq!(key_of_label(label), key.as_str(), "{label}");
            assert!(!label.contains('\0'), "{label:?} shows the stored form");
        }
        let mut unique = labels.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(
            unique.len(),
            labels.len(),
            "two keys share a label: {labels:?}"
        );
        // Reports written before labels: a stored key as it was written reads as itself.
        assert_eq!(key_of_label(&stored[1]), stored[1].as_str());
    }

    #[test]
    fn reserved_keys_are_found_anywhere() {
        assert_eq!(
            reserved_key_in(&json!([{"ok": {"x": [1, {KEY_PREFIX.to_owned() + "1": 2}]}}])),
            Some("\u{0}capkit:key:1")
        );
        assert_eq!(
            reserved_key_in(&big_int("1180591620717411303424")),
            Some(MARKER)
        );
        assert_eq!(reserved_key_in(&json!({"capkit:py": 1, "\u{0}x": 2})), None);
    }

    #[test]
    fn truthiness_matches_python() {
        assert!(py_truthy(&float(f64::NAN)) && py_truthy(&big_int("-99999999999999999999")));
        assert!(!py_truthy(&bytes(b"")) && py_truthy(&bytes(b"\x00")));
        assert!(!py_truthy(&tuple(vec![])) && py_truthy(&tuple(vec![json!(null)])));
        assert!(py_truthy(&dict(vec![(json!(1), json!(null))])));
    }

    #[test]
    fn record_keys_follow_python_dict_lookup() {
        assert_eq!(record_key(&json!("1")), "1");
        assert_ne!(record_key(&json!("1")), record_key(&json!(1)));
        assert_eq!(record_key(&json!(1)), record_key(&json!(true)));
        assert_eq!(record_key(&json!(1)), record_key(&json!(1.0)));
        assert_eq!(record_key(&json!(-0.0)), record_key(&json!(0)));
        assert_ne!(record_key(&json!(1.5)), record_key(&json!(1)));
        assert_eq!(
            record_key(&big_int("1180591620717411303424")),
            record_key(&json!(1180591620717411303424.0_f64))
        );
        assert_eq!(
            record_key(&tuple(vec![json!(1), json!("a")])),
            record_key(&tuple(vec![json!(1.0), json!("a")]))
        );
        assert_ne!(
            record_key(&tuple(vec![json!(1)])),
            record_key(&tuple(vec![json!("1")]))
        );
        assert_ne!(record_key(&float(f64::NAN)), record_key(&float(f64::NAN)));
        assert_eq!(record_key(&json!(null)), format!("{KEY_PREFIX}None"));
        assert_eq!(key_label(&record_key(&json!(2))), "[2]");
        assert!(is_reserved_key(&record_key(&json!(2))) && !is_reserved_key("2"));
        assert!(has_nan(&json!({"a": [tuple(vec![float(f64::NAN)])]})));
        assert!(!has_nan(&json!({"a": [float(f64::INFINITY)]})));
    }
}
