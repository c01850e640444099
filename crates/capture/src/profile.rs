//! `capture_profile`.

use foldhash::fast::FixedState;
use indexmap::{IndexMap, IndexSet};
use profile_types::value::py_str;
use profile_types::{CaptureProfile, ProbePredictions, ViolationRates};
use suite_core::{CapabilitySuite, Model, PredictionCache, Side, Stage, StageIds};

use crate::Error;

/// Profiles `student` against `teacher` on `texts` under `suite`.
///
/// Stages run in upstream's order (clean, corruptions, invariances, probes, decisions); each sends
/// each model one batch of the texts it has not seen yet. Errors name the side and the stage.
pub fn capture_profile<S: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
) -> Result<CaptureProfile, Error> {
    let mut cache = PredictionCache::new(student, teacher);
    let mut labels = LabelIds::default();

    let clean = cache.stage(&Stage::Clean, texts.iter().map(AsRef::as_ref))?;
    labels.catch_up(&cache);
    let clean_agreement = labels.agreement(&clean);

    let mut corruptions = IndexMap::new();
    for (name, transform) in suite.corruptions() {
        let ids = cache.transformed(&Stage::Corruption(name.to_owned()), &clean, transform)?;
        labels.catch_up(&cache);
        corruptions.insert(name.to_owned(), labels.agreement(&ids));
    }

    let mut invariances = IndexMap::new();
    for (name, transform) in suite.invariances() {
        let ids = cache.transformed(&Stage::Invariance(name.to_owned()), &clean, transform)?;
        labels.catch_up(&cache);
        invariances.insert(
            name.to_owned(),
            ViolationRates {
                student_violation_rate: labels.violation(Side::Student, &clean, &ids),
                teacher_violation_rate: labels.violation(Side::Teacher, &clean, &ids),
            },
        );
    }

    let probes = if suite.probes().is_empty() {
        None
    } else {
        let ids = cache.stage(&Stage::Probes, suite.probes().iter().map(String::as_str))?;
        Some(ProbePredictions {
            student: ids
                .ids()
                .iter()
                .map(|&id| cache.student(id).clone())
                .collect(),
            teacher: ids
                .ids()
                .iter()
                .map(|&id| cache.teacher(id).clone())
                .collect(),
        })
    };

    let abstention = cache.abstention(&clean)?;
    Ok(CaptureProfile {
        clean_agreement,
        corruptions,
        invariances,
        probes,
        abstention,
    })
}

/// Each cached prediction's Python `str()` form as an id in one space shared by both sides, so
/// every comparison in the profile is an integer comparison.
#[derive(Default)]
struct LabelIds {
    forms: IndexSet<Box<str>, FixedState>,
    student: Vec<u32>,
    teacher: Vec<u32>,
}

impl LabelIds {
    fn catch_up(&mut self, cache: &PredictionCache<'_>) {
        for id in self.student.len()..cache.distinct_texts() {
            let s = self.intern(&py_str(cache.student(id as u32)));
            let t = self.intern(&py_str(cache.teacher(id as u32)));
            self.student.push(s);
            self.teacher.push(t);
        }
    }

    fn intern(&mut self, form: &str) -> u32 {
        match self.forms.get_index_of(form) {
            Some(i) => i as u32,
            None => self.forms.insert_full(form.into()).0 as u32,
        }
    }

    fn side(&self, side: Side) -> &[u32] {
        match side {
            Side::Student => &self.student,
            Side::Teacher => &self.teacher,
        }
    }

    /// Fraction of the stage's texts on which the sides agree; `0.0` for no texts.
    fn agreement(&self, stage: &StageIds) -> f64 {
        let agree = stage
            .ids()
            .iter()
            .filter(|&&id| self.student[id as usize] == self.teacher[id as usize])
            .count();
        rate(agree, stage.len())
    }

    /// Fraction of texts whose `side` label changed between `before` and `after`.
    fn violation(&self, side: Side, before: &StageIds, after: &StageIds) -> f64 {
        let l = self.side(side);
        let changed = before
            .ids()
            .iter()
            .zip(after.ids())
            .filter(|&(&b, &a)| l[b as usize] != l[a as usize])
            .count();
        rate(changed, before.len())
    }
}

/// `k / n` as numpy's mean of booleans gives it (exact IEEE quotient), `0.0` when `n == 0`.
fn rate(k: usize, n: usize) -> f64 {
    if n == 0 { 0.0 } else { k as f64 / n as f64 }
}
