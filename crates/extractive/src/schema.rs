//! `validate_extraction_schema`.

use profile_types::SchemaCheck;
use profile_types::value::{py_str, py_truthy};
use serde_json::{Map, Value};

use crate::Error;
use profile_types::py_value::ext;
use profile_types::value::json_kind;

/// Checks one extracted record against its source text.
///
/// * `missing`: every field of `fields`, in `fields` order (duplicates kept), that the record lacks
///   or holds a falsy value for (`null`, `false`, `0`, `""`, `[]`, `{}`);
/// * `ungrounded`: every key of the record, in record order, that is in `fields`, holds a truthy
///   value, and whose Python `str()` form is not a substring of `source_text` (exact, case- and
///   code-point-sensitive, no normalisation);
/// * `complete` / `grounded`: those lists are empty.
///
/// Keys outside `fields` are ignored. A record that is not a JSON object is an error.
pub fn validate_extraction_schema<F: AsRef<str>>(
    record: &Value,
    source_text: &str,
    fields: &[F],
) -> Result<SchemaCheck, Error> {
    let map = match record {
        Value::Object(map) if ext(record).is_none() => map,
        _ => {
            return Err(Error::RecordNotAnObject {
                got: json_kind(record),
            });
        }
    };
    Ok(check(map, source_text, fields))
}

pub(crate) fn check<F: AsRef<str>>(
    record: &Map<String, Value>,
    source_text: &str,
    fields: &[F],
) -> SchemaCheck {
    let missing: Vec<String> = fields
        .iter()
        .map(AsRef::as_ref)
        .filter(|f| !record.get(*f).is_some_and(py_truthy))
        .map(str::to_owned)
        .collect();
    let ungrounded: Vec<String> = record
        .iter()
        .filter(|(k, v)| {
            fields.iter().any(|f| f.as_ref() == k.as_str())
                && py_truthy(v)
                && !source_text.contains(&*py_str(v))
        })
        .map(|(k, _)| k.clone())
        .collect();
    SchemaCheck {
        complete: missing.is_empty(),
        grounded: ungrounded.is_empty(),
        missing,
        ungrounded,
    }
}

/// Whether the record is complete and grounded, without building the lists.
pub(crate) fn is_valid<F: AsRef<str>>(
    record: &Map<String, Value>,
    source_text: &str,
    fields: &[F],
) -> bool {
    fields
        .iter()
        .all(|f| record.get(f.as_ref()).is_some_and(py_truthy))
        && record.iter().all(|(k, v)| {
            !fields.iter().any(|f| f.as_ref() == k.as_str())
                || !py_truthy(v)
                || source_text.contains(&*py_str(v))
        })
}
