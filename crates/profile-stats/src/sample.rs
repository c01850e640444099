//! The counts of a classifier profile whose teacher answered a sample of the transformed texts.
//!
//! The clean texts are always fully observed. Each text's corrupted and rewritten versions
//! reached the teacher only when the text was in a seeded uniform sample (`design`). Then:
//!
//! * the corruption and invariance tables of [`ClassifyCounts`](crate::ClassifyCounts)
//!   (`agree`, `changed`) count the **sampled** texts only (`labelled` of them), so their paired
//!   McNemar tests are tests on the sample;
//! * [`ClassifySample`] adds, per corruption, the surrogate of the teacher's corrupted answer
//!   (the student's corrupted answer agrees with the teacher's *clean* answer) crossed with the
//!   observed agreement over the sample and counted over every text; per invariance, the number
//!   of texts whose student answer changed (the surrogate of the teacher's change, and the
//!   student's own fully observed violation count).
//!
//! Every figure that needs the teacher on a transformed text is then a prediction-powered
//! estimate ([`crate::PpiSums`], power-tuned) of its full-profile value; everything else stays
//! exact. All of it adds up across shards, so sampled reports merge exactly.
//!
//! A sample is part of the counts ([`ClassifyCounts::sample`](crate::ClassifyCounts)), so this
//! module sits below `counts`: what needs the stage tables as well (an invariance's sums, the
//! consistency check) is defined there.

use std::ops::AddAssign;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::ppi::{PpiSums, binary_sums, with_binary_units};
use crate::stages::{add_stages, named, same_stages};

paired_counts! {
    /// Per sampled text: the student agrees with the teacher's answer on the corrupted text
    /// (observed), and with the teacher's answer on the clean text (the surrogate).
    ObservedVsSurrogate ("it agrees with the teacher's corrupted answer", "it agrees with the teacher's clean answer") {
        both, observed_only, surrogate_only, neither
    }
}

/// How the teacher's sample was drawn: a fraction of the texts, by content, with a seed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleDesign {
    /// The fraction of texts whose transformed versions the teacher answered.
    pub fraction: f64,
    /// The seed of the per-text draw.
    pub seed: u64,
}

// A design's fraction is in (0, 1] (validated), never NaN, so equality is an equivalence.
impl Eq for SampleDesign {}

/// One corruption of a sampled classifier profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampledCorruption {
    /// Over the sampled texts: observed agreement crossed with the surrogate.
    pub labelled: ObservedVsSurrogate,
    /// Over every text: texts whose student corrupted answer agrees with the teacher's clean
    /// answer.
    pub surrogate: u64,
}

/// One invariance of a sampled classifier profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampledInvariance {
    /// Over every text: texts whose student answer changed under the rewrite.
    pub student_changed: u64,
}

impl AddAssign for SampledCorruption {
    fn add_assign(&mut self, o: SampledCorruption) {
        self.labelled += o.labelled;
        self.surrogate += o.surrogate;
    }
}

impl AddAssign for SampledInvariance {
    fn add_assign(&mut self, o: SampledInvariance) {
        self.student_changed += o.student_changed;
    }
}

/// What a sampled classifier profile counts beyond its (sample-only) stage tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassifySample {
    /// The design.
    pub design: SampleDesign,
    /// Texts in the sample (the teacher answered their transformed versions).
    pub labelled: u64,
    /// Per corruption, in suite order.
    pub corruptions: IndexMap<String, SampledCorruption>,
    /// Per invariance, in suite order.
    pub invariances: IndexMap<String, SampledInvariance>,
    /// When texts repeat: the same counts over distinct texts, each weighted by its squared
    /// line count (the sample's unit is the distinct text; see [`SampleRepeats`]). Absent when
    /// every text is distinct, and from reports written before it existed (which then hold
    /// distinct texts, or under-state their intervals' width as those versions did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<SampleRepeats>,
}

/// A sample's counts over distinct texts, each text `t` weighted by `c_t²`, its number of lines
/// squared: what the variance of a mean needs when the sample is drawn per distinct text
/// (`crate::ppi::RepeatSums`). Every count is `Σ c²` over the distinct texts it describes;
/// without repeats each equals the line count it shadows. The engine adds `2k − 1` for a text's
/// `k`-th line, so the counts are exact and additive over chunks — and over shards as long as
/// each distinct text lies in one shard (docs/teacher-budget.md).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleRepeats {
    /// `Σ c²` over every distinct text.
    pub all: u64,
    /// `Σ c²` over the sampled distinct texts.
    pub labelled: u64,
    /// Per corruption, in suite order: observed agreement crossed with the surrogate over the
    /// sample, and the surrogate over every text.
    pub corruptions: IndexMap<String, SampledCorruption>,
    /// Per invariance, in suite order: the teacher's change (observed) crossed with the
    /// student's (surrogate) over the sample, and the student's change over every text.
    pub invariances: IndexMap<String, SampledCorruption>,
}

impl SampleRepeats {
    /// Empty repeat counts of a sample's stages.
    pub fn new<'a>(
        corruptions: impl IntoIterator<Item = &'a str>,
        invariances: impl IntoIterator<Item = &'a str>,
    ) -> SampleRepeats {
        SampleRepeats {
            all: 0,
            labelled: 0,
            corruptions: named(corruptions),
            invariances: named(invariances),
        }
    }

    fn add(&mut self, o: &SampleRepeats) {
        self.all += o.all;
        self.labelled += o.labelled;
        add_stages(&mut self.corruptions, &o.corruptions);
        add_stages(&mut self.invariances, &o.invariances);
    }
}

impl ClassifySample {
    /// An empty sample of the suite's stages.
    pub fn new<'a>(
        design: SampleDesign,
        corruptions: impl IntoIterator<Item = &'a str>,
        invariances: impl IntoIterator<Item = &'a str>,
    ) -> ClassifySample {
        ClassifySample {
            design,
            labelled: 0,
            corruptions: named(corruptions),
            invariances: named(invariances),
            repeats: None,
        }
    }

    /// Adds `other`'s counts; `mine` and `theirs` are the two samples' repeat counts, those of
    /// a sample without repeats being its line counts (which only the counts holding it know:
    /// `ClassifyCounts::merge` makes them).
    pub(crate) fn merge(
        &mut self,
        other: &ClassifySample,
        units: Option<(SampleRepeats, SampleRepeats)>,
    ) -> Result<(), Error> {
        if self.design != other.design {
            let d = |d: &SampleDesign| format!("fraction {}, seed {}", d.fraction, d.seed);
            return Err(Error::Mismatch {
                what: "teacher samples".into(),
                left: d(&self.design),
                right: d(&other.design),
            });
        }
        same_stages("sampled corruptions", &self.corruptions, &other.corruptions)?;
        same_stages("sampled invariances", &self.invariances, &other.invariances)?;
        self.labelled += other.labelled;
        add_stages(&mut self.corruptions, &other.corruptions);
        add_stages(&mut self.invariances, &other.invariances);
        self.repeats = units.map(|(mut mine, theirs)| {
            mine.add(&theirs);
            mine
        });
        Ok(())
    }

    /// The repeat counts of a sample without repeats: its line counts (`n`: every text;
    /// `changed`: the sample's student-vs-teacher change table of each invariance).
    pub(crate) fn distinct_units(
        &self,
        n: u64,
        changed: impl Fn(&str) -> crate::PairedTable,
    ) -> SampleRepeats {
        SampleRepeats {
            all: n,
            labelled: self.labelled,
            corruptions: self.corruptions.clone(),
            invariances: self
                .invariances
                .iter()
                .map(|(name, i)| {
                    let t = changed(name);
                    let stage = SampledCorruption {
                        // Observed: the teacher changed; surrogate: the student changed.
                        labelled: ObservedVsSurrogate {
                            both: t.both,
                            observed_only: t.second_only,
                            surrogate_only: t.first_only,
                            neither: t.neither,
                        },
                        surrogate: i.student_changed,
                    };
                    (name.clone(), stage)
                })
                .collect(),
        }
    }

    /// The prediction-powered sums of a corruption's agreement (observed: agreement with the
    /// teacher's corrupted answer; surrogate: with its clean answer).
    pub fn corruption_sums(&self, name: &str, n: u64) -> Option<PpiSums> {
        let c = self.corruptions.get(name)?;
        let t = c.labelled.table();
        let sums = binary_sums(t.first(), t.second(), t.both, t.n(), c.surrogate, n);
        Some(self.with_units(sums, |r| r.corruptions.get(name)))
    }

    /// `sums` with the repeat counts of one stage (`stage` picks it), when texts repeat.
    pub(crate) fn with_units(
        &self,
        sums: PpiSums,
        stage: impl Fn(&SampleRepeats) -> Option<&SampledCorruption>,
    ) -> PpiSums {
        match self.repeats.as_ref().and_then(|r| Some((r, stage(r)?))) {
            Some((r, c)) => {
                let t = c.labelled.table();
                let units = [
                    t.first(),
                    t.second(),
                    t.both,
                    r.labelled,
                    c.surrogate,
                    r.all,
                ];
                with_binary_units(sums, units)
            }
            None => sums,
        }
    }
}
