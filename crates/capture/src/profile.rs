//! `capture_profile`.

use foldhash::fast::FixedState;
use indexmap::{IndexMap, IndexSet};
use profile_types::value::py_str;
use profile_types::{CaptureProfile, Label, ProbePredictions, ViolationRates};
use suite_core::{CapabilitySuite, Model, PredictionCache, Side, Stage, StageIds};

use crate::Error;

/// What the profile keeps of one prediction: the id of its comparison form (Python `str()`), in
/// one space shared by both sides so every comparison is an integer comparison, and the raw label
/// only where the profile reports it (probes).
struct Slot {
    form: u32,
    raw: Option<Box<Label>>,
}

/// Profiles `student` against `teacher` on `texts` under `suite`.
///
/// Every distinct text is sent to each model once, in one batch per stage (probes, clean,
/// corruptions, invariances); decisions are requested once per distinct clean text. Errors name
/// the side and the stage; no partial profile is returned.
pub fn capture_profile<S: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
) -> Result<CaptureProfile, Error> {
    let probe_count = suite.probes().len();
    let mut forms: IndexSet<Box<str>, FixedState> = IndexSet::default();
    // Batches tend to repeat one label: remember the last form before hashing.
    let mut last: Option<u32> = None;
    let mut cache = PredictionCache::with_converter(student, teacher, move |id, label: Label| {
        let form = py_str(&label);
        let form = match last.filter(|&i| forms.get_index(i as usize).is_some_and(|f| **f == *form))
        {
            Some(i) => i,
            None => {
                let i = match forms.get_index_of(&*form) {
                    Some(i) => i as u32,
                    None => forms.insert_full(form.into()).0 as u32,
                };
                last = Some(i);
                i
            }
        };
        // Probes are interned first, so their ids are the lowest.
        let raw = ((id as usize) < probe_count).then(|| Box::new(label));
        Slot { form, raw }
    });
    let stages = 1 + suite.corruptions().count() + suite.invariances().count();
    cache.reserve(texts.len() * stages + probe_count);

    // Probes first: their raw labels are kept, everything else is reduced to a form id.
    let probe_ids = cache.stage(&Stage::Probes, suite.probes().iter().map(String::as_str))?;
    let clean = cache.stage(&Stage::Clean, texts.iter().map(AsRef::as_ref))?;
    let clean_agreement = agreement(&cache, &clean);

    let mut corruptions = IndexMap::new();
    for (name, transform) in suite.corruptions() {
        let ids = cache.transformed(&Stage::Corruption(name.to_owned()), &clean, transform)?;
        corruptions.insert(name.to_owned(), agreement(&cache, &ids));
    }

    let mut invariances = IndexMap::new();
    for (name, transform) in suite.invariances() {
        let ids = cache.transformed(&Stage::Invariance(name.to_owned()), &clean, transform)?;
        invariances.insert(
            name.to_owned(),
            ViolationRates {
                student_violation_rate: violation(&cache, Side::Student, &clean, &ids),
                teacher_violation_rate: violation(&cache, Side::Teacher, &clean, &ids),
            },
        );
    }

    let probes = (probe_count > 0).then(|| {
        let raw = |slot: &Slot| slot.raw.as_deref().cloned().unwrap_or(Label::Null);
        ProbePredictions {
            student: probe_ids
                .ids()
                .iter()
                .map(|&id| raw(cache.student(id)))
                .collect(),
            teacher: probe_ids
                .ids()
                .iter()
                .map(|&id| raw(cache.teacher(id)))
                .collect(),
        }
    });

    let abstention = cache.abstention(&clean)?;
    Ok(CaptureProfile {
        clean_agreement,
        corruptions,
        invariances,
        probes,
        abstention,
    })
}

/// Fraction of the stage's texts on which the sides agree; `0.0` for no texts.
fn agreement(cache: &PredictionCache<'_, Slot>, stage: &StageIds) -> f64 {
    let agree = stage
        .ids()
        .iter()
        .filter(|&&id| cache.student(id).form == cache.teacher(id).form)
        .count();
    rate(agree, stage.len())
}

/// Fraction of texts whose `side` label changed between `before` and `after`.
fn violation(
    cache: &PredictionCache<'_, Slot>,
    side: Side,
    before: &StageIds,
    after: &StageIds,
) -> f64 {
    let changed = before
        .ids()
        .iter()
        .zip(after.ids())
        .filter(|&(&b, &a)| cache.output(side, b).form != cache.output(side, a).form)
        .count();
    rate(changed, before.len())
}

/// `k / n` as numpy's mean of booleans gives it (exact IEEE quotient), `0.0` when `n == 0`.
fn rate(k: usize, n: usize) -> f64 {
    if n == 0 { 0.0 } else { k as f64 / n as f64 }
}
