//! [`Data`]: the tables the language and keyboard tasks read, and the shipped English defaults.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use profile_types::value::json_kind;
use serde_json::{Map, Value};

use crate::{Error, Keyboard};

/// The reference data of the table tasks, in the JSON shape of upstream's `aitypo.Data`.
///
/// Every field may be empty; an empty field *deregisters* the tasks that read it (see
/// [`Registry`](crate::Registry)). Maps are `BTreeMap`s so nothing depends on hash order.
///
/// ```
/// use typo_generators::Data;
/// let data = Data::from_json_str(r#"{"vowels": ["a", "e"], "keyboard": ["qwe", "asd"]}"#).unwrap();
/// assert_eq!(data.vowels, ["a", "e"]);
/// assert!(data.graphemes.is_empty());
/// let err = Data::from_json_str(r#"{"homophones": [["to", 2]]}"#).unwrap_err();
/// assert!(err.to_string().contains("homophones[0][1]"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Data {
    /// Graphemes inserted (`gi`) and substituted (`gr`), in order; each may have several characters.
    pub graphemes: Vec<String>,
    /// Vowels swapped with each other (`vs`).
    pub vowels: Vec<String>,
    /// One-character key → look-alike replacements (`hr`). Keys of more than one character are kept
    /// (upstream's tables have them) but never looked up.
    pub homoglyphs: BTreeMap<String, Vec<String>>,
    /// Groups of words that sound the same (`hs`); every member may replace every other.
    pub homophones: Vec<Vec<String>>,
    /// Groups of a word and its common misspellings (`cm`); same mechanics as `homophones`.
    pub misspellings: Vec<Vec<String>>,
    /// Numeral key → `[cardinal, ordinal, ...]` (`cns` reads position 0, `ons` position 1).
    pub numerals: BTreeMap<String, Vec<String>>,
    /// Keyboard rows, top first (`acs`, `aci`, `rar`); see [`Keyboard`].
    pub keyboard: Vec<String>,
}

/// The top-level keys [`Data::from_json_str`] accepts.
pub const FIELDS: [&str; 7] = [
    "graphemes",
    "vowels",
    "homoglyphs",
    "homophones",
    "misspellings",
    "numerals",
    "keyboard",
];

impl Data {
    /// Parses the JSON shape of `reference/typo/data.json`: an object with any of the keys in
    /// [`FIELDS`]. A missing key or `null` is an empty table. Keys starting with `_` are comments
    /// and ignored; any other key is an error. Errors name the field (`numerals["4"][1]`).
    ///
    /// Refused: wrong types; a homoglyph key that is empty (it names no character); a keyboard
    /// row with no keys. Accepted as upstream does: duplicate members, empty strings in lists, and
    /// homoglyph keys of several characters (never looked up).
    pub fn from_json_str(text: &str) -> Result<Data, Error> {
        let value: Value = serde_json::from_str(text).map_err(|e| Error::Json(e.to_string()))?;
        let Value::Object(object) = value else {
            return Err(Error::field(
                "(top level)",
                format!("expected an object, found {}", json_kind(&value)),
            ));
        };
        Data::from_json_object(&object)
    }

    fn from_json_object(object: &Map<String, Value>) -> Result<Data, Error> {
        let mut data = Data::default();
        for (key, value) in object {
            if value.is_null() || key.starts_with('_') {
                continue;
            }
            match key.as_str() {
                "graphemes" => data.graphemes = string_list(value, key)?,
                "vowels" => data.vowels = string_list(value, key)?,
                "homoglyphs" => data.homoglyphs = homoglyphs(value)?,
                "homophones" => data.homophones = groups(value, key)?,
                "misspellings" => data.misspellings = groups(value, key)?,
                "numerals" => data.numerals = string_map(value, key)?,
                "keyboard" => {
                    data.keyboard = string_list(value, key)?;
                    crate::keyboard::validate_rows(&data.keyboard)?;
                }
                other => {
                    return Err(Error::field(
                        other,
                        format!("unknown field; expected one of {}", FIELDS.join(", ")),
                    ));
                }
            }
        }
        Ok(data)
    }

    /// The shipped English defaults (embedded in the binary, parsed once) with the 4-row QWERTY
    /// keyboard. See the crate docs and `data/README.md` for where each table came from.
    pub fn english() -> Data {
        static ENGLISH: OnceLock<Data> = OnceLock::new();
        ENGLISH
            .get_or_init(|| parse_english().unwrap_or_default())
            .clone()
    }

    /// This data with its keyboard replaced by `keyboard`.
    pub fn with_keyboard(mut self, keyboard: Keyboard) -> Data {
        self.keyboard = keyboard.into_rows();
        self
    }

    /// This data as JSON in the [`from_json_str`](Self::from_json_str) shape.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

const ENGLISH_TABLES: [(&str, &str); 6] = [
    ("graphemes", include_str!("../data/english/graphemes.json")),
    ("vowels", include_str!("../data/english/vowels.json")),
    (
        "homoglyphs",
        include_str!("../data/english/homoglyphs.json"),
    ),
    (
        "homophones",
        include_str!("../data/english/homophones.json"),
    ),
    (
        "misspellings",
        include_str!("../data/english/misspellings.json"),
    ),
    ("numerals", include_str!("../data/english/numerals.json")),
];

/// The embedded tables, each file being the JSON value of one field. A unit test guarantees this
/// succeeds; at run time a failure would degrade to empty tables, never a panic.
fn parse_english() -> Result<Data, Error> {
    let mut object = Map::new();
    for (field, text) in ENGLISH_TABLES {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| Error::field(field, format!("embedded table is not JSON: {e}")))?;
        object.insert(field.to_owned(), value);
    }
    let data = Data::from_json_object(&object)?;
    Ok(data.with_keyboard(Keyboard::default()))
}

fn string_list(value: &Value, path: &str) -> Result<Vec<String>, Error> {
    let Value::Array(items) = value else {
        return Err(Error::field(
            path,
            format!("expected an array of strings, found {}", json_kind(value)),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s.clone()),
            other => Err(Error::field(
                format!("{path}[{i}]"),
                format!("expected a string, found {}", json_kind(other)),
            )),
        })
        .collect()
}

fn groups(value: &Value, path: &str) -> Result<Vec<Vec<String>>, Error> {
    let Value::Array(items) = value else {
        return Err(Error::field(
            path,
            format!(
                "expected an array of string arrays, found {}",
                json_kind(value)
            ),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| string_list(item, &format!("{path}[{i}]")))
        .collect()
}

fn string_map(value: &Value, path: &str) -> Result<BTreeMap<String, Vec<String>>, Error> {
    let Value::Object(entries) = value else {
        return Err(Error::field(
            path,
            format!(
                "expected an object of string arrays, found {}",
                json_kind(value)
            ),
        ));
    };
    entries
        .iter()
        .map(|(k, v)| Ok((k.clone(), string_list(v, &format!("{path}[{k:?}]"))?)))
        .collect()
}

fn homoglyphs(value: &Value) -> Result<BTreeMap<String, Vec<String>>, Error> {
    let map = string_map(value, "homoglyphs")?;
    if map.contains_key("") {
        return Err(Error::field(
            "homoglyphs[\"\"]",
            "a homoglyph key must be a character, and the empty key names none",
        ));
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_english_parses() {
        let data = parse_english().unwrap();
        assert_eq!(data.vowels, ["a", "e", "i", "o", "u"]);
        assert_eq!(data.graphemes.len(), 26);
        assert!(!data.homoglyphs.is_empty());
        assert!(!data.homophones.is_empty());
        assert!(!data.misspellings.is_empty());
        assert!(!data.numerals.is_empty());
        assert_eq!(data.keyboard, Keyboard::default().into_rows());
        assert_eq!(Data::english(), data);
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            ("[1]", "(top level)"),
            (r#"{"vowels": "aeiou"}"#, "`vowels`"),
            (r#"{"graphemes": ["a", null]}"#, "`graphemes[1]`"),
            (
                r#"{"homoglyphs": {"o": ["0", 1]}}"#,
                "`homoglyphs[\"o\"][1]`",
            ),
            (r#"{"homoglyphs": {"": ["0"]}}"#, "`homoglyphs[\"\"]`"),
            (r#"{"numerals": ["one"]}"#, "`numerals`"),
            (r#"{"misspellings": [["a"], "b"]}"#, "`misspellings[1]`"),
            (r#"{"keyboard": ["qwe", ""]}"#, "`keyboard[1]`"),
            (r#"{"keyboards": []}"#, "`keyboards`"),
        ];
        for (text, needle) in cases {
            let err = Data::from_json_str(text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
        assert!(matches!(Data::from_json_str("{"), Err(Error::Json(_))));
    }

    #[test]
    fn null_and_comments_are_empty() {
        let data = Data::from_json_str(r#"{"_about": 1, "vowels": null, "keyboard": []}"#).unwrap();
        assert_eq!(data, Data::default());
    }

    #[test]
    fn round_trips_through_json() {
        let data = Data::english();
        assert_eq!(Data::from_json_str(&data.to_json_string()).unwrap(), data);
    }
}
