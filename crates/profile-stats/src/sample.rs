//! The counts of a classifier profile whose teacher answered a sample of the transformed texts.
//!
//! The clean texts are always fully observed. Each text's corrupted and rewritten versions
//! reached the teacher only when the text was in a seeded uniform sample (`design`). Then:
//!
//! * the corruption and invariance tables of [`ClassifyCounts`] (`agree`, `changed`) count the
//!   **sampled** texts only (`labelled` of them), so their paired McNemar tests are tests on the
//!   sample;
//! * [`ClassifySample`] adds, per corruption, the surrogate of the teacher's corrupted answer
//!   (the student's corrupted answer agrees with the teacher's *clean* answer) crossed with the
//!   observed agreement over the sample and counted over every text; per invariance, the number
//!   of texts whose student answer changed (the surrogate of the teacher's change, and the
//!   student's own fully observed violation count).
//!
//! Every figure that needs the teacher on a transformed text is then a prediction-powered
//! estimate ([`crate::PpiSums`], power-tuned) of its full-profile value; everything else stays
//! exact. All of it adds up across shards, so sampled reports merge exactly.

use std::ops::AddAssign;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::counts::{ClassifyCounts, add_stages, same_stages};
use crate::interval::{Level, wilson};
use crate::paired::PairedTable;
use crate::ppi::{PpiEstimate, PpiSums, Tuning};

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
}

/// The method every estimated figure names.
pub const PPI_METHOD: &str = "ppi_power_tuned";

/// What [`PPI_METHOD`] means, for the report's glossary.
pub const PPI_DESCRIPTION: &str = "prediction-powered inference, power-tuned (PPI++: Angelopoulos, \
     Duchi, Zrnic 2023; ppi_py.ppi_mean_ci's estimate and normal interval): the teacher answered \
     the transformed texts of a seeded uniform sample; the figure is lambda * mean(surrogate over \
     every text) + mean(observed - lambda * surrogate over the sample), lambda chosen from the \
     data in [0, 1], limits clipped to the figure's range; when every sampled outcome is the \
     same (no event, or only events) the interval is widened to include Wilson's score interval \
     of the sample, as the normal one would have zero width; a difference with a fully observed \
     rate is that rate minus the estimate; no sampled text gives estimate null";

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
            corruptions: crate::counts::named(corruptions),
            invariances: crate::counts::named(invariances),
        }
    }

    pub(crate) fn merge(&mut self, other: &ClassifySample) -> Result<(), Error> {
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
        Ok(())
    }

    /// The prediction-powered sums of a corruption's agreement (observed: agreement with the
    /// teacher's corrupted answer; surrogate: with its clean answer).
    pub fn corruption_sums(&self, name: &str, n: u64) -> Option<PpiSums> {
        let c = self.corruptions.get(name)?;
        let t = c.labelled.table();
        Some(binary_sums(
            t.first(),
            t.second(),
            t.both,
            t.n(),
            c.surrogate,
            n,
        ))
    }

    /// The prediction-powered sums of an invariance's teacher violation rate (observed: the
    /// teacher's answer changed; surrogate: the student's changed), from the sample's
    /// student-vs-teacher table.
    pub fn invariance_sums(&self, counts: &ClassifyCounts, name: &str) -> Option<PpiSums> {
        let i = self.invariances.get(name)?;
        let t = counts.invariances.get(name)?.changed.table();
        Some(binary_sums(
            t.second(),
            t.first(),
            t.both,
            t.n(),
            i.student_changed,
            counts.n,
        ))
    }

    pub(crate) fn validate(&self, counts: &ClassifyCounts) -> Result<(), Error> {
        let at = "counts.sample";
        let f = self.design.fraction;
        if !(f > 0.0 && f <= 1.0) {
            return Err(invalid(
                &format!("{at}.design.fraction"),
                format!("must be in (0, 1], got {f}"),
            ));
        }
        if self.labelled > counts.n {
            return Err(invalid(&format!("{at}.labelled"), "exceeds n".into()));
        }
        if !self.corruptions.keys().eq(counts.corruptions.keys())
            || !self.invariances.keys().eq(counts.invariances.keys())
        {
            return Err(invalid(at, "its stages are not the counts' stages".into()));
        }
        for (name, c) in &self.corruptions {
            let here = format!("{at}.corruptions.{name}");
            let observed = counts.corruptions[name].agree.table().second();
            if c.labelled.n() != self.labelled {
                return Err(invalid(
                    &format!("{here}.labelled"),
                    format!(
                        "its cells count {} texts, the sample has {}",
                        c.labelled.n(),
                        self.labelled
                    ),
                ));
            }
            if c.labelled.table().first() != observed {
                return Err(invalid(
                    &format!("{here}.labelled"),
                    "both + observed_only must equal the corrupted agreement of the sample".into(),
                ));
            }
            let sampled_surrogate = c.labelled.table().second();
            if c.surrogate > counts.n || c.surrogate < sampled_surrogate {
                return Err(invalid(
                    &format!("{here}.surrogate"),
                    "must count between the sample's surrogates and n texts".into(),
                ));
            }
        }
        for (name, i) in &self.invariances {
            let sampled = counts.invariances[name].changed.table().first();
            if i.student_changed > counts.n || i.student_changed < sampled {
                return Err(invalid(
                    &format!("{at}.invariances.{name}.student_changed"),
                    "must count between the sample's student changes and n texts".into(),
                ));
            }
        }
        Ok(())
    }
}

/// The power-tuned estimate of a rate, limits clipped to `[0, 1]`.
///
/// When every sampled text has the same outcome (no event at all, or nothing but events),
/// the sample covaries with nothing, so the tuning picks λ = 0 and the estimate is the plain
/// sample rate, 0 or 1, whose normal interval has zero width however small the sample: it
/// would claim the full profile has no event from, say, 143 texts without one. The interval
/// is then widened to include Wilson's score interval of the sample (never of zero width);
/// everywhere else it is the PPI++ interval as is.
pub fn estimate_rate(sums: &PpiSums, level: Level) -> Option<PpiEstimate> {
    sums.estimate(Tuning::Power, level).map(|mut e| {
        let binary = sums.y_y == sums.y;
        let constant = sums.y == 0 || sums.y == sums.labelled as i64;
        if binary && constant {
            let w = wilson(sums.y.unsigned_abs(), sums.labelled, level);
            e.lower = e.lower.min(w.lower);
            e.upper = e.upper.max(w.upper);
        }
        e.lower = e.lower.clamp(0.0, 1.0);
        e.upper = e.upper.clamp(0.0, 1.0);
        e
    })
}

fn binary_sums(y: u64, yhat: u64, both: u64, labelled: u64, yhat_all: u64, all: u64) -> PpiSums {
    let i = |v: u64| v as i64;
    PpiSums {
        labelled,
        y: i(y),
        yhat: i(yhat),
        y_y: i(y),
        y_yhat: i(both),
        yhat_yhat: i(yhat),
        all,
        yhat_all: i(yhat_all),
        yhat_yhat_all: i(yhat_all),
    }
}

fn invalid(at: &str, message: String) -> Error {
    Error::Invalid {
        at: at.to_owned(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_without_an_event_gets_wilsons_interval_not_a_zero_width_one() {
        let level = Level::new(0.95).unwrap();
        // 143 sampled texts without a teacher or student change; 6 student changes in 3,027.
        let none = binary_sums(0, 0, 0, 143, 6, 3027);
        let normal = none.estimate(Tuning::Power, level).unwrap();
        assert_eq!((normal.lower, normal.upper), (0.0, 0.0));
        let e = estimate_rate(&none, level).unwrap();
        assert_eq!((e.estimate, e.lower), (0.0, 0.0));
        assert_eq!(e.upper, wilson(0, 143, level).upper);
        assert!(e.upper > 0.02, "{e:?}");
        // Nothing but events: the mirror image.
        let all = binary_sums(143, 143, 143, 143, 3000, 3027);
        let e = estimate_rate(&all, level).unwrap();
        assert_eq!((e.estimate, e.upper), (1.0, 1.0));
        assert_eq!(e.lower, wilson(143, 143, level).lower);
        // A sample with events keeps its PPI++ interval.
        let some = binary_sums(10, 9, 8, 143, 200, 3027);
        let ppi = some.estimate(Tuning::Power, level).unwrap();
        let e = estimate_rate(&some, level).unwrap();
        assert_eq!(
            (e.lower, e.upper),
            (ppi.lower.clamp(0.0, 1.0), ppi.upper.clamp(0.0, 1.0))
        );
    }
}
