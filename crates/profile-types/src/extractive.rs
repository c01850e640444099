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
