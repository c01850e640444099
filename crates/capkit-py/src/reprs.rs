//! `repr()` text for the classes of this package, in Python's own spelling (quotes, `None`,
//! `True`), from `profile_types::value`'s Python renderings.

use profile_types::value::py_repr;
use serde_json::Value;

/// Python `repr(s)` of a `str`.
pub(crate) fn repr_str(s: &str) -> String {
    py_repr(&Value::from(s))
}

/// Python `repr()` of an optional `str`.
pub(crate) fn repr_opt(s: Option<&str>) -> String {
    s.map_or_else(|| "None".to_owned(), repr_str)
}

/// Python `repr()` of a `bool`.
pub(crate) fn repr_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}
