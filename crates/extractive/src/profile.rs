//! `extractive_capture_profile`, its per-field report, the counts report and comparisons.

use profile_stats::{
    AbstentionCounts, Comparison, Counts, ExtractCounts, FieldSums, ProfileReport, StudentOutcomes,
    SuiteDescriptor,
};
use profile_types::{ExtractiveProfile, FieldBreakdown, FieldReport};
use serde_json::Value;
use suite_core::{CapabilitySuite, Memo, Model, PredictionCache, Side, Stage, StageIds};

use std::cell::RefCell;

use crate::Error;
use crate::error::json_type;
use crate::f1::Tally;
use crate::records::RecordSet;
use crate::schema::is_valid;

/// A prediction as the profile keeps it: the id of a record in the profile's [`RecordSet`], or
/// the JSON type of a non-record (reported with its position when the profile reads it).
type Record = Result<u32, &'static str>;
type Cache<'m> = PredictionCache<'m, Record>;

/// The upstream-shaped profile plus the per-field breakdown behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtractiveReport {
    /// Exactly what [`extractive_capture_profile`] returns.
    pub profile: ExtractiveProfile,
    /// TP/FP/FN and F1 per field, per stage.
    pub fields: FieldBreakdown,
}

/// Profiles an extraction `student` against its `teacher` on `texts` under `suite`; `fields` are
/// the fields the schema check expects.
///
/// Every distinct text is sent to each model once, in one batch per stage (clean, corruptions,
/// invariances); decisions are requested once per distinct clean text. Errors name the side, the
/// stage and, for a non-record answer, the text's position; no partial profile is returned.
pub fn extractive_capture_profile<S: AsRef<str>, F: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
) -> Result<ExtractiveProfile, Error> {
    run(student, teacher, texts, suite, fields, false, None).map(|r| r.0.profile())
}

/// [`extractive_capture_profile`] with the per-field breakdown alongside (computed in the same
/// pass; the profile is identical).
pub fn extractive_capture_report<S: AsRef<str>, F: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
) -> Result<ExtractiveReport, Error> {
    let (counts, fields) = run(student, teacher, texts, suite, fields, true, None)?;
    Ok(ExtractiveReport {
        profile: counts.profile(),
        fields,
    })
}

/// [`extractive_capture_profile`] with the counts behind it: a [`ProfileReport`] whose
/// [`extractive_profile`](ProfileReport::extractive_profile) is exactly the profile, and whose
/// [`to_json`](ProfileReport::to_json) adds delta-method intervals on every micro F1, Wilson
/// intervals on exact-match, validity and violation rates, paired tests (on exact record
/// matches), the student's F1 against severity, and the abstention analysis (agreement = an
/// exact record match). Reports over other texts of the same suite and models
/// [`merge`](ProfileReport::merge) into the report over all of them.
///
/// ```
/// use extractive::extractive_profile_report;
/// use serde_json::json;
/// use suite_core::{CapabilitySuite, PerItemFn, whitespace_invariance};
///
/// let teacher = PerItemFn::new(|t: &str| json!({"name": t.split_whitespace().last()}));
/// let student = PerItemFn::new(|t: &str| json!({"name": t.split(' ').last()}));
/// let mut suite = CapabilitySuite::new();
/// suite.add_invariance("space", whitespace_invariance());
/// let report = extractive_profile_report(&student, &teacher, &["name: ann", "name: bob "], &suite, &["name"])?;
/// let json = report.to_json();
/// assert_eq!(json["counts"]["clean"]["student"]["tp"], 1);
/// assert_eq!(json["clean"]["f1"]["estimate"], 2.0 / 3.0);
/// assert_eq!(json["clean"]["f1"]["method"], "delta_method_ratio");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn extractive_profile_report<S: AsRef<str>, F: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
) -> Result<ProfileReport, Error> {
    let (counts, _) = run(student, teacher, texts, suite, fields, false, None)?;
    Ok(report(suite, counts))
}

/// [`extractive_profile_report`] and the per-field breakdown of [`extractive_capture_report`],
/// computed in one pass: the report's counts and, beside them, TP/FP/FN per field per stage
/// (`capkit profile extract --report` writes it as the report's `fields`, which `capkit report`
/// draws as a fields × stages heat map).
pub fn extractive_profile_report_with_fields<S: AsRef<str>, F: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
) -> Result<(ProfileReport, FieldBreakdown), Error> {
    let (counts, breakdown) = run(student, teacher, texts, suite, fields, true, None)?;
    Ok((report(suite, counts), breakdown))
}

/// Profiles several extraction students against one teacher on one suite, the teacher's
/// answers computed once: each student's report and, for every pair of students, per stage the
/// paired McNemar test of their exact-match rates against the gold (of their violation rates,
/// per invariance) with Newcombe's interval of the difference. A student name used twice is an
/// error.
pub fn compare_students<S: AsRef<str>, F: AsRef<str>>(
    teacher: &dyn Model,
    students: &[(&str, &dyn Model)],
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
) -> Result<Comparison, Error> {
    let mut seen = std::collections::HashSet::new();
    if let Some(&(name, _)) = students.iter().find(|s| !seen.insert(s.0)) {
        return Err(Error::DuplicateStudent(name.to_owned()));
    }
    let teacher = Memo::new(teacher);
    let mut runs = Vec::with_capacity(students.len());
    for &(name, student) in students {
        let mut outcomes = StudentOutcomes::default();
        let (counts, _) = run(
            student,
            &teacher,
            texts,
            suite,
            fields,
            false,
            Some(&mut outcomes),
        )
        .map_err(|e| Error::Student {
            name: name.to_owned(),
            source: Box::new(e),
        })?;
        runs.push((name.to_owned(), report(suite, counts), outcomes));
    }
    Ok(Comparison::of_runs(None, runs))
}

fn report(suite: &CapabilitySuite, counts: ExtractCounts) -> ProfileReport {
    let descriptor = SuiteDescriptor::new(
        suite.corruption_severities(),
        suite.invariance_names(),
        suite.probes().len(),
    );
    ProfileReport::new(descriptor, Counts::Extract(counts), None)
}

fn run<S: AsRef<str>, F: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
    per_field: bool,
    mut outcomes: Option<&mut StudentOutcomes>,
) -> Result<(ExtractCounts, FieldBreakdown), Error> {
    // Equal records are kept once; the converter runs only while a model answer is absorbed, so
    // the set is never borrowed twice.
    let records = RefCell::new(RecordSet::default());
    let mut cache: Cache<'_> =
        PredictionCache::with_converter(student, teacher, |_, label| match label {
            Value::Object(record) => Ok(records.borrow_mut().intern(record)),
            other => Err(json_type(&other)),
        });
    let stages = 1 + suite.corruptions().count() + suite.invariances().count();
    cache.reserve(texts.len() * stages);
    let mut counts = ExtractCounts::new(suite.corruption_names(), suite.invariance_names(), None);

    let clean = cache.stage(&Stage::Clean, texts.iter().map(AsRef::as_ref))?;
    let clean_scored = compare(
        &View::of(&cache, &records.borrow()),
        &Stage::Clean,
        (Side::Student, &clean),
        (Side::Teacher, &clean),
        per_field,
    )?;
    counts.n = clean.len() as u64;
    counts.clean.student = clean_scored.sums;
    counts.clean.exact = clean_scored.exact.iter().filter(|&&e| e).count() as u64;
    counts.clean.student_valid = valid_count(
        &View::of(&cache, &records.borrow()),
        Side::Student,
        &clean,
        fields,
    )?;
    counts.clean.teacher_valid = valid_count(
        &View::of(&cache, &records.borrow()),
        Side::Teacher,
        &clean,
        fields,
    )?;

    // Corruptions: both sides against the same fixed gold, the teacher's clean extraction.
    let mut breakdown = FieldBreakdown::default();
    for ((name, transform), stage_counts) in
        suite.corruptions().zip(counts.corruptions.values_mut())
    {
        let stage = Stage::Corruption(name.to_owned());
        let ids = cache.transformed(&stage, &clean, transform)?;
        let records = records.borrow();
        let view = View::of(&cache, &records);
        let (s, t) = score_stage(&view, &stage, &ids, &clean, Side::Teacher, per_field)?;
        stage_counts.student = s.sums;
        stage_counts.teacher = t.sums;
        for (&before, &after) in clean_scored.exact.iter().zip(&s.exact) {
            stage_counts.exact.record(before, after);
        }
        if per_field {
            breakdown
                .corruptions
                .insert(name.to_owned(), field_report(s.tally, t.tally));
        }
        if let Some(o) = outcomes.as_deref_mut() {
            o.corruptions.insert(name.to_owned(), s.exact);
        }
    }
    // Invariances: each side against its own clean output (rewritten output as the prediction).
    for ((name, transform), stage_counts) in
        suite.invariances().zip(counts.invariances.values_mut())
    {
        let stage = Stage::Invariance(name.to_owned());
        let ids = cache.transformed(&stage, &clean, transform)?;
        let records = records.borrow();
        let view = View::of(&cache, &records);
        let (s, t) = score_stage(&view, &stage, &ids, &clean, Side::Student, per_field)?;
        stage_counts.student = s.sums;
        stage_counts.teacher = t.sums;
        for (&student_same, &teacher_same) in s.exact.iter().zip(&t.exact) {
            stage_counts.changed.record(!student_same, !teacher_same);
        }
        if per_field {
            breakdown
                .invariances
                .insert(name.to_owned(), field_report(s.tally, t.tally));
        }
        if let Some(o) = outcomes.as_deref_mut() {
            o.invariances
                .insert(name.to_owned(), s.exact.iter().map(|&same| !same).collect());
        }
    }

    let escalations = cache.escalations(&clean)?;
    if escalations.any() {
        let mut abstention =
            AbstentionCounts::new(escalations.student.is_some(), escalations.teacher.is_some());
        for (position, &exact) in clean_scored.exact.iter().enumerate() {
            abstention.record(
                escalations.escalated(Side::Student, position),
                escalations.escalated(Side::Teacher, position),
                exact,
            );
        }
        counts.abstention = Some(abstention);
    }
    if per_field {
        breakdown.clean = clean_scored.tally.per_field();
    }
    if let Some(o) = outcomes {
        o.clean = clean_scored.exact;
    }
    Ok((counts, breakdown))
}

fn field_report(student: Tally, teacher: Tally) -> FieldReport {
    FieldReport {
        student: student.per_field(),
        teacher: teacher.per_field(),
    }
}

/// Both sides scored on one stage: the teacher against its clean output, the student against
/// `student_reference`'s clean output (the teacher's for corruptions, its own for invariances).
fn score_stage(
    view: &View<'_, '_>,
    stage: &Stage,
    ids: &StageIds,
    clean: &StageIds,
    student_reference: Side,
    per_field: bool,
) -> Result<(Scored, Scored), Error> {
    let s = compare(
        view,
        stage,
        (Side::Student, ids),
        (student_reference, clean),
        per_field,
    )?;
    let t = compare(
        view,
        stage,
        (Side::Teacher, ids),
        (Side::Teacher, clean),
        per_field,
    )?;
    Ok((s, t))
}

/// What the scoring functions read: the answers by text id, and the records they point to.
struct View<'v, 'm> {
    cache: &'v Cache<'m>,
    records: &'v RecordSet,
}

impl<'v, 'm> View<'v, 'm> {
    fn of(cache: &'v Cache<'m>, records: &'v RecordSet) -> View<'v, 'm> {
        View { cache, records }
    }

    /// The record id of `side` for the text at `position` of `stage`.
    fn record_id(
        &self,
        side: Side,
        stage: &Stage,
        ids: &StageIds,
        position: usize,
    ) -> Result<u32, Error> {
        (*self.cache.output(side, ids.ids()[position])).map_err(|got| Error::NotARecord {
            side,
            stage: stage.clone(),
            position,
            got,
        })
    }
}

/// One side of one stage, scored: the micro totals (per field when asked), the sums behind its
/// F1 interval, and per text whether the record matched its reference exactly.
struct Scored {
    tally: Tally,
    sums: FieldSums,
    exact: Vec<bool>,
}

/// Tallies `predicted` records against `reference` records, position by position.
fn compare(
    view: &View<'_, '_>,
    stage: &Stage,
    predicted: (Side, &StageIds),
    reference: (Side, &StageIds),
    per_field: bool,
) -> Result<Scored, Error> {
    let n = predicted.1.len();
    let mut tally = Tally::new(per_field);
    let mut sums = FieldSums::default();
    let mut exact = Vec::with_capacity(n);
    for position in 0..n {
        let p = view.record_id(predicted.0, stage, predicted.1, position)?;
        // The reference comes from the clean pass.
        let r = view.record_id(reference.0, &Stage::Clean, reference.1, position)?;
        let before = tally.totals();
        if p == r {
            // One stored record: every reference field matches itself.
            tally.add_identical(view.records.get(r));
        } else {
            tally.add(view.records.get(p), view.records.get(r));
        }
        let after = tally.totals();
        let (tp, fp, fn_) = (after.0 - before.0, after.1 - before.1, after.2 - before.2);
        sums.record(tp, fp, fn_);
        exact.push(fp + fn_ == 0);
    }
    Ok(Scored { tally, sums, exact })
}

/// How many clean records of `side` are complete and grounded.
fn valid_count<F: AsRef<str>>(
    view: &View<'_, '_>,
    side: Side,
    clean: &StageIds,
    fields: &[F],
) -> Result<u64, Error> {
    let mut valid = 0;
    for position in 0..clean.len() {
        let r = view
            .records
            .get(view.record_id(side, &Stage::Clean, clean, position)?);
        valid += u64::from(is_valid(r, view.cache.text(clean.ids()[position]), fields));
    }
    Ok(valid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use profile_types::F1Pair;
    use serde_json::json;
    use suite_core::{BatchFn, PerItemFn, Transform};

    #[test]
    fn a_non_record_names_side_stage_and_position() {
        let teacher = PerItemFn::new(|_: &str| json!({"a": "x"}));
        let student = PerItemFn::new(|t: &str| if t == "B" { json!("oops") } else { json!({}) });
        let mut suite = CapabilitySuite::new();
        suite.add_corruption("upper", Transform::new(|t| t.to_uppercase()));
        let err = extractive_capture_profile(&student, &teacher, &["a", "b"], &suite, &["a"])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "student model returned a string instead of a record (a JSON object) for text 1 of the corruption `upper`"
        );
    }

    #[test]
    fn a_short_batch_is_an_error_not_a_shorter_profile() {
        let teacher = BatchFn::new(|ts: &[&str]| vec![json!({}); ts.len().saturating_sub(1)]);
        let student = PerItemFn::new(|_: &str| json!({}));
        let err = extractive_capture_profile(
            &student,
            &teacher,
            &["a", "b"],
            &CapabilitySuite::new(),
            &["a"],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "teacher model returned 1 predictions for 2 texts on the clean texts"
        );
    }

    #[test]
    fn empty_texts_score_one_everywhere() {
        let m = PerItemFn::new(|_: &str| json!({}));
        let mut suite = CapabilitySuite::new();
        suite.add_invariance("id", Transform::new(str::to_owned));
        let texts: [&str; 0] = [];
        let p = extractive_capture_profile(&m, &m, &texts, &suite, &["a"]).unwrap();
        assert_eq!(p.clean_f1, 1.0);
        assert_eq!(
            (p.schema_validity.student, p.schema_validity.teacher),
            (1.0, 1.0)
        );
        assert_eq!(
            p.invariances["id"],
            F1Pair {
                student_f1: 1.0,
                teacher_f1: 1.0
            }
        );
        assert!(p.abstention.is_none());
    }
}
