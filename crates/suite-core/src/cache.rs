//! Predict each distinct text at most once per model per profile.

use foldhash::fast::FixedState;
use indexmap::IndexSet;
use profile_types::{Abstention, Label};

use crate::transform::TextHash;
use crate::{Decision, Error, Model, Side, Stage, Transform};

/// The texts of one stage of a profile, as ids into a [`PredictionCache`] (index-aligned with the
/// stage's texts; duplicates share an id).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StageIds(Vec<u32>);

impl StageIds {
    /// The ids, one per text of the stage.
    pub fn ids(&self) -> &[u32] {
        &self.0
    }

    /// Number of texts in the stage.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the stage has no texts.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

type Convert<'m, T> = Box<dyn FnMut(u32, Label) -> T + 'm>;

/// Interns every text a profile shows its models and remembers both models' answers, so each
/// distinct text (clean, corrupted, rewritten or probe) is predicted once per model.
///
/// Each stage sends one batch per model: the texts of that stage not seen before, in first-seen
/// order. This relies on models being deterministic. Answers are stored as `T`: the raw label by
/// default ([`PredictionCache::new`]), or whatever a converter makes of it
/// ([`PredictionCache::with_converter`]; a classifier profile keeps an interned id of the label's
/// comparison form, which is far smaller than the label).
pub struct PredictionCache<'m, T = Label> {
    student: &'m dyn Model,
    teacher: &'m dyn Model,
    texts: IndexSet<String, FixedState>,
    /// blake3 of base texts, computed once for the seeded transforms that read it.
    hashes: Vec<Option<TextHash>>,
    student_out: Vec<T>,
    teacher_out: Vec<T>,
    convert: Convert<'m, T>,
}

impl<'m> PredictionCache<'m, Label> {
    /// An empty cache over a student and a teacher that keeps every answer as returned.
    pub fn new(student: &'m dyn Model, teacher: &'m dyn Model) -> PredictionCache<'m, Label> {
        PredictionCache::with_converter(student, teacher, |_, label| label)
    }
}

impl<'m, T> PredictionCache<'m, T> {
    /// An empty cache that stores `convert(text id, answer)` instead of each raw answer.
    pub fn with_converter(
        student: &'m dyn Model,
        teacher: &'m dyn Model,
        convert: impl FnMut(u32, Label) -> T + 'm,
    ) -> PredictionCache<'m, T> {
        PredictionCache {
            student,
            teacher,
            texts: IndexSet::default(),
            hashes: Vec::new(),
            student_out: Vec::new(),
            teacher_out: Vec::new(),
            convert: Box::new(convert),
        }
    }

    /// Reserves room for `additional` more distinct texts (a profile knows roughly how many
    /// texts its stages will add; reserving once avoids rehashing a large table repeatedly).
    pub fn reserve(&mut self, additional: usize) {
        self.texts.reserve(additional);
        self.student_out.reserve(additional);
        self.teacher_out.reserve(additional);
    }

    /// Number of distinct texts predicted so far (per model).
    pub fn distinct_texts(&self) -> usize {
        self.texts.len()
    }

    /// The student's answer for a text id.
    pub fn student(&self, id: u32) -> &T {
        &self.student_out[id as usize]
    }

    /// The teacher's answer for a text id.
    pub fn teacher(&self, id: u32) -> &T {
        &self.teacher_out[id as usize]
    }

    /// The answer of `side` for a text id.
    pub fn output(&self, side: Side, id: u32) -> &T {
        match side {
            Side::Student => self.student(id),
            Side::Teacher => self.teacher(id),
        }
    }

    /// The text behind an id.
    pub fn text(&self, id: u32) -> &str {
        self.texts.get_index(id as usize).map_or("", |t| t)
    }

    /// Interns a stage's texts and predicts the new ones with both models.
    pub fn stage<I, S>(&mut self, stage: &Stage, texts: I) -> Result<StageIds, Error>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let first_new = self.texts.len();
        let ids = texts
            .into_iter()
            .map(|t| self.texts.insert_full(t.into()).0 as u32)
            .collect();
        self.predict_new(stage, first_new)?;
        Ok(StageIds(ids))
    }

    /// Applies `transform` to the texts of `base` (each distinct text once), interns the results
    /// and predicts the new ones.
    pub fn transformed(
        &mut self,
        stage: &Stage,
        base: &StageIds,
        transform: &Transform,
    ) -> Result<StageIds, Error> {
        let first_new = self.texts.len();
        // Transform each distinct base text once; duplicates reuse the result.
        let mut mapped = vec![u32::MAX; first_new];
        let mut ids = Vec::with_capacity(base.len());
        if transform.uses_text_hash() && self.hashes.len() < first_new {
            self.hashes.resize(first_new, None);
        }
        for &id in &base.0 {
            if mapped[id as usize] == u32::MAX {
                let text = self.texts.get_index(id as usize).map_or("", String::as_str);
                let out = if transform.uses_text_hash() {
                    let hash = self.hashes[id as usize].get_or_insert_with(|| TextHash::of(text));
                    transform.apply_with_hash(text, hash)
                } else {
                    transform.apply(text)
                };
                mapped[id as usize] = self.texts.insert_full(out).0 as u32;
            }
            ids.push(mapped[id as usize]);
        }
        self.predict_new(stage, first_new)?;
        Ok(StageIds(ids))
    }

    fn predict_new(&mut self, stage: &Stage, first_new: usize) -> Result<(), Error> {
        if first_new == self.texts.len() {
            return Ok(());
        }
        let batch: Vec<&str> = self.texts[first_new..].iter().map(String::as_str).collect();
        let student = call(self.student, Side::Student, stage, &batch)?;
        let teacher = call(self.teacher, Side::Teacher, stage, &batch)?;
        let convert = &mut self.convert;
        let ids = first_new as u32..;
        self.student_out
            .extend(ids.clone().zip(student).map(|(id, l)| convert(id, l)));
        self.teacher_out
            .extend(ids.zip(teacher).map(|(id, l)| convert(id, l)));
        Ok(())
    }

    /// Escalation rates of both sides' decision APIs on the clean texts, or `None` when neither
    /// side has one. Each distinct clean text is decided once. Zero texts give `0.0` for a side
    /// with a decision API.
    pub fn abstention(&self, clean: &StageIds) -> Result<Option<Abstention>, Error> {
        let escalations = self.escalations(clean)?;
        let rate = |side: &Option<Vec<bool>>| {
            side.as_ref().map(|flags| {
                if flags.is_empty() {
                    0.0
                } else {
                    flags.iter().filter(|&&e| e).count() as f64 / flags.len() as f64
                }
            })
        };
        Ok(escalations.any().then(|| Abstention {
            student_escalation_rate: rate(&escalations.student),
            teacher_escalation_rate: rate(&escalations.teacher),
        }))
    }

    /// Which clean texts each side's decision API escalated, by position in `clean` (`None` for
    /// a side without a decision API). Each distinct clean text is decided once; the student is
    /// asked first.
    pub fn escalations(&self, clean: &StageIds) -> Result<Escalations, Error> {
        let mut distinct: Vec<u32> = Vec::new();
        let mut position = vec![u32::MAX; self.texts.len()];
        for &id in &clean.0 {
            if position[id as usize] == u32::MAX {
                position[id as usize] = distinct.len() as u32;
                distinct.push(id);
            }
        }
        let batch: Vec<&str> = distinct.iter().map(|&id| self.text(id)).collect();
        let flags = |model: &dyn Model, side: Side| -> Result<Option<Vec<bool>>, Error> {
            let Some(result) = model.decide_batch(&batch) else {
                return Ok(None);
            };
            let decisions = result.map_err(|source| Error::Model {
                side,
                stage: Stage::Decisions,
                source,
            })?;
            if decisions.len() != batch.len() {
                return Err(Error::BatchLength {
                    side,
                    stage: Stage::Decisions,
                    what: "decisions",
                    expected: batch.len(),
                    got: decisions.len(),
                });
            }
            Ok(Some(
                clean
                    .0
                    .iter()
                    .map(|&id| decisions[position[id as usize] as usize] == Decision::Escalate)
                    .collect(),
            ))
        };
        Ok(Escalations {
            student: flags(self.student, Side::Student)?,
            teacher: flags(self.teacher, Side::Teacher)?,
        })
    }
}

/// Which clean texts each side escalated, by position ([`PredictionCache::escalations`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Escalations {
    /// The student's flags, or `None` without a decision API.
    pub student: Option<Vec<bool>>,
    /// The teacher's flags, or `None` without a decision API.
    pub teacher: Option<Vec<bool>>,
}

impl Escalations {
    /// Whether at least one side has a decision API.
    pub fn any(&self) -> bool {
        self.student.is_some() || self.teacher.is_some()
    }

    /// Whether `side` escalated the clean text at `position` (`false` without a decision API).
    pub fn escalated(&self, side: Side, position: usize) -> bool {
        let flags = match side {
            Side::Student => &self.student,
            Side::Teacher => &self.teacher,
        };
        flags
            .as_ref()
            .is_some_and(|f| f.get(position).copied().unwrap_or(false))
    }
}

fn call(model: &dyn Model, side: Side, stage: &Stage, batch: &[&str]) -> Result<Vec<Label>, Error> {
    let out = model.predict_batch(batch).map_err(|source| Error::Model {
        side,
        stage: stage.clone(),
        source,
    })?;
    if out.len() != batch.len() {
        return Err(Error::BatchLength {
            side,
            stage: stage.clone(),
            what: "predictions",
            expected: batch.len(),
            got: out.len(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BatchFn, PerItemFn};
    use serde_json::json;
    use std::cell::RefCell;

    struct Counting<'a>(&'a RefCell<Vec<usize>>);
    impl Model for Counting<'_> {
        fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, crate::ModelError> {
            self.0.borrow_mut().push(texts.len());
            Ok(texts.iter().map(|t| json!(t)).collect())
        }
    }

    #[test]
    fn each_distinct_text_is_predicted_once() {
        let calls = RefCell::new(Vec::new());
        let m = Counting(&calls);
        let t = PerItemFn::new(|t: &str| json!(t.len()));
        let mut cache = PredictionCache::new(&m, &t);
        let clean = cache.stage(&Stage::Clean, ["a", "b", "a"]).unwrap();
        assert_eq!(clean.ids(), [0, 1, 0]);
        let upper = Transform::new(|s| s.to_uppercase());
        let up = cache
            .transformed(&Stage::Corruption("up".into()), &clean, &upper)
            .unwrap();
        assert_eq!(up.ids(), [2, 3, 2]);
        let same = Transform::new(str::to_owned);
        let id = cache
            .transformed(&Stage::Corruption("id".into()), &clean, &same)
            .unwrap();
        assert_eq!(id.ids(), clean.ids());
        assert_eq!(
            *calls.borrow(),
            [2, 2],
            "the identity stage needs no model call"
        );
        assert_eq!(cache.student(3), &json!("B"));
        assert_eq!(cache.teacher(3), &json!(1));
    }

    #[test]
    fn wrong_batch_length_names_side_and_counts() {
        let s = PerItemFn::new(|_: &str| json!(1));
        let t = BatchFn::new(|_: &[&str]| vec![json!(1)]);
        let mut cache = PredictionCache::new(&s, &t);
        let err = cache.stage(&Stage::Clean, ["a", "b"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "teacher model returned 1 predictions for 2 texts on the clean texts"
        );
    }

    #[test]
    fn model_errors_name_the_side_and_stage() {
        struct Failing;
        impl Model for Failing {
            fn predict_batch(&self, _: &[&str]) -> Result<Vec<Label>, crate::ModelError> {
                Err("connection refused".into())
            }
        }
        let s = PerItemFn::new(|_: &str| json!(1));
        let mut cache = PredictionCache::new(&Failing, &s);
        let err = cache
            .stage(&Stage::Invariance("case".into()), ["a"])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "student model failed on the invariance `case`: connection refused"
        );
    }
}
