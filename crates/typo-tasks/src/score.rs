//! Strict scoring of predictions against a task's whole expected set, and per-task summaries.
//!
//! A prediction is normalised exactly as the oracle's output is (drop `""`, the input and
//! duplicates; sort) and nothing else: case, whitespace and Unicode normalisation all count.

use std::collections::BTreeMap;

use crate::{HarnessError, Needs, Registry, Task, Variant};

/// One scored prediction. The lists are sorted bytewise; [`hit`](Self::hit) and
/// [`spurious`](Self::spurious) split [`predict`](Self::predict), [`missed`](Self::missed) is what
/// [`expect`](Self::expect) has that the prediction lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreResult {
    /// The task id.
    pub task: String,
    /// The input name.
    pub input: String,
    /// The oracle's expected set.
    pub expect: Vec<Variant>,
    /// The normalised prediction.
    pub predict: Vec<Variant>,
    /// Predicted members that are expected.
    pub hit: Vec<Variant>,
    /// Expected members not predicted.
    pub missed: Vec<Variant>,
    /// Predicted members not expected.
    pub spurious: Vec<Variant>,
}

impl ScoreResult {
    /// The whole set, nothing missed and nothing invented.
    pub fn exact(&self) -> bool {
        self.missed.is_empty() && self.spurious.is_empty()
    }

    /// `|hit| / |predict|`, and 1 for an empty prediction (it claims nothing false).
    pub fn precision(&self) -> f64 {
        if self.predict.is_empty() {
            1.0
        } else {
            self.hit.len() as f64 / self.predict.len() as f64
        }
    }

    /// `|hit| / |expect|`, and 1 for an empty expected set (there was nothing to find).
    pub fn recall(&self) -> f64 {
        if self.expect.is_empty() {
            1.0
        } else {
            self.hit.len() as f64 / self.expect.len() as f64
        }
    }

    /// `2PR / (P + R)`, and 0 when `P + R` is 0.
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

/// Scores `predict` for `task` on `input`; the oracle runs again to get the expected set.
///
/// ```
/// use typo_tasks::{Data, Registry, Variant, score};
/// let reg = Registry::new(&Data::default());
/// let co = reg.get("co").unwrap();
/// let guess = ["oogle", "gogle", "gogle", "google", "googe", "googl", "goole"];
/// let r = score(co, "google", guess.iter().map(|s| Variant::from(*s)));
/// assert!(r.exact());
/// assert_eq!(r.f1(), 1.0);
/// ```
pub fn score(task: &Task, input: &str, predict: impl IntoIterator<Item = Variant>) -> ScoreResult {
    score_against(task.id, input, task.expect(input), predict)
}

/// Scores `predict` against an expected set already at hand (sorted and unique, as
/// [`Task::expect`] returns it).
pub fn score_against(
    task: &str,
    input: &str,
    expect: Vec<Variant>,
    predict: impl IntoIterator<Item = Variant>,
) -> ScoreResult {
    let mut predict: Vec<Variant> = predict
        .into_iter()
        .filter(|v| !v.is_empty() && v.as_bytes() != input.as_bytes())
        .collect();
    predict.sort_unstable();
    predict.dedup();
    let (hit, spurious): (Vec<Variant>, Vec<Variant>) = predict
        .iter()
        .cloned()
        .partition(|v| expect.binary_search(v).is_ok());
    let missed = expect
        .iter()
        .filter(|v| predict.binary_search(v).is_err())
        .cloned()
        .collect();
    ScoreResult {
        task: task.to_owned(),
        input: input.to_owned(),
        expect,
        predict,
        hit,
        missed,
        spurious,
    }
}

/// One task's macro-averaged scores (the type lives in `profile-types`, shared by every crate
/// that reports results).
pub use profile_types::TaskSummary as Summary;

/// Running sums for one task, added in result order (so the floats match upstream's).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    /// Results added.
    pub n: usize,
    /// Exact results added.
    pub exact: usize,
    /// Sum of precisions.
    pub precision: f64,
    /// Sum of recalls.
    pub recall: f64,
    /// Sum of F1 values.
    pub f1: f64,
}

impl Tally {
    /// Adds one result.
    pub fn add(&mut self, r: &ScoreResult) {
        self.n += 1;
        self.exact += usize::from(r.exact());
        self.precision += r.precision();
        self.recall += r.recall();
        self.f1 += r.f1();
    }

    /// The means, labelled with `task` and `needs`.
    pub fn summary(&self, task: &str, needs: Needs) -> Summary {
        let n = self.n as f64;
        Summary {
            task: task.to_owned(),
            needs,
            n: self.n,
            exact_match: self.exact as f64 / n,
            precision: self.precision / n,
            recall: self.recall / n,
            f1: self.f1 / n,
        }
    }
}

/// Per-task running sums: [`summarize`] for results that arrive one at a time.
#[derive(Debug, Clone, Default)]
pub struct Summarizer {
    tallies: BTreeMap<String, Tally>,
}

impl Summarizer {
    /// An empty summarizer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one result to its task's tally.
    pub fn add(&mut self, r: &ScoreResult) {
        match self.tallies.get_mut(&r.task) {
            Some(t) => t.add(r),
            None => {
                let mut t = Tally::default();
                t.add(r);
                self.tallies.insert(r.task.clone(), t);
            }
        }
    }

    /// One summary per task, in id order, labelled from `registry`; refuses tasks the registry
    /// lacks, since their needs would be unknown.
    pub fn finish(&self, registry: &Registry) -> Result<Vec<Summary>, HarnessError> {
        let missing: Vec<String> = self
            .tallies
            .keys()
            .filter(|id| registry.get(id).is_none())
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Err(HarnessError::UnregisteredResults {
                missing,
                have: registry.ids().into_iter().map(str::to_owned).collect(),
            });
        }
        Ok(self
            .tallies
            .iter()
            .filter_map(|(id, t)| registry.get(id).map(|task| t.summary(id, task.needs)))
            .collect())
    }
}

/// Macro-averaged summaries per task, in id order. Refuses results whose task the registry does
/// not have. No results give no summaries.
pub fn summarize(
    results: &[ScoreResult],
    registry: &Registry,
) -> Result<Vec<Summary>, HarnessError> {
    let mut s = Summarizer::new();
    for r in results {
        s.add(r);
    }
    s.finish(registry)
}
