//! `extractive_capture_profile` and its per-field report.

use indexmap::IndexMap;
use profile_types::{ExtractiveProfile, F1Pair, FieldBreakdown, FieldReport, SchemaValidity};
use serde_json::Value;
use suite_core::{CapabilitySuite, Model, PredictionCache, Side, Stage, StageIds};

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
    run(student, teacher, texts, suite, fields, false).map(|r| r.profile)
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
    run(student, teacher, texts, suite, fields, true)
}

fn run<S: AsRef<str>, F: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
    per_field: bool,
) -> Result<ExtractiveReport, Error> {
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

    let clean = cache.stage(&Stage::Clean, texts.iter().map(AsRef::as_ref))?;
    let clean_tally = compare(
        &View::of(&cache, &records.borrow()),
        &Stage::Clean,
        (Side::Student, &clean),
        (Side::Teacher, &clean),
        per_field,
    )?;
    let schema_validity = SchemaValidity {
        student: validity(
            &View::of(&cache, &records.borrow()),
            Side::Student,
            &clean,
            fields,
        )?,
        teacher: validity(
            &View::of(&cache, &records.borrow()),
            Side::Teacher,
            &clean,
            fields,
        )?,
    };

    // Corruptions: both sides against the same fixed gold, the teacher's clean extraction.
    let (corruptions, corruption_fields) = score_section(
        &mut cache,
        &records,
        &clean,
        suite.corruptions(),
        Stage::Corruption,
        Side::Teacher,
        per_field,
    )?;
    // Invariances: each side against its own clean output (rewritten output as the prediction).
    let (invariances, invariance_fields) = score_section(
        &mut cache,
        &records,
        &clean,
        suite.invariances(),
        Stage::Invariance,
        Side::Student,
        per_field,
    )?;
    let mut breakdown = FieldBreakdown {
        corruptions: corruption_fields,
        invariances: invariance_fields,
        ..FieldBreakdown::default()
    };

    let abstention = cache.abstention(&clean)?;
    let clean_f1 = clean_tally.f1();
    if per_field {
        breakdown.clean = clean_tally.per_field();
    }
    Ok(ExtractiveReport {
        profile: ExtractiveProfile {
            clean_f1,
            schema_validity,
            corruptions,
            invariances,
            abstention,
        },
        fields: breakdown,
    })
}

/// A section's F1 pairs and (when asked for) per-field reports, by stage name.
type SectionScores = (IndexMap<String, F1Pair>, IndexMap<String, FieldReport>);

/// Runs and scores one section of the suite (its corruptions or its invariances), stage by stage.
fn score_section<'s>(
    cache: &mut Cache<'_>,
    records: &RefCell<RecordSet>,
    clean: &StageIds,
    entries: impl Iterator<Item = (&'s str, &'s suite_core::Transform)>,
    stage_of: fn(String) -> Stage,
    student_reference: Side,
    per_field: bool,
) -> Result<SectionScores, Error> {
    let mut scores = IndexMap::new();
    let mut fields = IndexMap::new();
    for (name, transform) in entries {
        let stage = stage_of(name.to_owned());
        let ids = cache.transformed(&stage, clean, transform)?;
        let records = records.borrow();
        let view = View::of(cache, &records);
        let (pair, report) = score_stage(&view, &stage, &ids, clean, student_reference, per_field)?;
        scores.insert(name.to_owned(), pair);
        if let Some(report) = report {
            fields.insert(name.to_owned(), report);
        }
    }
    Ok((scores, fields))
}

/// Both sides' F1 on one stage: the teacher against its clean output, the student against
/// `student_reference`'s clean output (the teacher's for corruptions, its own for invariances).
fn score_stage(
    view: &View<'_, '_>,
    stage: &Stage,
    ids: &StageIds,
    clean: &StageIds,
    student_reference: Side,
    per_field: bool,
) -> Result<(F1Pair, Option<FieldReport>), Error> {
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
    let pair = F1Pair {
        student_f1: s.f1(),
        teacher_f1: t.f1(),
    };
    let fields = per_field.then(|| FieldReport {
        student: s.per_field(),
        teacher: t.per_field(),
    });
    Ok((pair, fields))
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

/// Tallies `predicted` records against `reference` records, position by position.
fn compare(
    view: &View<'_, '_>,
    stage: &Stage,
    predicted: (Side, &StageIds),
    reference: (Side, &StageIds),
    per_field: bool,
) -> Result<Tally, Error> {
    let mut tally = Tally::new(per_field);
    for position in 0..predicted.1.len() {
        let p = view.record_id(predicted.0, stage, predicted.1, position)?;
        // The reference comes from the clean pass.
        let r = view.record_id(reference.0, &Stage::Clean, reference.1, position)?;
        if p == r {
            // One stored record: every reference field matches itself.
            tally.add_identical(view.records.get(r));
        } else {
            tally.add(view.records.get(p), view.records.get(r));
        }
    }
    Ok(tally)
}

/// Fraction of the clean records of `side` that are complete and grounded; `1.0` for no texts.
fn validity<F: AsRef<str>>(
    view: &View<'_, '_>,
    side: Side,
    clean: &StageIds,
    fields: &[F],
) -> Result<f64, Error> {
    if clean.is_empty() {
        return Ok(1.0);
    }
    let mut valid = 0usize;
    for position in 0..clean.len() {
        let r = view
            .records
            .get(view.record_id(side, &Stage::Clean, clean, position)?);
        valid += usize::from(is_valid(r, view.cache.text(clean.ids()[position]), fields));
    }
    Ok(valid as f64 / clean.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
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
