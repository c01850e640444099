//! Predict each distinct text at most once per model per chunk of a profile.

use std::sync::Arc;

use crate::textset::TextSet;
use crate::transform::TextHash;
use crate::{Decision, Error, Model, SharedLabel, Side, Stage, Transform};

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

/// What a profile keeps of each answer: the cache calls [`Keep::keep`] once per distinct text and
/// model, as the answer arrives, and stores the result instead of the answer.
///
/// A classifier profile keeps an interned id of the label's comparison form, an extractor
/// profile an interned record id: a few bytes per text instead of a label. [`Keep::reset`] is
/// called between chunks, after which the cache keeps its seeded answers (the probes) again.
pub trait Keep {
    /// What is stored per distinct text and model.
    type Kept: Clone;

    /// What to store of `answer`.
    fn keep(&mut self, answer: SharedLabel) -> Self::Kept;

    /// Forgets everything kept so far (the cache's texts are gone too).
    fn reset(&mut self) {}
}

/// The last answer a [`Keep`] kept and what it made of it: a model that shares one
/// [`SharedLabel`] between texts is recognised by address, without reading the label again.
/// (The answer is held, so its address cannot name another label meanwhile.)
#[derive(Debug, Clone, Default)]
pub struct LastAnswer<T>(Option<(SharedLabel, T)>);

impl<T: Clone> LastAnswer<T> {
    /// What was kept of `answer`, if it is the very label kept last.
    pub fn get(&self, answer: &SharedLabel) -> Option<T> {
        self.0
            .as_ref()
            .filter(|(last, _)| Arc::ptr_eq(last, answer))
            .map(|(_, kept)| kept.clone())
    }

    /// What was kept last (of any answer).
    pub fn kept(&self) -> Option<&T> {
        self.0.as_ref().map(|(_, kept)| kept)
    }

    /// Remembers `answer` and what was kept of it.
    pub fn set(&mut self, answer: SharedLabel, kept: T) {
        self.0 = Some((answer, kept));
    }

    /// Forgets it.
    pub fn clear(&mut self) {
        self.0 = None;
    }
}

/// Keeps every answer as returned (shared, never copied).
#[derive(Debug, Clone, Copy, Default)]
pub struct KeepAnswers;

impl Keep for KeepAnswers {
    type Kept = SharedLabel;
    fn keep(&mut self, answer: SharedLabel) -> SharedLabel {
        answer
    }
}

/// Interns every text a chunk of a profile shows its models and remembers both models' answers,
/// so each distinct text of the chunk (clean, corrupted, rewritten or probe) is predicted once
/// per model.
///
/// Each stage sends one batch per model: the texts of that stage not seen before, in first-seen
/// order. This relies on models being deterministic. Answers are stored as what a [`Keep`]
/// makes of them. [`PredictionCache::seeded`] predicts texts that stay across
/// [`PredictionCache::reset`] (a profile's probes); everything else is forgotten there.
pub struct PredictionCache<'m, K: Keep = KeepAnswers> {
    student: &'m dyn Model,
    teacher: &'m dyn Model,
    texts: TextSet,
    /// blake3 of base texts, computed once for the seeded transforms that read it.
    hashes: Vec<Option<TextHash>>,
    student_out: Vec<K::Kept>,
    teacher_out: Vec<K::Kept>,
    keep: K,
    /// The answers of the seeded texts (ids `0..seeded.len()`), kept again after a reset.
    seeded: Vec<(SharedLabel, SharedLabel)>,
    /// When the teacher answers only a sample of the transformed texts: per position of the
    /// chunk's clean stage, whether it is in the sample ([`PredictionCache::sample_teacher`]).
    sampled: Option<Vec<bool>>,
    /// Per text id, whether the teacher answered it (only kept while sampling).
    teacher_asked: Vec<bool>,
    /// Distinct transformed texts the teacher was not asked about, over every chunk so far.
    teacher_skipped: u64,
}

impl<'m> PredictionCache<'m, KeepAnswers> {
    /// An empty cache over a student and a teacher that keeps every answer as returned.
    pub fn new(student: &'m dyn Model, teacher: &'m dyn Model) -> PredictionCache<'m, KeepAnswers> {
        PredictionCache::with_keep(student, teacher, KeepAnswers)
    }
}

impl<'m, K: Keep> PredictionCache<'m, K> {
    /// An empty cache that stores what `keep` makes of each answer.
    pub fn with_keep(
        student: &'m dyn Model,
        teacher: &'m dyn Model,
        keep: K,
    ) -> PredictionCache<'m, K> {
        PredictionCache {
            student,
            teacher,
            texts: TextSet::default(),
            hashes: Vec::new(),
            student_out: Vec::new(),
            teacher_out: Vec::new(),
            keep,
            seeded: Vec::new(),
            sampled: None,
            teacher_asked: Vec::new(),
            teacher_skipped: 0,
        }
    }

    /// The student model.
    pub fn student_model(&self) -> &'m dyn Model {
        self.student
    }

    /// The teacher model.
    pub fn teacher_model(&self) -> &'m dyn Model {
        self.teacher
    }

    /// What keeps the answers (a profile reads the records or forms it interned).
    pub fn keeper(&self) -> &K {
        &self.keep
    }

    /// Reserves room for `additional` more distinct texts.
    pub fn reserve(&mut self, additional: usize) {
        self.texts.reserve(additional);
        self.student_out.reserve(additional);
        self.teacher_out.reserve(additional);
    }

    /// Number of distinct texts predicted so far (per model), seeded texts included.
    pub fn distinct_texts(&self) -> usize {
        self.texts.len()
    }

    /// The student's answer for a text id.
    pub fn student(&self, id: u32) -> &K::Kept {
        &self.student_out[id as usize]
    }

    /// The teacher's answer for a text id. While the teacher answers a sample only
    /// ([`PredictionCache::sample_teacher`]), a text it was not asked about holds the student's
    /// answer as a placeholder: check [`PredictionCache::teacher_answered`] first.
    pub fn teacher(&self, id: u32) -> &K::Kept {
        &self.teacher_out[id as usize]
    }

    /// Whether the teacher answered a text id (always, unless it answers a sample only).
    pub fn teacher_answered(&self, id: u32) -> bool {
        self.sampled.is_none()
            || self
                .teacher_asked
                .get(id as usize)
                .copied()
                .unwrap_or(false)
    }

    /// From here until [`PredictionCache::reset`], the teacher answers the transformed texts of
    /// the clean positions marked `true` only (`sampled[j]` for position `j` of the clean stage
    /// every transformed stage is derived from); every text interned so far (the clean texts,
    /// the probes) was answered. The student answers everything.
    pub fn sample_teacher(&mut self, sampled: Vec<bool>) {
        self.teacher_asked = vec![true; self.texts.len()];
        self.sampled = Some(sampled);
    }

    /// Whether the clean position `j` is in the teacher's sample (`true` when not sampling).
    pub fn teacher_sampled(&self, j: usize) -> bool {
        self.sampled
            .as_ref()
            .is_none_or(|s| s.get(j).copied().unwrap_or(false))
    }

    /// Distinct transformed texts the teacher was not asked about because their clean text was
    /// not in its sample, over every chunk so far: the teacher calls the sample saved.
    pub fn teacher_skipped(&self) -> u64 {
        self.teacher_skipped
            + self.sampled.as_ref().map_or(0, |_| {
                self.teacher_asked.iter().filter(|&&a| !a).count() as u64
            })
    }

    /// The answer of `side` for a text id.
    pub fn output(&self, side: Side, id: u32) -> &K::Kept {
        match side {
            Side::Student => self.student(id),
            Side::Teacher => self.teacher(id),
        }
    }

    /// The text behind an id.
    pub fn text(&self, id: u32) -> &str {
        self.texts.get(id)
    }

    /// The blake3 hash of the text behind an id, when the cache has it (every clean text of a
    /// profile's chunk: the driver hashed it to fingerprint it).
    pub fn text_hash(&self, id: u32) -> Option<&TextHash> {
        self.hashes.get(id as usize).and_then(Option::as_ref)
    }

    /// A cache whose first texts stay across [`PredictionCache::reset`]: a profile's probes,
    /// interned and predicted here, once for the whole profile. Returns the cache, the seeded
    /// texts' ids and both sides' answers, one per text.
    #[allow(clippy::type_complexity)]
    pub fn seeded<I, S>(
        student: &'m dyn Model,
        teacher: &'m dyn Model,
        keep: K,
        stage: &Stage,
        texts: I,
    ) -> Result<
        (
            PredictionCache<'m, K>,
            StageIds,
            Vec<SharedLabel>,
            Vec<SharedLabel>,
        ),
        Error,
    >
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut cache = PredictionCache::with_keep(student, teacher, keep);
        let ids: Vec<u32> = texts
            .into_iter()
            .map(|t| cache.texts.insert(t.as_ref()))
            .collect();
        let mut raw = Vec::new();
        cache.predict_new(stage, 0, Some(&mut raw))?;
        cache.seeded = raw;
        let answers = |pick: fn(&(SharedLabel, SharedLabel)) -> &SharedLabel| {
            ids.iter()
                .map(|&id| Arc::clone(pick(&cache.seeded[id as usize])))
                .collect::<Vec<_>>()
        };
        let (student, teacher) = (answers(|a| &a.0), answers(|a| &a.1));
        Ok((cache, StageIds(ids), student, teacher))
    }

    /// Forgets every text but the seeded ones (and what was kept of their answers), keeping
    /// the allocations for the next chunk. The seeded texts' answers are kept again.
    pub fn reset(&mut self) {
        self.teacher_skipped = self.teacher_skipped();
        self.sampled = None;
        self.teacher_asked.clear();
        let seeded = self.seeded.len();
        self.texts.truncate(seeded);
        self.texts.shrink();
        self.hashes.truncate(seeded);
        self.student_out.clear();
        self.teacher_out.clear();
        self.keep.reset();
        for (s, t) in &self.seeded {
            self.student_out.push(self.keep.keep(Arc::clone(s)));
            self.teacher_out.push(self.keep.keep(Arc::clone(t)));
        }
    }

    /// Interns a stage's texts and predicts the new ones with both models.
    pub fn stage<I, S>(&mut self, stage: &Stage, texts: I) -> Result<StageIds, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let first_new = self.texts.len();
        let ids = texts
            .into_iter()
            .map(|t| self.texts.insert(t.as_ref()))
            .collect();
        self.predict_new(stage, first_new, None)?;
        Ok(StageIds(ids))
    }

    /// [`PredictionCache::stage`] for texts whose hashes the caller has computed (`hashes[i]` must
    /// be [`TextHash::of`]`(texts[i])`): seeded transforms of these texts reuse them.
    pub fn stage_hashed(
        &mut self,
        stage: &Stage,
        texts: &[&str],
        hashes: &[TextHash],
    ) -> Result<StageIds, Error> {
        let first_new = self.texts.len();
        let mut ids = Vec::with_capacity(texts.len());
        for (text, hash) in texts.iter().zip(hashes) {
            let id = self.texts.insert(text) as usize;
            if self.hashes.len() <= id {
                self.hashes.resize(id + 1, None);
            }
            self.hashes[id] = Some(*hash);
            ids.push(id as u32);
        }
        self.predict_new(stage, first_new, None)?;
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
        let ids = if transform.has_batch() {
            // All distinct texts at once, interned in order of first occurrence as below.
            let mut distinct = Vec::new();
            for &id in &base.0 {
                if mapped[id as usize] == u32::MAX {
                    mapped[id as usize] = 0;
                    distinct.push(id);
                }
            }
            let outputs = {
                let texts: Vec<&str> = distinct.iter().map(|&id| self.texts.get(id)).collect();
                let outputs = if transform.uses_text_hash() {
                    // The hashes the clean stage computed, shared with the seeded bulk form.
                    let hashes: Vec<TextHash> = distinct
                        .iter()
                        .zip(&texts)
                        .map(|(&id, t)| {
                            self.hashes
                                .get(id as usize)
                                .copied()
                                .flatten()
                                .unwrap_or_else(|| TextHash::of(t))
                        })
                        .collect();
                    transform.apply_batch_with_hashes(&texts, &hashes)
                } else {
                    transform.apply_batch(&texts)
                };
                if outputs.len() == texts.len() {
                    outputs
                } else {
                    // A bulk form that broke its contract: the per-text form is the truth.
                    texts.iter().map(|t| transform.apply(t)).collect()
                }
            };
            for (&id, out) in distinct.iter().zip(&outputs) {
                mapped[id as usize] = self.texts.insert(out);
            }
            base.0.iter().map(|&id| mapped[id as usize]).collect()
        } else {
            self.transform_each(base, transform, &mut mapped)
        };
        if self.sampled.is_some() {
            self.predict_sampled(stage, first_new, &ids)?;
        } else {
            self.predict_new(stage, first_new, None)?;
        }
        Ok(StageIds(ids))
    }

    /// [`PredictionCache::transformed`]'s per-text path: each distinct text of `base` transformed
    /// (with its shared hash when the transform reads one) and interned; `mapped` records the
    /// result of each base id.
    fn transform_each(
        &mut self,
        base: &StageIds,
        transform: &Transform,
        mapped: &mut [u32],
    ) -> Vec<u32> {
        let first_new = mapped.len();
        let mut ids = Vec::with_capacity(base.len());
        let hashed = transform.uses_text_hash();
        if hashed && self.hashes.len() < first_new {
            self.hashes.resize(first_new, None);
        }
        let mut out = String::new();
        for &id in &base.0 {
            let slot = id as usize;
            if mapped[slot] == u32::MAX {
                let text = self.texts.get(id);
                if hashed {
                    let hash = self.hashes[slot].get_or_insert_with(|| TextHash::of(text));
                    transform.apply_into(text, Some(hash), &mut out);
                } else {
                    transform.apply_into(text, None, &mut out);
                }
                mapped[slot] = self.texts.insert(&out);
            }
            ids.push(mapped[slot]);
        }
        ids
    }

    /// Predicts a transformed stage's new texts with the student, and with the teacher those of
    /// the sampled clean positions it has not answered yet (a text reached from a sampled and an
    /// unsampled position is answered; the unsampled position does not use it).
    fn predict_sampled(
        &mut self,
        stage: &Stage,
        first_new: usize,
        ids: &[u32],
    ) -> Result<(), Error> {
        let end = self.texts.len();
        if first_new < end {
            let batch: Vec<&str> = (first_new..end)
                .map(|id| self.texts.get(id as u32))
                .collect();
            let student = call(self.student, Side::Student, stage, &batch)?;
            drop(batch);
            let keep = &mut self.keep;
            let placeholders: Vec<K::Kept> = student.into_iter().map(|s| keep.keep(s)).collect();
            self.student_out.extend(placeholders.iter().cloned());
            // The student's answers hold the teacher's places until (unless) it is asked.
            self.teacher_out.extend(placeholders);
            self.teacher_asked.resize(end, false);
        }
        let mut wanted: Vec<u32> = Vec::new();
        for (j, &id) in ids.iter().enumerate() {
            if self.teacher_sampled(j) && !self.teacher_asked[id as usize] {
                self.teacher_asked[id as usize] = true;
                wanted.push(id);
            }
        }
        if wanted.is_empty() {
            return Ok(());
        }
        let batch: Vec<&str> = wanted.iter().map(|&id| self.texts.get(id)).collect();
        let teacher = call(self.teacher, Side::Teacher, stage, &batch)?;
        drop(batch);
        for (id, answer) in wanted.into_iter().zip(teacher) {
            self.teacher_out[id as usize] = self.keep.keep(answer);
        }
        Ok(())
    }

    fn predict_new(
        &mut self,
        stage: &Stage,
        first_new: usize,
        raw: Option<&mut Vec<(SharedLabel, SharedLabel)>>,
    ) -> Result<(), Error> {
        let end = self.texts.len();
        if first_new == end {
            return Ok(());
        }
        let batch: Vec<&str> = (first_new..end)
            .map(|id| self.texts.get(id as u32))
            .collect();
        let student = call(self.student, Side::Student, stage, &batch)?;
        let teacher = call(self.teacher, Side::Teacher, stage, &batch)?;
        drop(batch);
        if let Some(raw) = raw {
            raw.extend(student.iter().cloned().zip(teacher.iter().cloned()));
        }
        // One side after the other: a model that shares one label between its answers is then
        // recognised by address (`LastAnswer`) on every answer but its first.
        let keep = &mut self.keep;
        self.student_out
            .extend(student.into_iter().map(|s| keep.keep(s)));
        self.teacher_out
            .extend(teacher.into_iter().map(|t| keep.keep(t)));
        if self.sampled.is_some() {
            self.teacher_asked.resize(end, true);
        }
        Ok(())
    }

    /// Escalation rates of both sides' decision APIs on the clean texts, or `None` when neither
    /// side has one. Each distinct clean text is decided once. Zero texts give `0.0` for a side
    /// with a decision API.
    pub fn abstention(&self, clean: &StageIds) -> Result<Option<profile_types::Abstention>, Error> {
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
        Ok(escalations.any().then(|| profile_types::Abstention {
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
            model.before_call(&Stage::Decisions, batch.len());
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

fn call(
    model: &dyn Model,
    side: Side,
    stage: &Stage,
    batch: &[&str],
) -> Result<Vec<SharedLabel>, Error> {
    model.before_call(stage, batch.len());
    let out = model.predict_shared(batch).map_err(|source| Error::Model {
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
    use profile_types::Label;
    use serde_json::json;
    use std::cell::RefCell;

    struct Counting<'a>(&'a RefCell<Vec<usize>>);
    impl Model for Counting<'_> {
        fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, crate::ModelError> {
            self.0.borrow_mut().push(texts.len());
            Ok(texts.iter().map(|t| json!(t)).collect())
        }
    }

    /// The bulk path of `transformed` (a transform with a batch form) interns, predicts and
    /// samples exactly as the per-text path (it once went around the teacher's sample).
    #[test]
    fn a_bulk_transform_is_the_per_text_transform_sampled_or_not() {
        let upper = Transform::new(|s| s.to_uppercase());
        let bulk = upper
            .clone()
            .with_batch(|texts| texts.iter().map(|t| t.to_uppercase()).collect());
        for sampled in [None, Some(vec![true, false, false, true])] {
            let run = |transform: &Transform| {
                let (student_calls, teacher_calls) =
                    (RefCell::new(Vec::new()), RefCell::new(Vec::new()));
                let (s, t) = (Counting(&student_calls), Counting(&teacher_calls));
                let mut cache = PredictionCache::new(&s, &t);
                let clean = cache.stage(&Stage::Clean, ["a", "b", "c", "a"]).unwrap();
                if let Some(sample) = &sampled {
                    cache.sample_teacher(sample.clone());
                }
                let up = cache
                    .transformed(&Stage::Corruption("up".into()), &clean, transform)
                    .unwrap();
                let asked: Vec<bool> = up
                    .ids()
                    .iter()
                    .map(|&id| cache.teacher_answered(id))
                    .collect();
                let calls = (
                    student_calls.borrow().clone(),
                    teacher_calls.borrow().clone(),
                );
                (up, asked, calls)
            };
            assert_eq!(run(&bulk), run(&upper), "sampled: {sampled:?}");
        }
    }

    /// A model that records the stage events the engine sends it.
    struct Told<'a>(&'a RefCell<Vec<String>>);
    impl Model for Told<'_> {
        fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, crate::ModelError> {
            self.0.borrow_mut().push(format!("call {}", texts.len()));
            Ok(texts.iter().map(|t| json!(t)).collect())
        }
        fn before_call(&self, stage: &Stage, texts: usize) {
            self.0.borrow_mut().push(format!("{stage}: {texts}"));
        }
    }

    /// Progress is told by the engine: each call is announced with its stage and size, through
    /// wrappers too.
    #[test]
    fn the_engine_announces_each_call_with_its_stage() {
        let events = RefCell::new(Vec::new());
        let told = Told(&events);
        let memo = crate::Memo::new(&told);
        let t = PerItemFn::new(|t: &str| json!(t.len()));
        let mut cache = PredictionCache::new(&memo, &t);
        let clean = cache.stage(&Stage::Clean, ["a", "b", "a"]).unwrap();
        let upper = Transform::new(|s| s.to_uppercase());
        cache
            .transformed(&Stage::Invariance("up".into()), &clean, &upper)
            .unwrap();
        assert_eq!(
            *events.borrow(),
            ["clean texts: 2", "call 2", "invariance `up`: 2", "call 2"]
        );
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
        assert_eq!(**cache.student(3), json!("B"));
        assert_eq!(**cache.teacher(3), json!(1));
    }

    /// Counts the answers a [`Keep`] had to read: those its [`LastAnswer`] did not recognise.
    #[derive(Default)]
    struct ReadCount {
        last: LastAnswer<()>,
        read: usize,
    }
    impl Keep for ReadCount {
        type Kept = ();
        fn keep(&mut self, answer: SharedLabel) {
            if self.last.get(&answer).is_none() {
                self.read += 1;
                self.last.set(answer, ());
            }
        }
    }

    #[test]
    fn a_label_shared_by_each_side_is_read_once_per_side_and_batch() {
        let pos: SharedLabel = Arc::new(json!("pos"));
        let neg: SharedLabel = Arc::new(json!("neg"));
        let s = PerItemFn::new(move |_: &str| Arc::clone(&pos));
        let t = BatchFn::new(move |ts: &[&str]| vec![Arc::clone(&neg); ts.len()]);
        let mut cache = PredictionCache::with_keep(&s, &t, ReadCount::default());
        cache.stage(&Stage::Clean, ["a", "b", "c", "d"]).unwrap();
        assert_eq!(cache.keep.read, 2, "one read per side, not one per answer");
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
