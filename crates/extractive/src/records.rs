//! Interning of extracted records: equal records are stored once.
//!
//! Extractors often return the same record for many texts (a constant field, an absent value),
//! and a corrupted or rewritten text usually keeps most of its clean record. Keeping each distinct
//! record once bounds memory by the number of distinct records, and lets field F1 count a pair of
//! identical records without comparing field by field.

use std::hash::{BuildHasher, Hash, Hasher};

use foldhash::fast::FixedState;
use indexmap::IndexSet;
use profile_types::py_value::has_nan;
use serde_json::{Map, Value};
use suite_core::SharedLabel;

/// A record (a shared JSON object) with the `Hash` that agrees with serde_json's `==` (objects
/// compare without regard to key order, so their entries are hashed order-independently).
#[derive(Debug)]
struct Keyed(SharedLabel);

impl Keyed {
    fn map(&self) -> &Map<String, Value> {
        static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        match &*self.0 {
            Value::Object(m) => m,
            _ => EMPTY.get_or_init(Map::new),
        }
    }
}

impl PartialEq for Keyed {
    fn eq(&self, other: &Keyed) -> bool {
        if std::sync::Arc::ptr_eq(&self.0, &other.0) {
            return true;
        }
        let (a, b) = (self.map(), other.map());
        // Same keys in the same order (the usual case) compare pairwise without a hashed lookup.
        a.len() == b.len()
            && (a
                .iter()
                .zip(b)
                .all(|((ka, va), (kb, vb))| ka == kb && va == vb)
                || a == b)
    }
}

impl Eq for Keyed {}

impl Hash for Keyed {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(map_hash(self.map()));
    }
}

fn map_hash(map: &Map<String, Value>) -> u64 {
    // Sum of per-entry hashes: independent of key order, as `==` is.
    map.iter()
        .map(|(k, v)| {
            let mut h = FixedState::default().build_hasher();
            k.hash(&mut h);
            value_hash(v, &mut h);
            h.finish()
        })
        .fold(map.len() as u64, u64::wrapping_add)
}

fn value_hash<H: Hasher>(v: &Value, h: &mut H) {
    match v {
        Value::Null => h.write_u8(0),
        Value::Bool(b) => {
            h.write_u8(1);
            b.hash(h);
        }
        Value::Number(n) => {
            h.write_u8(2);
            // serde_json's `==` keeps integers and floats apart; 0.0 == -0.0.
            if let Some(u) = n.as_u64() {
                h.write_u8(0);
                h.write_u64(u);
            } else if let Some(i) = n.as_i64() {
                h.write_u8(1);
                h.write_i64(i);
            } else {
                let f = n.as_f64().unwrap_or(0.0);
                h.write_u8(2);
                h.write_u64(if f == 0.0 { 0 } else { f.to_bits() });
            }
        }
        Value::String(s) => {
            h.write_u8(3);
            s.hash(h);
        }
        Value::Array(a) => {
            h.write_u8(4);
            h.write_usize(a.len());
            for x in a {
                value_hash(x, h);
            }
        }
        Value::Object(m) => {
            h.write_u8(5);
            h.write_u64(map_hash(m));
        }
    }
}

/// The distinct records of a profile, by id.
#[derive(Debug, Default)]
pub(crate) struct RecordSet {
    records: IndexSet<Keyed, FixedState>,
    /// Per id: whether the record holds a NaN (Python's `r == r` is then false: a NaN field of
    /// a record is never a TP, even against the same record).
    with_nan: Vec<bool>,
}

impl RecordSet {
    /// The id of `record` (a JSON object), storing it (shared, not copied) if no equal record is
    /// stored yet.
    pub(crate) fn intern(&mut self, record: SharedLabel) -> u32 {
        let nan = has_nan(&record);
        let (id, new) = self.records.insert_full(Keyed(record));
        if new {
            self.with_nan.push(nan);
        }
        id as u32
    }

    /// Whether the record behind `id` equals itself in Python (it holds no NaN).
    pub(crate) fn reflexive(&self, id: u32) -> bool {
        !self.with_nan.get(id as usize).copied().unwrap_or(false)
    }

    /// The record behind an id.
    pub(crate) fn get(&self, id: u32) -> &Map<String, Value> {
        static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        self.records
            .get_index(id as usize)
            .map_or_else(|| EMPTY.get_or_init(Map::new), Keyed::map)
    }

    /// Forgets every record.
    pub(crate) fn clear(&mut self) {
        self.records.clear();
        self.with_nan.clear();
    }

    /// Number of distinct records.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.records.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> SharedLabel {
        std::sync::Arc::new(v)
    }

    #[test]
    fn equal_records_share_an_id_whatever_their_key_order() {
        let mut set = RecordSet::default();
        let a = set.intern(obj(json!({"a": 1, "b": [null, "x"], "c": {"d": -0.0}})));
        let b = set.intern(obj(json!({"c": {"d": 0.0}, "b": [null, "x"], "a": 1})));
        let c = set.intern(obj(json!({"a": 1.0, "b": [null, "x"], "c": {"d": 0.0}})));
        let d = set.intern(obj(json!({"a": 1, "b": ["x", null], "c": {"d": 0.0}})));
        assert_eq!(a, b);
        assert_ne!(a, c, "1 and 1.0 are different JSON values");
        assert_ne!(a, d, "array order matters");
        assert_eq!(set.len(), 3);
        assert_eq!(set.get(c)["a"], json!(1.0));
    }
}
