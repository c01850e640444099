//! Planning a profile: the teacher's sampling design (the teacher-budget rule), how texts are
//! cut into shards, and which distinct texts a profile sends its models — computed by the
//! profile engine itself over models that answer nothing, so a plan is exactly what a
//! single-process profile asks (a sampled teacher included). Ray runs shards by this plan.

use profile_types::Label;
use suite_core::{
    CapabilitySuite, Model, ModelError, PredictionCache, Stage, TeacherSample, TextHash,
};

use crate::error::Error;

/// How a teacher sample is asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SampleRequest {
    /// A fraction of the texts, in (0, 1].
    Fraction(f64),
    /// A budget of teacher calls on transformed texts: the fraction is
    /// `BUDGET / (stages × texts)`, at most 1 (deduplication only lowers the calls).
    Budget(u64),
}

/// The teacher's sampling design of `request` for `texts` texts under a suite of `stages`
/// transformed stages, drawn with `seed` (`None`: the full profile). An extractor profile
/// (`extract`) refuses a sample ([`profile_stats::RATIO_SAMPLE_REFUSED`] says why). A profile
/// split into shards samples each shard with the fraction of the *whole* run, so the shards
/// agree with a single run.
pub fn teacher_design(
    request: Option<SampleRequest>,
    seed: u64,
    extract: bool,
    stages: usize,
    texts: u64,
) -> Result<Option<TeacherSample>, Error> {
    let Some(request) = request else {
        return Ok(None);
    };
    let budget = matches!(request, SampleRequest::Budget(_));
    let refused = |message: String| Error::Sample { budget, message };
    if extract {
        return Err(refused(profile_stats::RATIO_SAMPLE_REFUSED.to_owned()));
    }
    let design = match request {
        SampleRequest::Fraction(f) => TeacherSample::new(f, seed),
        SampleRequest::Budget(b) => TeacherSample::for_budget(b, stages, texts, seed),
    };
    design.map(Some).map_err(|e| refused(e.to_string()))
}

/// The `[start, end)` ranges of `count` items cut into `shards` contiguous shards of
/// ⌈count / shards⌉ items (at most one shard per item: fewer shards than asked for when there
/// are fewer items, and the last ones may be shorter or empty); no items are one empty shard.
pub fn shard_ranges(count: usize, shards: usize) -> Vec<(usize, usize)> {
    let shards = shards.clamp(1, count.max(1));
    let size = count.div_ceil(shards);
    (0..shards)
        .map(|i| ((i * size).min(count), ((i + 1) * size).min(count)))
        .collect()
}

/// A model that is never really asked: a plan only needs the texts.
struct Silent;

impl Model for Silent {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok(vec![Label::Null; texts.len()])
    }
}

/// The distinct probe texts a report of `suite` asks both models about, once for all its texts
/// and shards, in the order the engine sends them.
pub fn plan_probes(suite: &CapabilitySuite) -> Result<Vec<String>, suite_core::Error> {
    let mut cache = PredictionCache::new(&Silent, &Silent);
    cache.stage(&Stage::Probes, suite.probes().iter().map(String::as_str))?;
    Ok((0..cache.distinct_texts())
        .map(|id| cache.text(id as u32).to_owned())
        .collect())
}

/// One distinct text a profile sends the student.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedText {
    /// The text sent.
    pub text: String,
    /// The stage that first sends it: `clean`, `corruption:NAME` or `invariance:NAME`.
    pub stage: String,
    /// Whether the teacher is asked about it too.
    pub teacher: bool,
}

/// Every distinct text a profile of `texts` under `suite` sends the student, in the order the
/// engine first sends it, with the stage that first sends it and whether the teacher is asked
/// about it too: always, unless `sample` samples the teacher, when a transformed text reaches it
/// only from a sampled text (the engine's rule, text by text). Probes are not included.
pub fn plan_texts(
    texts: &[String],
    suite: &CapabilitySuite,
    sample: Option<&TeacherSample>,
) -> Result<Vec<PlannedText>, suite_core::Error> {
    let mut cache = PredictionCache::new(&Silent, &Silent);
    let mut plan = Vec::new();
    let mut take = |cache: &PredictionCache<'_>, from: usize, stage: String| {
        for id in from..cache.distinct_texts() {
            plan.push(PlannedText {
                text: cache.text(id as u32).to_owned(),
                stage: stage.clone(),
                teacher: true,
            });
        }
    };
    let from = cache.distinct_texts();
    let clean = cache.stage(&Stage::Clean, texts.iter().map(String::as_str))?;
    take(&cache, from, "clean".to_owned());
    if let Some(sample) = sample {
        // Per position of the clean stage, as the engine draws it (by content).
        cache.sample_teacher(
            texts
                .iter()
                .map(|t| sample.includes(&TextHash::of(t)))
                .collect(),
        );
    }
    for (name, transform) in suite.corruptions() {
        let from = cache.distinct_texts();
        cache.transformed(&Stage::Corruption(name.to_owned()), &clean, transform)?;
        take(&cache, from, format!("corruption:{name}"));
    }
    for (name, transform) in suite.invariances() {
        let from = cache.distinct_texts();
        cache.transformed(&Stage::Invariance(name.to_owned()), &clean, transform)?;
        take(&cache, from, format!("invariance:{name}"));
    }
    // Whether the teacher was asked is known once every stage has run (a text first sent from
    // an unsampled text may reach the teacher later from a sampled one).
    for (id, entry) in plan.iter_mut().enumerate() {
        entry.teacher = cache.teacher_answered(id as u32);
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_item_once() {
        assert_eq!(shard_ranges(0, 3), [(0, 0)]);
        assert_eq!(shard_ranges(2, 5), [(0, 1), (1, 2)]);
        assert_eq!(shard_ranges(10, 3), [(0, 4), (4, 8), (8, 10)]);
    }

    #[test]
    fn the_budget_rule_is_one_rule() {
        let budget = teacher_design(Some(SampleRequest::Budget(50)), 0, false, 5, 100).unwrap();
        assert_eq!(budget.map(|d| d.fraction()), Some(0.1));
        let err = teacher_design(Some(SampleRequest::Budget(0)), 0, false, 5, 100).unwrap_err();
        assert!(matches!(err, Error::Sample { .. }), "{err}");
        let err = teacher_design(Some(SampleRequest::Fraction(0.5)), 0, true, 5, 100).unwrap_err();
        assert_eq!(err.to_string(), profile_stats::RATIO_SAMPLE_REFUSED);
        assert!(teacher_design(None, 0, true, 5, 100).unwrap().is_none());
    }
}
