//! A model that remembers its answers across profiles.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use foldhash::fast::FixedState;
use profile_types::Label;

use crate::{Decision, Model, ModelError, SharedLabel};

/// Wraps a model so that each distinct text reaches it once, however many profiles ask: one
/// teacher profiled against several students answers every text once (`compare_students`).
///
/// Answers (and decisions) are kept by text, in memory, until [`Memo::forget`] (a comparison
/// forgets them after each chunk of texts, so its memory stays bounded by the chunk). Like every
/// profile, this assumes the wrapped model is deterministic.
///
/// ```
/// use std::cell::Cell;
/// use suite_core::{Memo, Model, PerItemFn};
/// use serde_json::json;
///
/// let calls = Cell::new(0);
/// let teacher = PerItemFn::new(|t: &str| { calls.set(calls.get() + 1); json!(t.len()) });
/// let memo = Memo::new(&teacher);
/// assert_eq!(memo.predict_batch(&["ab", "c", "ab"]).unwrap(), [json!(2), json!(1), json!(2)]);
/// assert_eq!(memo.predict_batch(&["c", "ab"]).unwrap(), [json!(1), json!(2)]);
/// assert_eq!(calls.get(), 2, "each distinct text once");
/// ```
pub struct Memo<'m> {
    inner: &'m dyn Model,
    labels: RefCell<HashMap<String, SharedLabel, FixedState>>,
    decisions: RefCell<HashMap<String, Decision, FixedState>>,
}

impl<'m> Memo<'m> {
    /// Wraps `inner`.
    pub fn new(inner: &'m dyn Model) -> Memo<'m> {
        Memo {
            inner,
            labels: RefCell::default(),
            decisions: RefCell::default(),
        }
    }

    /// Forgets every answer and decision kept so far.
    pub fn forget(&self) {
        self.labels.borrow_mut().clear();
        self.decisions.borrow_mut().clear();
    }
}

/// Calls `ask` with the texts `known` lacks (each once, first-seen order), stores the answers,
/// and returns the answer of every text. `None` when `ask` does (no decision API).
fn remembered<T: Clone>(
    known: &RefCell<HashMap<String, T, FixedState>>,
    texts: &[&str],
    what: &str,
    ask: impl FnOnce(&[&str]) -> Option<Result<Vec<T>, ModelError>>,
) -> Option<Result<Vec<T>, ModelError>> {
    let mut known = known.borrow_mut();
    let mut asked: HashSet<&str, FixedState> = HashSet::default();
    let missing: Vec<&str> = texts
        .iter()
        .copied()
        .filter(|t| !known.contains_key(*t) && asked.insert(t))
        .collect();
    if !missing.is_empty() || known.is_empty() {
        let answers = match ask(&missing)? {
            Ok(answers) => answers,
            Err(e) => return Some(Err(e)),
        };
        if answers.len() != missing.len() {
            return Some(Err(format!(
                "returned {} {what} for {} texts",
                answers.len(),
                missing.len()
            )
            .into()));
        }
        known.extend(missing.into_iter().map(str::to_owned).zip(answers));
    }
    Some(Ok(texts
        .iter()
        .filter_map(|t| known.get(*t).cloned())
        .collect()))
}

impl Model for Memo<'_> {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok(self
            .predict_shared(texts)?
            .into_iter()
            .map(std::sync::Arc::unwrap_or_clone)
            .collect())
    }

    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        remembered(&self.labels, texts, "predictions", |missing| {
            Some(self.inner.predict_shared(missing))
        })
        .unwrap_or_else(|| Ok(Vec::new()))
    }

    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        remembered(&self.decisions, texts, "decisions", |missing| {
            self.inner.decide_batch(missing)
        })
    }

    fn before_call(&self, stage: &crate::Stage, texts: usize) {
        self.inner.before_call(stage, texts);
    }
}
