//! Python value semantics over JSON values.
//!
//! The upstream references are Python programs, and their results are defined by three Python
//! notions applied to JSON-representable values. Every crate that compares labels, records or
//! candidate values uses these functions, so the rules exist exactly once:
//!
//! * [`py_str`]: what Python's `str(x)` prints. Classifier agreement and extractive grounding
//!   compare these renderings, so `1` agrees with `"1"`, `null` with `"None"`, `true` with
//!   `"True"`, but `1` does not agree with `1.0`, and equal objects with different key order
//!   disagree (`{'a': 1, 'b': 2}` vs `{'b': 2, 'a': 1}`).
//! * [`py_eq`]: Python's `==`. Numbers compare by value across integers, floats and booleans
//!   (`1 == 1.0 == true`), a string never equals a number, objects ignore key order, arrays do not.
//! * [`py_truthy`]: Python truthiness. Falsy are `null`, `false`, `0`, `0.0`, `""`, `[]`, `{}`.
//!
//! [`json_kind`] names a value's JSON type for error messages ("expected …, got a string"), so
//! every crate words a wrong-typed input the same way.
//!
//! ```
//! use profile_types::value::{py_eq, py_str, py_truthy};
//! use serde_json::json;
//!
//! assert_eq!(py_str(&json!(1)), py_str(&json!("1")));
//! assert_eq!(py_str(&json!(null)), "None");
//! assert_eq!(py_str(&json!(1e-5)), "1e-05");
//! assert_eq!(py_str(&json!({"k": "v", "n": [1, null]})), "{'k': 'v', 'n': [1, None]}");
//! assert!(py_eq(&json!(1), &json!(1.0)) && py_eq(&json!(true), &json!(1)));
//! assert!(!py_eq(&json!("1"), &json!(1)));
//! assert!(!py_truthy(&json!(0.0)) && py_truthy(&json!("0")));
//! ```

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::{Number, Value};

use crate::encoding::{Ext, dict_entries, ext, unhex};

/// Python `str(value)`. Strings print as themselves (borrowed, no allocation).
pub fn py_str(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s.as_str()),
        Value::Null => Cow::Borrowed("None"),
        Value::Bool(true) => Cow::Borrowed("True"),
        Value::Bool(false) => Cow::Borrowed("False"),
        other => {
            let mut out = String::new();
            write_repr(&mut out, other);
            Cow::Owned(out)
        }
    }
}

/// Python `repr(value)`: like [`py_str`], but strings are quoted the way Python quotes them.
pub fn py_repr(value: &Value) -> String {
    let mut out = String::new();
    write_repr(&mut out, value);
    out
}

fn write_repr(out: &mut String, value: &Value) {
    if let Some(e) = ext(value) {
        return write_ext_repr(out, e);
    }
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_str_repr(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str_repr(out, k);
                out.push_str(": ");
                write_repr(out, v);
            }
            out.push('}');
        }
    }
}

fn write_number(out: &mut String, n: &Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(f) = n.as_f64() {
        out.push_str(&py_float_repr(f));
    }
}

/// Python `repr(float)`: the shortest round-trip digits, in fixed notation when the decimal
/// exponent is in `-4..16` (with a trailing `.0` for integral values), scientific otherwise
/// (`1e-05`, `1.5e+16`).
pub fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
    }
    // `{:e}` gives the shortest round-trip digits as `d.ddde±x`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let mut out = String::from(sign);
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(&digits);
        } else if point as usize >= digits.len() {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
            out.push_str(".0");
        } else {
            let (int, frac) = digits.split_at(point as usize);
            out.push_str(int);
            out.push('.');
            out.push_str(frac);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
    out
}

/// Python `repr(str)`: single quotes unless the text holds `'` and no `"`; escapes for `\\`, the
/// quote, `\t \n \r`, and `\xhh`/`\uhhhh`/`\Uhhhhhhhh` for non-printable code points.
fn write_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_py_printable(c) => out.push(c),
            c => {
                let cp = c as u32;
                let _ = if cp < 0x100 {
                    write!(out, "\\x{cp:02x}")
                } else if cp < 0x10000 {
                    write!(out, "\\u{cp:04x}")
                } else {
                    write!(out, "\\U{cp:08x}")
                };
            }
        }
    }
    out.push(quote);
}

/// Python `str.isprintable()` for one code point: everything except the categories Cc, Cf, Cs,
/// Co, Cn, Zl, Zp and Zs, with the ASCII space allowed.
fn is_py_printable(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    if c == ' ' {
        return true;
    }
    if c.is_ascii() {
        return c.is_ascii_graphic();
    }
    !matches!(
        get_general_category(c),
        G::Control
            | G::Format
            | G::Surrogate
            | G::PrivateUse
            | G::Unassigned
            | G::LineSeparator
            | G::ParagraphSeparator
            | G::SpaceSeparator
    )
}

/// Python `==` on two JSON values (and the Python values [`crate::py_value`] encodes).
pub fn py_eq(a: &Value, b: &Value) -> bool {
    if let (Some(x), Some(y)) = (Num::of_value(a), Num::of_value(b)) {
        return num_eq(&x, &y);
    }
    match (ext(a), ext(b)) {
        (None, None) => {}
        (Some(Ext::Bytes(x)), Some(Ext::Bytes(y))) => return x == y,
        (Some(Ext::Tuple(x)), Some(Ext::Tuple(y))) => {
            return x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q));
        }
        (Some(Ext::Dict(x)), Some(Ext::Dict(y))) => {
            // Python's dict `==`: the same number of keys, each found (by `==`) with an equal value.
            return x.len() == y.len()
                && dict_entries(x)
                    .all(|(k, v)| dict_entries(y).any(|(l, w)| py_eq(k, l) && py_eq(v, w)));
        }
        _ => return false,
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => false,
    }
}

enum Num<'a> {
    Int(i128),
    Float(f64),
    /// An integer outside `i128`, as its decimal digits.
    Big(&'a str),
}

impl<'a> Num<'a> {
    fn of(n: &Number) -> Num<'a> {
        if let Some(i) = n.as_i64() {
            Num::Int(i128::from(i))
        } else if let Some(u) = n.as_u64() {
            Num::Int(i128::from(u))
        } else {
            Num::Float(n.as_f64().unwrap_or(f64::NAN))
        }
    }

    /// The number a value is for Python's `==` (`bool` included), if it is one.
    fn of_value(v: &'a Value) -> Option<Num<'a>> {
        match (v, ext(v)) {
            (Value::Number(n), _) => Some(Num::of(n)),
            (Value::Bool(b), _) => Some(Num::Int(i128::from(*b))),
            (_, Some(Ext::Int(d))) => Some(d.parse::<i128>().map_or(Num::Big(d), Num::Int)),
            (_, Some(Ext::Float(f))) => Some(Num::Float(f)),
            _ => None,
        }
    }
}

/// Python compares an int and a float exactly (no rounding of the int to a double).
fn num_eq(a: &Num<'_>, b: &Num<'_>) -> bool {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x == y,
        (Num::Float(x), Num::Float(y)) => x == y,
        (Num::Big(x), Num::Big(y)) => x == y,
        (Num::Int(_), Num::Big(_)) | (Num::Big(_), Num::Int(_)) => false,
        (Num::Big(d), Num::Float(f)) | (Num::Float(f), Num::Big(d)) => {
            integral_digits(*f).is_some_and(|digits| digits == *d)
        }
        (Num::Int(i), Num::Float(f)) | (Num::Float(f), Num::Int(i)) => {
            // Every f64 with |f| < 2^100 that has no fraction is an exact i128.
            f.is_finite() && f.fract() == 0.0 && f.abs() < 1e30 && (*f as i128) == *i
        }
    }
}

/// Python truthiness: `null`, `false`, numeric zero, `""`, `[]` and `{}` are falsy.
pub fn py_truthy(value: &Value) -> bool {
    if let Some(e) = ext(value) {
        return match e {
            // Outside 64 bits, so never zero; NaN and the infinities are true.
            Ext::Int(_) | Ext::Float(_) => true,
            Ext::Bytes(h) => !h.is_empty(),
            Ext::Tuple(items) | Ext::Dict(items) => !items.is_empty(),
        };
    }
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => match Num::of(n) {
            Num::Int(i) => i != 0,
            Num::Float(f) => f != 0.0,
            Num::Big(_) => true,
        },
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// The JSON type of `value` with its article, for error messages: `null`, `a boolean`,
/// `a number`, `a string`, `an array`, `an object`.
///
/// ```
/// use profile_types::value::json_kind;
/// use serde_json::json;
///
/// assert_eq!(json_kind(&json!([1])), "an array");
/// assert_eq!(json_kind(&json!(null)), "null");
/// ```
pub fn json_kind(value: &Value) -> &'static str {
    if let Some(e) = ext(value) {
        return match e {
            Ext::Int(_) => "an int",
            Ext::Float(_) => "a float",
            Ext::Bytes(_) => "bytes",
            Ext::Tuple(_) => "a tuple",
            Ext::Dict(_) => "a dict",
        };
    }
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Python `repr()` of an encoded value.
fn write_ext_repr(out: &mut String, value: Ext<'_>) {
    match value {
        Ext::Int(d) => out.push_str(d),
        Ext::Float(f) => out.push_str(&py_float_repr(f)),
        Ext::Bytes(h) => write_bytes_repr(out, &unhex(h)),
        Ext::Tuple(items) => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&py_repr(item));
            }
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Ext::Dict(entries) => {
            out.push('{');
            for (i, (k, v)) in dict_entries(entries).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&py_repr(k));
                out.push_str(": ");
                out.push_str(&py_repr(v));
            }
            out.push('}');
        }
    }
}

/// Python `repr(bytes)`: `b'...'` (double quotes when it holds `'` and no `"`), `\\`, the
/// quote, `\t \n \r` escaped, other bytes outside printable ASCII as `\xhh`.
fn write_bytes_repr(out: &mut String, b: &[u8]) {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    out.push('b');
    out.push(char::from(quote));
    for &byte in b {
        match byte {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            q if q == quote => {
                out.push('\\');
                out.push(char::from(q));
            }
            0x20..=0x7e => out.push(char::from(byte)),
            _ => {
                let _ = write!(out, "\\x{byte:02x}");
            }
        }
    }
    out.push(char::from(quote));
}

/// The exact integer an integral finite float is, as decimal digits (`None` otherwise).
fn integral_digits(f: f64) -> Option<String> {
    (f.is_finite() && f.fract() == 0.0).then(|| {
        if f == 0.0 {
            "0".to_owned()
        } else {
            format!("{f:.0}")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (2.0, "2.0"),
            (0.1, "0.1"),
            (2.5, "2.5"),
            (1e16, "1e+16"),
            (1e-5, "1e-05"),
            (1e-4, "0.0001"),
            (123456789012345.6, "123456789012345.6"),
            (1e15, "1000000000000000.0"),
            (1.5e16, "1.5e+16"),
            (-0.5, "-0.5"),
            (-0.0, "-0.0"),
            (1.2345e-7, "1.2345e-07"),
            (1e100, "1e+100"),
            (0.7777777777777778, "0.7777777777777778"),
        ];
        for (f, want) in cases {
            assert_eq!(py_float_repr(f), want, "{f:e}");
        }
    }

    #[test]
    fn str_and_repr() {
        assert_eq!(py_str(&json!("it's")), "it's");
        assert_eq!(
            py_str(&json!(["it's", "a\"b", "x'y\"z"])),
            r#"["it's", 'a"b', 'x\'y"z']"#
        );
        assert_eq!(
            py_str(&json!(["\u{1}", "é", "\u{a0}", "a\\b\n"])),
            r"['\x01', 'é', '\xa0', 'a\\b\n']"
        );
        assert_eq!(
            py_str(&json!([true, false, null, -3, 2.0])),
            "[True, False, None, -3, 2.0]"
        );
        assert_eq!(py_str(&json!({})), "{}");
        assert_eq!(
            py_str(&json!({"b": 1, "a": {"c": []}})),
            "{'b': 1, 'a': {'c': []}}"
        );
    }

    #[test]
    fn equality() {
        assert!(py_eq(&json!(0), &json!(false)));
        assert!(py_eq(
            &json!({"a": 1, "b": 2}),
            &json!({"b": 2.0, "a": true})
        ));
        assert!(!py_eq(&json!([1, 2]), &json!([2, 1])));
        assert!(!py_eq(&json!(null), &json!("None")));
        assert!(!py_eq(
            &json!(9007199254740993_u64),
            &json!(9007199254740992.0)
        ));
        assert!(py_eq(
            &json!(9007199254740992_u64),
            &json!(9007199254740992.0)
        ));
        assert!(!py_eq(&json!(1.5), &json!(1)));
    }

    #[test]
    fn truthiness() {
        for v in [
            json!(null),
            json!(false),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
            json!({}),
        ] {
            assert!(!py_truthy(&v), "{v}");
        }
        for v in [
            json!(" "),
            json!("0"),
            json!("False"),
            json!([0]),
            json!(-1),
            json!(0.1),
            json!({"a": null}),
        ] {
            assert!(py_truthy(&v), "{v}");
        }
    }
}
