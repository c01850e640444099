//! `ocr`: optical character recognition confusions (`0` ↔ `O`, `l` → `1`, `m` → `rn`, …).
//!
//! Each character that has an entry in the table is replaced, with probability `rate` (the
//! severity), by one of its confusions chosen uniformly; everything else is copied.

use suite_core::{ResolveError, Transform};

use crate::descriptor::{Descriptor, Kind, Level};
use crate::param::{Param, Params};
use crate::rng::seeded;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::table::Rows;
use crate::rng::{Probability, TextRng};

/// The OCR confusion table, ready to apply.
#[derive(Debug, Clone)]
pub struct Ocr {
    map: HashMap<char, Vec<String>>,
    /// The ASCII keys' entries, by byte: the common case without a hash lookup.
    ascii: [Option<Box<[String]>>; 128],
}

/// The transform's name.
pub const NAME: &str = "ocr";

impl Ocr {
    /// The compiled-in table (parsed once per process and shared).
    pub fn builtin() -> Result<Arc<Ocr>, String> {
        static TABLE: OnceLock<Result<Arc<Ocr>, String>> = OnceLock::new();
        TABLE.get_or_init(|| Ocr::new(None).map(Arc::new)).clone()
    }

    /// The compiled-in table or the one at `table_path` (`CHAR<TAB>CONFUSION[<TAB>...]`, one
    /// character per key).
    pub fn new(table_path: Option<&Path>) -> Result<Ocr, String> {
        let rows = Rows::load("ocr.tsv", include_str!("../../data/ocr.tsv"), table_path)?;
        rows.check_fields(2, usize::MAX, "`CHAR<TAB>CONFUSION[<TAB>CONFUSION...]`")?;
        let mut map: HashMap<char, Vec<String>> = HashMap::new();
        for (line, fields) in &rows.rows {
            let mut chars = fields[0].chars();
            let (Some(key), None) = (chars.next(), chars.next()) else {
                return Err(rows.error(*line, format!("key `{}` must be one character", fields[0])));
            };
            map.entry(key)
                .or_default()
                .extend(fields[1..].iter().cloned());
        }
        let ascii = std::array::from_fn(|b| {
            map.get(&char::from(b as u8))
                .map(|v| v.clone().into_boxed_slice())
        });
        Ok(Ocr { map, ascii })
    }

    /// Applies it at `rate`: one decision per character with an entry, then one choice per
    /// replaced one.
    pub fn apply(&self, text: &str, rate: Probability, rng: &mut TextRng) -> String {
        if rate.is_zero() {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len() + text.len() / 8);
        for c in text.chars() {
            let options = match self.ascii.get(c as usize) {
                Some(entry) => entry.as_deref(),
                None => self.map.get(&c).map(Vec::as_slice),
            };
            match options {
                Some(options) if rng.chance(rate) => {
                    let pick = if options.len() == 1 {
                        0
                    } else {
                        rng.below(options.len())
                    };
                    out.push_str(&options[pick]);
                }
                _ => out.push(c),
            }
        }
        out
    }
}

fn build(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let ocr = match super::table_path(p)? {
        None => Ocr::builtin(),
        Some(path) => Ocr::new(Some(&path)).map(Arc::new),
    }
    .map_err(|e| ResolveError::Invalid(format!("table: {e}")))?;
    let rate = Probability::new(p.f64("rate")?);
    if rate.is_zero() {
        return Ok(Transform::new(str::to_owned));
    }
    Ok(seeded(NAME, p.u64("seed")?, move |text, rng| {
        ocr.apply(text, rate, rng)
    }))
}

/// `ocr`.
pub(crate) static DESCRIPTORS: &[Descriptor] = &[Descriptor {
    name: NAME,
    level: Level::Character,
    kind: Kind::Corruption { severity: "rate" },
    description: "characters an OCR engine confuses (0/O, l/1, m/rn...) replaced with probability rate",
    params: &[
        Param::rate("probability per character with a confusion", "0.1"),
        Param::seed(),
        super::TABLE_PARAM,
    ],
    example: "The quick brown fox jumps over 10 lazy dogs",
    example_params: r#"{"rate": 0.3}"#,
    build,
}];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::word::test_rng;

    #[test]
    fn confusions_replace_table_characters_only() {
        let ocr = Ocr::builtin().unwrap();
        let out = ocr.apply("O0 l1 ~?", Probability::new(1.0), &mut test_rng(0));
        assert!(!out.starts_with("O0"), "{out}");
        assert!(out.ends_with(" ~?"), "{out}");
        assert_eq!(
            ocr.apply("Oil", Probability::new(0.0), &mut test_rng(0)),
            "Oil"
        );
    }
}
