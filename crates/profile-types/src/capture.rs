//! The classifier capture profile.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::Label;

/// What a student classifier captured from its teacher, measured on one suite.
///
/// Field order is the JSON key order (upstream's): `clean_agreement`, `corruptions`,
/// `invariances`, then the optional `probes` and `abstention` blocks, which are ABSENT (not `null`)
/// when they do not apply. There is deliberately no aggregate score: pass/fail policy belongs to
/// the caller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaptureProfile {
    /// Fraction of clean texts on which student and teacher labels agree.
    pub clean_agreement: f64,
    /// Agreement per corruption, in the suite's insertion order (mildest first).
    pub corruptions: IndexMap<String, f64>,
    /// Violation rates per invariance, in the suite's insertion order.
    pub invariances: IndexMap<String, ViolationRates>,
    /// Raw predictions on the suite's probes; absent when the suite has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probes: Option<ProbePredictions>,
    /// Escalation rates; absent unless at least one side has a decision API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abstention: Option<Abstention>,
}

/// How often each side changed its prediction under a meaning-preserving rewrite.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ViolationRates {
    /// Fraction of texts whose student label changed under the rewrite.
    pub student_violation_rate: f64,
    /// Fraction of texts whose teacher label changed under the rewrite.
    pub teacher_violation_rate: f64,
}

/// Raw predictions on the probes, index-aligned with the suite's probe list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbePredictions {
    /// The student's labels, one per probe.
    pub student: Vec<Label>,
    /// The teacher's labels, one per probe.
    pub teacher: Vec<Label>,
}

/// Escalation rates of the sides that have a decision API.
///
/// A side without one is `None`, written as JSON `null` (the key is always present).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Abstention {
    /// Fraction of clean texts the student escalated, or `None` without a decision API.
    pub student_escalation_rate: Option<f64>,
    /// Fraction of clean texts the teacher escalated, or `None` without a decision API.
    pub teacher_escalation_rate: Option<f64>,
}

/// The answer a student's answer under a corruption is compared with: which figure is a
/// corruption's headline in reports (pages, curves, verdicts, gates).
///
/// mixle's profile always compares with the teacher's answer on the same corrupted text (the
/// default, and the only figure of the bare [`CaptureProfile`]); for a label-preserving
/// corruption (typos, accents) the teacher's answer on the *clean* text is the label the student
/// should keep, and the teacher's own fragility under the corruption is not the student's loss.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reference {
    /// The teacher's answer on the transformed text (mixle's definition).
    #[default]
    TeacherTransformed,
    /// The teacher's answer on the clean text (label-preserving corruptions).
    TeacherClean,
}

impl Reference {
    /// The name used in suite files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Reference::TeacherTransformed => "teacher_transformed",
            Reference::TeacherClean => "teacher_clean",
        }
    }

    /// The reference named `name` (`teacher_transformed` or `teacher_clean`).
    pub fn from_name(name: &str) -> Option<Reference> {
        match name {
            "teacher_transformed" => Some(Reference::TeacherTransformed),
            "teacher_clean" => Some(Reference::TeacherClean),
            _ => None,
        }
    }

    /// Whether this is the default (skipped when serialising suite entries and descriptors).
    pub fn is_default(&self) -> bool {
        *self == Reference::TeacherTransformed
    }
}
