//! The model interface `capture` and `extractive` call.

use std::sync::Arc;

use profile_types::Label;

use crate::stage::Stage;
use profile_types::value::py_str;

/// A label (or record) behind a reference count: a model that gives many texts the same answer
/// returns clones of one `SharedLabel` ([`Model::predict_shared`]), and a profile recognises a
/// repeated answer by its address, without copying, hashing or freeing it per text.
///
/// ```
/// use std::sync::Arc;
/// use suite_core::{Model, PerItemFn, SharedLabel};
/// use serde_json::json;
///
/// let pos: SharedLabel = Arc::new(json!("pos"));
/// let student = PerItemFn::new(move |_: &str| Arc::clone(&pos));
/// let answers = student.predict_shared(&["a", "b"]).unwrap();
/// assert!(Arc::ptr_eq(&answers[0], &answers[1]), "one label, shared");
/// assert_eq!(student.predict_batch(&["a"]).unwrap(), [json!("pos")]);
/// ```
pub type SharedLabel = Arc<Label>;

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

/// The decision an answer carries, as the model protocol, the prediction caches and Python's
/// `decide` write it: `null` escalates, anything else answers.
pub fn decision_of(value: Label) -> Decision {
    match value {
        Label::Null => Decision::Escalate,
        v => Decision::Answer(v),
    }
}

/// A model under profile: a classifier (labels) or an extractor (records, as JSON objects).
///
/// Models are assumed deterministic: a profile predicts each distinct text once and reuses the
/// answer wherever the text reappears.
///
/// Profiles ask for answers through [`Model::predict_shared`]; a model implements
/// [`Model::predict_batch`] (owned labels, the simple way) and may override `predict_shared` to
/// return one [`SharedLabel`] for many texts without a heap copy per answer ([`PerItemFn`] and
/// [`BatchFn`] do when their closure returns `SharedLabel`s).
pub trait Model {
    /// Predicts one output per text, in order. Returning a different number of outputs is an error
    /// the profile reports (never a silently shortened profile).
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError>;

    /// [`Model::predict_batch`] as shared values: what profiles call. The default wraps each
    /// owned label; a model that returns the same label for many texts overrides it to hand out
    /// clones of one [`SharedLabel`].
    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        Ok(self
            .predict_batch(texts)?
            .into_iter()
            .map(Arc::new)
            .collect())
    }

    /// The optional decision API: `None` when the model has none (the default). Decisions are only
    /// requested on the clean texts.
    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        let _ = texts;
        None
    }

    /// Told by the engine, just before it calls this model, which stage the call is for and how
    /// many texts it sends: progress displays name the stage from it instead of guessing. The
    /// default ignores it; a wrapper passes it on to the model it wraps.
    fn before_call(&self, stage: &Stage, texts: usize) {
        let _ = (stage, texts);
    }
}

impl<M: Model + ?Sized> Model for &M {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        (**self).predict_batch(texts)
    }
    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        (**self).predict_shared(texts)
    }
    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        (**self).decide_batch(texts)
    }
    fn before_call(&self, stage: &Stage, texts: usize) {
        (**self).before_call(stage, texts);
    }
}

impl<M: Model + ?Sized> Model for Box<M> {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        (**self).predict_batch(texts)
    }
    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        (**self).predict_shared(texts)
    }
    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        (**self).decide_batch(texts)
    }
    fn before_call(&self, stage: &Stage, texts: usize) {
        (**self).before_call(stage, texts);
    }
}

/// Upstream's label comparison: equal Python `str()` forms (`1` agrees with `"1"`, `null` with
/// `"None"`, objects compare in key order).
pub fn labels_agree(a: &Label, b: &Label) -> bool {
    py_str(a) == py_str(b)
}

type DecideFn = Box<dyn Fn(&str) -> Decision + Send + Sync>;

/// A model from a per-item function, optionally with a per-item decision function. The function
/// returns a [`Label`], or a [`SharedLabel`] to share one answer between texts.
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

impl<F> PerItemFn<F> {
    /// A model that predicts each text with `predict`.
    pub fn new<R>(predict: F) -> PerItemFn<F>
    where
        F: Fn(&str) -> R,
        R: Into<SharedLabel>,
    {
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

impl<F, R> Model for PerItemFn<F>
where
    F: Fn(&str) -> R,
    R: Into<SharedLabel>,
{
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok(texts
            .iter()
            .map(|t| Arc::unwrap_or_clone((self.predict)(t).into()))
            .collect())
    }
    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        Ok(texts.iter().map(|t| (self.predict)(t).into()).collect())
    }
    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        let decide = self.decide.as_ref()?;
        Some(Ok(texts.iter().map(|t| decide(t)).collect()))
    }
}

type BatchDecideFn = Box<dyn Fn(&[&str]) -> Vec<Decision> + Send + Sync>;

/// A model from a batch function, optionally with a batch decision function. The function returns
/// [`Label`]s, or [`SharedLabel`]s to share answers between texts.
pub struct BatchFn<F> {
    predict: F,
    decide: Option<BatchDecideFn>,
}

impl<F> BatchFn<F> {
    /// A model that predicts whole batches with `predict`.
    pub fn new<R>(predict: F) -> BatchFn<F>
    where
        F: Fn(&[&str]) -> Vec<R>,
        R: Into<SharedLabel>,
    {
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

impl<F, R> Model for BatchFn<F>
where
    F: Fn(&[&str]) -> Vec<R>,
    R: Into<SharedLabel>,
{
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok((self.predict)(texts)
            .into_iter()
            .map(|r| Arc::unwrap_or_clone(r.into()))
            .collect())
    }
    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        Ok((self.predict)(texts).into_iter().map(Into::into).collect())
    }
    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        let decide = self.decide.as_ref()?;
        Some(Ok(decide(texts)))
    }
}
