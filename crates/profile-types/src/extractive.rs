//! The extractive capture profile and the schema check.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::Abstention;

/// What a student field extractor captured from its teacher, measured on one suite.
///
/// Key order is upstream's: `clean_f1`, `schema_validity`, `corruptions`, `invariances`, then the
/// optional `abstention` block (absent unless a side has a decision API). There is no `probes` key:
/// upstream ignores a suite's probes for extractors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractiveProfile {
    /// Micro field-level F1 of the student's clean extraction against the teacher's (the gold).
    pub clean_f1: f64,
    /// Fraction of clean records that are complete and grounded, per side.
    pub schema_validity: SchemaValidity,
    /// F1 per corruption, both sides against the fixed clean gold.
    pub corruptions: IndexMap<String, F1Pair>,
    /// F1 per invariance, each side against its own clean extraction.
    pub invariances: IndexMap<String, F1Pair>,
    /// Escalation rates; absent unless at least one side has a decision API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abstention: Option<Abstention>,
}

/// Schema-validity rate of each side's clean records.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SchemaValidity {
    /// Student's rate.
    pub student: f64,
    /// Teacher's rate.
    pub teacher: f64,
}

/// A pair of field-level F1 scores.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct F1Pair {
    /// Student's F1.
    pub student_f1: f64,
    /// Teacher's F1.
    pub teacher_f1: f64,
}

/// The result of checking one extracted record against its source text.
///
/// Never a single pass/fail bit: `missing` and `ungrounded` name the fields that failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaCheck {
    /// Every expected field is present with a truthy value.
    pub complete: bool,
    /// Every truthy expected value occurs (as its Python `str()`) in the source text.
    pub grounded: bool,
    /// Expected fields absent or falsy, in `fields` order (duplicates kept).
    pub missing: Vec<String>,
    /// Expected fields whose value is not a substring of the source, in record key order.
    pub ungrounded: Vec<String>,
}

/// Field-level counts of one comparison of predicted records against reference records.
///
/// A reference field whose value the prediction matches (Python `==`, a missing key reading as
/// `null`) is a true positive, any other reference field a false negative; a predicted field the
/// reference lacks is a false positive.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct FieldCounts {
    /// True positives.
    pub tp: u64,
    /// False positives.
    pub fp: u64,
    /// False negatives.
    #[serde(rename = "fn")]
    pub fn_: u64,
    /// `2·tp / (2·tp + fp + fn)`, `1.0` when the denominator is 0.
    pub f1: f64,
}

impl FieldCounts {
    /// Counts with their F1 filled in.
    pub fn new(tp: u64, fp: u64, fn_: u64) -> FieldCounts {
        let denominator = 2 * tp + fp + fn_;
        let f1 = if denominator == 0 {
            1.0
        } else {
            (2 * tp) as f64 / denominator as f64
        };
        FieldCounts { tp, fp, fn_, f1 }
    }
}

/// Per-field counts of both sides for one stage, fields in name order. A field that is not a
/// Python `str` is keyed by its stored form in Rust and by its label in JSON
/// ([`key_label`](crate::py_value::key_label): `[1]` for the key `1`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FieldReport {
    /// The student's counts per field.
    #[serde(with = "crate::py_value::labelled_keys")]
    pub student: std::collections::BTreeMap<String, FieldCounts>,
    /// The teacher's counts per field.
    #[serde(with = "crate::py_value::labelled_keys")]
    pub teacher: std::collections::BTreeMap<String, FieldCounts>,
}

/// Which field fell where: the per-field breakdown behind an [`ExtractiveProfile`], against the
/// same references (the teacher's clean extraction for clean and corrupted texts, each side's own
/// clean extraction for invariances). Not part of the upstream-shaped profile.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FieldBreakdown {
    /// Student against the gold on clean texts, per field (keys as in [`FieldReport`]).
    #[serde(with = "crate::py_value::labelled_keys")]
    pub clean: std::collections::BTreeMap<String, FieldCounts>,
    /// Per corruption, in suite order.
    pub corruptions: IndexMap<String, FieldReport>,
    /// Per invariance, in suite order.
    pub invariances: IndexMap<String, FieldReport>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py_value::record_key;
    use serde_json::json;

    #[test]
    fn a_breakdown_shows_keys_that_are_not_str_by_label_apart_from_str_keys() {
        let int_key = record_key(&json!(1)).into_owned();
        let counts = |tp| FieldCounts::new(tp, 0, 0);
        let fields = |a, b| {
            [("1".to_owned(), counts(a)), (int_key.clone(), counts(b))]
                .into_iter()
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        let mut breakdown = FieldBreakdown {
            clean: fields(1, 2),
            ..FieldBreakdown::default()
        };
        breakdown.corruptions.insert(
            "typo".to_owned(),
            FieldReport {
                student: fields(3, 4),
                teacher: fields(5, 6),
            },
        );
        let written = serde_json::to_value(&breakdown).unwrap_or_default();
        assert_eq!(written["clean"]["1"]["tp"], 1);
        assert_eq!(written["clean"]["[1]"]["tp"], 2);
        assert_eq!(written["corruptions"]["typo"]["teacher"]["[1]"]["tp"], 6);
        assert!(!written.to_string().contains("capkit:key"), "{written}");
        let read: FieldBreakdown = serde_json::from_value(written).unwrap_or_default();
        assert_eq!(read, breakdown);
    }
}
