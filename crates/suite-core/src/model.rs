//! The model interface `capture` and `extractive` call.

use profile_types::Label;
use profile_types::value::py_str;

/// The error a model may return; the profile wraps it with the side and the stage.
pub type ModelError = Box<dyn std::error::Error + Send + Sync>;

/// One answer of a decision API: answer locally, or hand the text on.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// The model answers with this label (or record).
    Answer(Label),
    /// The model escalates (upstream: a decision of exactly `None`).
    Escalate,
}

/// A model under profile: a classifier (labels) or an extractor (records, as JSON objects).
///
/// Models are assumed deterministic: a profile predicts each distinct text once and reuses the
/// answer wherever the text reappears.
pub trait Model {
    /// Predicts one output per text, in order. Returning a different number of outputs is an error
    /// the profile reports (never a silently shortened profile).
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError>;

    /// The optional decision API: `None` when the model has none (the default). Decisions are only
    /// requested on the clean texts.
    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        let _ = texts;
        None
    }
}

impl<M: Model + ?Sized> Model for &M {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        (**self).predict_batch(texts)
    }
    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        (**self).decide_batch(texts)
    }
}

impl<M: Model + ?Sized> Model for Box<M> {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        (**self).predict_batch(texts)
    }
    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        (**self).decide_batch(texts)
    }
}

/// Upstream's label comparison: equal Python `str()` forms (`1` agrees with `"1"`, `null` with
/// `"None"`, objects compare in key order).
pub fn labels_agree(a: &Label, b: &Label) -> bool {
    py_str(a) == py_str(b)
}

type DecideFn = Box<dyn Fn(&str) -> Decision + Send + Sync>;

/// A model from a per-item function, optionally with a per-item decision function.
///
/// ```
/// use suite_core::{Decision, Model, PerItemFn};
/// use serde_json::json;
///
/// let m = PerItemFn::new(|t: &str| json!(t.len()))
///     .with_decide(|t: &str| if t.is_empty() { Decision::Escalate } else { Decision::Answer(json!(t.len())) });
/// assert_eq!(m.predict_batch(&["ab", ""]).unwrap(), [json!(2), json!(0)]);
/// assert_eq!(m.decide_batch(&[""]).unwrap().unwrap(), [Decision::Escalate]);
/// ```
pub struct PerItemFn<F> {
    predict: F,
    decide: Option<DecideFn>,
}

impl<F: Fn(&str) -> Label> PerItemFn<F> {
    /// A model that predicts each text with `predict`.
    pub fn new(predict: F) -> PerItemFn<F> {
        PerItemFn {
            predict,
            decide: None,
        }
    }

    /// Adds a decision API.
    pub fn with_decide(
        mut self,
        decide: impl Fn(&str) -> Decision + Send + Sync + 'static,
    ) -> Self {
        self.decide = Some(Box::new(decide));
        self
    }
}

impl<F: Fn(&str) -> Label> Model for PerItemFn<F> {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok(texts.iter().map(|t| (self.predict)(t)).collect())
    }
    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        let decide = self.decide.as_ref()?;
        Some(Ok(texts.iter().map(|t| decide(t)).collect()))
    }
}

type BatchDecideFn = Box<dyn Fn(&[&str]) -> Vec<Decision> + Send + Sync>;

/// A model from a batch function, optionally with a batch decision function.
pub struct BatchFn<F> {
    predict: F,
    decide: Option<BatchDecideFn>,
}

impl<F: Fn(&[&str]) -> Vec<Label>> BatchFn<F> {
    /// A model that predicts whole batches with `predict`.
    pub fn new(predict: F) -> BatchFn<F> {
        BatchFn {
            predict,
            decide: None,
        }
    }

    /// Adds a batch decision API.
    pub fn with_decide(
        mut self,
        decide: impl Fn(&[&str]) -> Vec<Decision> + Send + Sync + 'static,
    ) -> Self {
        self.decide = Some(Box::new(decide));
        self
    }
}

impl<F: Fn(&[&str]) -> Vec<Label>> Model for BatchFn<F> {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok((self.predict)(texts))
    }
    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        let decide = self.decide.as_ref()?;
        Some(Ok(decide(texts)))
    }
}
