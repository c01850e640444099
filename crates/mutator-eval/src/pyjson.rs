//! JSON text read the way Python's `json.loads` reads it.
//!
//! Two reasons for a parser of our own instead of `serde_json::from_str`:
//!
//! * Upstream parses LLM replies with `json.loads`, which accepts the non-standard literals `NaN`,
//!   `Infinity` and `-Infinity` (and turns `1e400` into infinity). Such a reply is *JSON* to
//!   upstream and fails later, on the confidence range check: the error class is "invalid element",
//!   not "not JSON" (golden `confidence_nan_literal`). `serde_json::Value` cannot hold a NaN.
//! * Confidences are compared with exact float equality. `serde_json` without its
//!   `float_roundtrip` feature (which this workspace does not enable) may round some long decimals
//!   off by one ulp; here every float goes through Rust's correctly rounded `str::parse::<f64>`,
//!   as Python's `float()` does, so case files and replies agree bit for bit.
//!
//! Everything else follows RFC 8259 strictly, like Python: no comments, no trailing commas, no
//! single quotes, no raw control characters in strings, only ` \t\n\r` as whitespace, nothing
//! after the value but whitespace. Duplicate object keys keep their first position and their last
//! value (a Python `dict`). A lone UTF-16 surrogate escape, which Python keeps as is, becomes
//! U+FFFD because a Rust string cannot hold it.

use indexmap::IndexMap;
use serde_json::{Map, Number, Value};

/// Nesting deeper than this is refused rather than risking the stack (Python raises
/// `RecursionError` at about 1000 levels).
const MAX_DEPTH: usize = 512;

/// A parsed value. Numbers keep non-finite floats, which `serde_json::Value` cannot.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PyJson {
    Null,
    Bool(bool),
    /// A finite number (an integer when the text had no fraction or exponent and fits 64 bits).
    Number(Number),
    /// `NaN`, `Infinity`, `-Infinity`, or a float literal that overflows.
    NonFinite(f64),
    Str(String),
    Array(Vec<PyJson>),
    Object(IndexMap<String, PyJson>),
}

impl PyJson {
    /// The Python type name of the value (`dict`, `list`, `NoneType`...), for messages.
    pub(crate) fn python_type(&self) -> &'static str {
        match self {
            PyJson::Null => "NoneType",
            PyJson::Bool(_) => "bool",
            PyJson::Number(n) if n.is_f64() => "float",
            PyJson::Number(_) => "int",
            PyJson::NonFinite(_) => "float",
            PyJson::Str(_) => "str",
            PyJson::Array(_) => "list",
            PyJson::Object(_) => "dict",
        }
    }
}

/// A tree the parser can build: [`PyJson`] for replies (non-finite numbers kept) or
/// `serde_json::Value` for case files (non-finite numbers refused), in one pass either way.
pub(crate) trait Tree: Sized {
    type Map: Default;
    fn null() -> Self;
    fn bool(b: bool) -> Self;
    fn number(n: Number) -> Self;
    fn non_finite(f: f64) -> Option<Self>;
    fn string(s: String) -> Self;
    fn array(items: Vec<Self>) -> Self;
    /// Like a Python dict: a repeated key keeps its first position and takes the last value.
    fn insert(map: &mut Self::Map, key: String, value: Self);
    fn object(map: Self::Map) -> Self;
}

impl Tree for PyJson {
    type Map = IndexMap<String, PyJson>;
    fn null() -> Self {
        PyJson::Null
    }
    fn bool(b: bool) -> Self {
        PyJson::Bool(b)
    }
    fn number(n: Number) -> Self {
        PyJson::Number(n)
    }
    fn non_finite(f: f64) -> Option<Self> {
        Some(PyJson::NonFinite(f))
    }
    fn string(s: String) -> Self {
        PyJson::Str(s)
    }
    fn array(items: Vec<Self>) -> Self {
        PyJson::Array(items)
    }
    fn insert(map: &mut Self::Map, key: String, value: Self) {
        map.insert(key, value);
    }
    fn object(map: Self::Map) -> Self {
        PyJson::Object(map)
    }
}

impl Tree for Value {
    type Map = Map<String, Value>;
    fn null() -> Self {
        Value::Null
    }
    fn bool(b: bool) -> Self {
        Value::Bool(b)
    }
    fn number(n: Number) -> Self {
        Value::Number(n)
    }
    fn non_finite(_: f64) -> Option<Self> {
        None
    }
    fn string(s: String) -> Self {
        Value::String(s)
    }
    fn array(items: Vec<Self>) -> Self {
        Value::Array(items)
    }
    fn insert(map: &mut Self::Map, key: String, value: Self) {
        // With `preserve_order` this is an `IndexMap::insert`: same rule as `PyJson`'s.
        map.insert(key, value);
    }
    fn object(map: Self::Map) -> Self {
        Value::Object(map)
    }
}

/// Where and why a text is not JSON. Line and column are 1-based; the column counts characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: &'static str,
}

/// Parses a whole text: one value with optional surrounding whitespace.
pub(crate) fn parse<V: Tree>(text: &str) -> Result<V, ParseError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    p.skip_ws();
    let value = p.value()?;
    p.skip_ws();
    if p.pos != p.bytes.len() {
        return Err(p.error("extra data after the JSON value"));
    }
    Ok(value)
}

/// Parses a whole text into a standard `serde_json::Value` (non-finite numbers refused), with
/// correctly rounded floats.
pub(crate) fn parse_value(text: &str) -> Result<Value, String> {
    parse::<Value>(text).map_err(|e| {
        format!(
            "not JSON: {} at line {} column {}",
            e.message, e.line, e.column
        )
    })
}

/// Reads standard JSON the way this crate reads case files: every float correctly rounded (as
/// Python's `float()` does), so confidences written in a file compare exactly with those parsed
/// from a reply. Non-finite literals (`NaN`) are refused here.
///
/// ```
/// let v = mutator_eval::parse_json("[0.30000000000000004, 1, 1.0]")?;
/// assert_eq!(v[0].as_f64(), Some(0.1 + 0.2));
/// assert!(v[1].is_u64() && v[2].is_f64());
/// assert!(mutator_eval::parse_json("[NaN]").is_err());
/// # Ok::<(), mutator_eval::Error>(())
/// ```
pub fn parse_json(text: &str) -> Result<Value, crate::Error> {
    parse::<Value>(text).map_err(|e| {
        crate::Error::Json(format!(
            "{} at line {} column {}",
            e.message, e.line, e.column
        ))
    })
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: &'static str) -> ParseError {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, pos: usize, message: &'static str) -> ParseError {
        let before = self.text.get(..pos).unwrap_or(self.text);
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
        ParseError {
            line,
            column,
            message,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat_literal(&mut self, literal: &str) -> bool {
        if self.bytes[self.pos..].starts_with(literal.as_bytes()) {
            self.pos += literal.len();
            true
        } else {
            false
        }
    }

    fn value<V: Tree>(&mut self) -> Result<V, ParseError> {
        let start = self.pos;
        match self.peek() {
            Some(b'{') => self.nested(Parser::object),
            Some(b'[') => self.nested(Parser::array),
            Some(b'"') => self.string().map(V::string),
            Some(b'n') if self.eat_literal("null") => Ok(V::null()),
            Some(b't') if self.eat_literal("true") => Ok(V::bool(true)),
            Some(b'f') if self.eat_literal("false") => Ok(V::bool(false)),
            Some(b'N') if self.eat_literal("NaN") => self.non_finite(start, f64::NAN),
            Some(b'I') if self.eat_literal("Infinity") => self.non_finite(start, f64::INFINITY),
            Some(b'-') if self.eat_literal("-Infinity") => {
                self.non_finite(start, f64::NEG_INFINITY)
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.error("expected a value")),
        }
    }

    fn non_finite<V: Tree>(&self, start: usize, f: f64) -> Result<V, ParseError> {
        V::non_finite(f)
            .ok_or_else(|| self.error_at(start, "NaN and Infinity are not standard JSON"))
    }

    fn nested<V: Tree>(
        &mut self,
        inner: fn(&mut Self) -> Result<V, ParseError>,
    ) -> Result<V, ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        self.depth += 1;
        let out = inner(self);
        self.depth -= 1;
        out
    }

    fn array<V: Tree>(&mut self) -> Result<V, ParseError> {
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(V::array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(V::array(items));
                }
                _ => return Err(self.error("expected ',' or ']' in an array")),
            }
        }
    }

    fn object<V: Tree>(&mut self) -> Result<V, ParseError> {
        self.pos += 1; // '{'
        let mut map = V::Map::default();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(V::object(map));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a property name in double quotes"));
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.error("expected ':' after a property name"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value()?;
            V::insert(&mut map, key, value);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(V::object(map));
                }
                _ => return Err(self.error("expected ',' or '}' in an object")),
            }
        }
    }

    fn string(&mut self) -> Result<String, ParseError> {
        let start = self.pos;
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            // Copy the run of plain characters at once.
            let run_start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // The run ends on an ASCII byte or the end, so it is a whole UTF-8 slice.
            out.push_str(self.text.get(run_start..self.pos).unwrap_or_default());
            match self.peek() {
                None => return Err(self.error_at(start, "unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return Err(self.error("control character in a string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), ParseError> {
        let Some(c) = self.peek() else {
            return Err(self.error("unterminated string"));
        };
        self.pos += 1;
        let ch = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = self.hex4()?;
                if (0xD800..0xDC00).contains(&first) && self.bytes[self.pos..].starts_with(b"\\u") {
                    let save = self.pos;
                    self.pos += 2;
                    let second = self.hex4()?;
                    if (0xDC00..0xE000).contains(&second) {
                        let cp = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                        char::from_u32(cp).unwrap_or('\u{FFFD}')
                    } else {
                        // Not a pair: the first is a lone surrogate; read the second on its own.
                        self.pos = save;
                        '\u{FFFD}'
                    }
                } else {
                    char::from_u32(first).unwrap_or('\u{FFFD}')
                }
            }
            _ => {
                self.pos -= 1;
                return Err(self.error("invalid escape"));
            }
        };
        out.push(ch);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
            .ok_or_else(|| self.error("invalid \\uXXXX escape"))?;
        let mut v = 0;
        for d in digits {
            v = v * 16 + char::from(*d).to_digit(16).unwrap_or(0);
        }
        self.pos += 4;
        Ok(v)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`, as Python's scanner matches it: a part
    /// that does not complete (`1.`, `1e`) is left unread and fails later as extra data.
    fn number<V: Tree>(&mut self) -> Result<V, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error_at(start, "expected a value")),
        }
        let mut is_float = false;
        if self.peek() == Some(b'.') && matches!(self.bytes.get(self.pos + 1), Some(b'0'..=b'9')) {
            self.pos += 1;
            self.digits();
            is_float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                self.pos = save;
            } else {
                is_float = true;
            }
        }
        let text = self.text.get(start..self.pos).unwrap_or_default();
        if !is_float {
            if let Ok(i) = text.parse::<i64>() {
                return Ok(V::number(Number::from(i)));
            }
            if let Ok(u) = text.parse::<u64>() {
                return Ok(V::number(Number::from(u)));
            }
            // A bigger integer: Python keeps it exact; like serde_json we fall back to a float.
        }
        let f: f64 = text
            .parse()
            .map_err(|_| self.error_at(start, "invalid number"))?;
        match Number::from_f64(f) {
            Some(n) => Ok(V::number(n)),
            None => self.non_finite(start, f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(text: &str) -> Value {
        parse_value(text).unwrap()
    }

    #[test]
    fn standard_json() {
        assert_eq!(
            ok(r#" {"a": [1, -2.5, true, null, "x\u00e9\n"]} "#),
            json!({"a": [1, -2.5, true, null, "xé\n"]})
        );
        assert_eq!(ok("18446744073709551615"), json!(18446744073709551615_u64));
        assert_eq!(ok(r#""\ud83d\ude00""#), json!("😀"));
        assert_eq!(ok(r#""\ud83d""#), json!("\u{FFFD}"));
        assert_eq!(ok(r#"{"k": 1, "j": 2, "k": 3}"#), json!({"k": 3, "j": 2}));
        assert_eq!(ok("0.30000000000000004").as_f64(), Some(0.1 + 0.2));
    }

    #[test]
    fn python_extensions() {
        assert!(matches!(parse::<PyJson>("NaN"), Ok(PyJson::NonFinite(f)) if f.is_nan()));
        assert_eq!(
            parse::<PyJson>("-Infinity"),
            Ok(PyJson::NonFinite(f64::NEG_INFINITY))
        );
        assert_eq!(
            parse::<PyJson>("1e400"),
            Ok(PyJson::NonFinite(f64::INFINITY))
        );
        assert!(parse_value("1e400").unwrap_err().contains("column 1"));
        assert_eq!(
            parse::<PyJson>("[Infinity]").map(|v| v.python_type()),
            Ok("list")
        );
        assert!(
            parse_value("[1, NaN]")
                .unwrap_err()
                .contains("not standard JSON at line 1 column 5")
        );
    }

    #[test]
    fn rejects_what_python_rejects() {
        for text in [
            "",
            "  ",
            "```json\n[]\n```",
            "[1,]",
            "{'a': 1}",
            "01",
            "1.",
            "1e",
            "-",
            ".5",
            "[] x",
            "\"a\u{1}\"",
            "\"\\x\"",
            "tru",
            "{\"a\" 1}",
            "\u{feff}[]",
        ] {
            assert!(parse::<PyJson>(text).is_err(), "{text:?}");
        }
        let e = parse::<PyJson>("[{\"a\": 1}] Hope this helps!").unwrap_err();
        assert_eq!((e.line, e.column), (1, 12));
        let e = parse::<PyJson>("\n\n  x").unwrap_err();
        assert_eq!((e.line, e.column), (3, 3));
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(
            parse::<PyJson>(&deep).unwrap_err().message,
            "nesting too deep"
        );
        let fine = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse::<PyJson>(&fine).is_ok());
    }
}
