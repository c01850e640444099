//! Micro-averaged field-level F1.

use std::collections::BTreeMap;

use profile_types::FieldCounts;
use profile_types::value::py_eq;
use serde_json::{Map, Value};

/// Totals of one comparison, optionally broken down per field.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    tp: u64,
    fp: u64,
    fn_: u64,
    per_field: Option<BTreeMap<String, (u64, u64, u64)>>,
}

impl Tally {
    pub(crate) fn new(per_field: bool) -> Tally {
        Tally {
            per_field: per_field.then(BTreeMap::new),
            ..Tally::default()
        }
    }

    /// Adds one (prediction, reference) pair.
    pub(crate) fn add(&mut self, predicted: &Map<String, Value>, reference: &Map<String, Value>) {
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
            let hit = py_eq(got.unwrap_or(&Value::Null), want);
            if hit {
                self.tp += 1
            } else {
                self.fn_ += 1
            }
            if let Some(m) = &mut self.per_field {
                let e = m.entry(k.clone()).or_default();
                if hit { e.0 += 1 } else { e.2 += 1 }
            }
        }
        if lockstep && self.per_field.is_none() {
            // The first `reference.len()` predicted keys are the reference's; the rest are not.
            self.fp += predicted.len().saturating_sub(reference.len()) as u64;
            return;
        }
        for k in predicted.keys().filter(|k| !reference.contains_key(*k)) {
            self.fp += 1;
            if let Some(m) = &mut self.per_field {
                m.entry(k.clone()).or_default().1 += 1;
            }
        }
    }

    /// Adds a pair of equal records (Python `==` holds field by field, and neither has a field
    /// the other lacks): every field is a true positive.
    pub(crate) fn add_identical(&mut self, record: &Map<String, Value>) {
        self.tp += record.len() as u64;
        if let Some(m) = &mut self.per_field {
            for k in record.keys() {
                m.entry(k.clone()).or_default().0 += 1;
            }
        }
    }

    /// The totals so far: (TP, FP, FN).
    pub(crate) fn totals(&self) -> (u64, u64, u64) {
        (self.tp, self.fp, self.fn_)
    }

    pub(crate) fn f1(&self) -> f64 {
        FieldCounts::new(self.tp, self.fp, self.fn_).f1
    }

    pub(crate) fn per_field(self) -> BTreeMap<String, FieldCounts> {
        self.per_field
            .unwrap_or_default()
            .into_iter()
            .map(|(k, (tp, fp, fn_))| (k, FieldCounts::new(tp, fp, fn_)))
            .collect()
    }
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
    let mut tally = Tally::new(false);
    for (p, r) in predicted.iter().zip(reference) {
        tally.add(p, r);
    }
    tally.f1()
}
