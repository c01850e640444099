//! Micro-averaged field-level F1.

use foldhash::fast::FixedState;
use indexmap::IndexSet;
use profile_types::FieldCounts;
use profile_types::value::py_eq;
use serde_json::{Map, Value};

/// The field names of a profile's per-field breakdown, numbered.
#[derive(Debug, Default)]
pub(crate) struct FieldNames(IndexSet<String, FixedState>);

impl FieldNames {
    fn id(&mut self, name: &str) -> u32 {
        match self.0.get_index_of(name) {
            Some(i) => i as u32,
            None => self.0.insert_full(name.to_owned()).0 as u32,
        }
    }

    /// The name behind an id.
    pub(crate) fn name(&self, id: u32) -> &str {
        self.0.get_index(id as usize).map_or("", String::as_str)
    }
}

/// One (prediction, reference) pair scored: `[TP, FP, FN]`, and
/// with `fields` each field's part appended as `field id << 2 | kind` (0 TP, 1 FP, 2 FN).
/// `identical`: the two records are one stored record (every reference field is a TP).
pub(crate) fn score(
    predicted: &Map<String, Value>,
    reference: &Map<String, Value>,
    identical: bool,
    mut fields: Option<(&mut FieldNames, &mut Vec<u32>)>,
) -> [u32; 3] {
    let breakdown = fields.is_some();
    let mut entry = |name: &str, kind: u32| {
        if let Some((names, entries)) = fields.as_mut() {
            entries.push(names.id(name) << 2 | kind);
        }
    };
    if identical {
        for k in reference.keys() {
            entry(k, 0);
        }
        return [reference.len() as u32, 0, 0];
    }
    let (mut tp, mut fp, mut fn_) = (0u32, 0u32, 0u32);
    // Extractors usually emit their keys in one fixed order: walk both maps in lockstep while
    // the keys line up, and fall back to hashed lookups at the first difference.
    let mut lockstep = true;
    let mut pairs = predicted.iter();
    for (k, want) in reference {
        let got = match lockstep.then(|| pairs.next()).flatten() {
            Some((pk, pv)) if pk == k => Some(pv),
            _ => {
                lockstep = false;
                predicted.get(k)
            }
        };
        if py_eq(got.unwrap_or(&Value::Null), want) {
            tp += 1;
            entry(k, 0);
        } else {
            fn_ += 1;
            entry(k, 2);
        }
    }
    if lockstep && !breakdown {
        // The first `reference.len()` predicted keys are the reference's; the rest are not.
        fp = predicted.len().saturating_sub(reference.len()) as u32;
        return [tp, fp, fn_];
    }
    for k in predicted.keys().filter(|k| !reference.contains_key(*k)) {
        fp += 1;
        entry(k, 1);
    }
    [tp, fp, fn_]
}

/// Upstream's micro field-level F1 of `predicted` records against `reference` records, paired by
/// position (the shorter list decides how many pairs there are).
///
/// ```
/// use extractive::field_f1;
/// use serde_json::{json, Map, Value};
///
/// let obj = |v: Value| v.as_object().cloned().unwrap();
/// let gold = [obj(json!({"name": "ann", "age": 1, "id": null}))];
/// let pred = [obj(json!({"name": "ann", "age": 1.0, "city": "x"}))];
/// // name, age (1 == 1.0) and id (missing reads as null) are TPs, city an FP.
/// assert_eq!(field_f1(&pred, &gold), 6.0 / 7.0);
/// ```
pub fn field_f1(predicted: &[Map<String, Value>], reference: &[Map<String, Value>]) -> f64 {
    let (mut tp, mut fp, mut fn_) = (0u64, 0u64, 0u64);
    for (p, r) in predicted.iter().zip(reference) {
        let [t, f, n] = score(p, r, false, None);
        tp += u64::from(t);
        fp += u64::from(f);
        fn_ += u64::from(n);
    }
    FieldCounts::new(tp, fp, fn_).f1
}
