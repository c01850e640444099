//! [`Adapter`]: a backend as a [`suite_core::Model`], its decision API answered from what the
//! backend returned with each prediction.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use suite_core::{Decision, Label, Model, ModelError};

use crate::backend::{Answer, Backend, short};
use crate::error::Error;
use crate::settings::Task;

/// A progress callback: `n` more texts answered.
pub(crate) type OnAnswered = Arc<dyn Fn(u64) + Send + Sync>;

struct Inner {
    backend: Box<dyn Backend>,
    /// Decisions by text, kept when the model gives them (only clean texts are asked later, but
    /// a prediction does not know which stage it is in), until the next request for decisions:
    /// a profile asks for the decisions of a chunk's texts once, after predicting them, so
    /// memory stays bounded by the chunk.
    decisions: HashMap<Box<str>, Decision>,
    /// The decisions of the first batch, kept for the adapter's life: it is the probes, which a
    /// profile predicts once and may meet again as clean texts of any chunk (or, without
    /// probes, one chunk's clean texts).
    first_decisions: HashMap<Box<str>, Decision>,
    has_decisions: bool,
    calls: u64,
}

/// A model named by a [`ModelSpec`](crate::ModelSpec), opened with
/// [`ModelSpec::open`](crate::ModelSpec::open): usable wherever a [`suite_core::Model`] is
/// (`capture::capture_profile`, `extractive::extractive_capture_profile`, …).
///
/// Calls are serialised (one batch at a time; `http:` and `openai:` models run
/// [`Settings::concurrency`](crate::Settings::concurrency) requests within it). A `cmd:`
/// subprocess lives as long as its adapter; [`Adapter::finish`] ends it cleanly, dropping the
/// adapter kills it. Wrap an adapter in [`Cached`](crate::Cached) (see [`Adapter::cached`]) to
/// keep its answers on disk.
pub struct Adapter {
    name: String,
    task: Task,
    identity: Option<String>,
    inner: Mutex<Inner>,
    progress: Option<OnAnswered>,
}

impl Adapter {
    pub(crate) fn new(name: String, task: Task, backend: Box<dyn Backend>) -> Adapter {
        Adapter {
            name,
            task,
            identity: backend.identity(),
            inner: Mutex::new(Inner {
                backend,
                decisions: HashMap::new(),
                first_decisions: HashMap::new(),
                has_decisions: false,
                calls: 0,
            }),
            progress: None,
        }
    }

    /// The model's name: its spec, URL credentials scrubbed.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the model answers with.
    pub fn task(&self) -> Task {
        self.task
    }

    /// What its answers depend on besides the text (the task, the program and arguments, the
    /// URL, the model name and prompt), the key of its [`Cached`](crate::Cached) answers; `None`
    /// for a `file:` model, whose answers are on disk already.
    pub fn cache_identity(&self) -> Option<String> {
        self.identity
            .as_ref()
            .map(|identity| format!("{}\0{identity}", self.task.name()))
    }

    /// Calls `on_answered(n)` as the model answers, `n` texts at a time (for progress bars).
    pub fn with_progress(mut self, on_answered: impl Fn(u64) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(on_answered));
        self
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Ends the model after a successful run: a `cmd:` subprocess gets end-of-input and is
    /// waited for (killed after 5 s). The adapter answers nothing afterwards.
    pub fn finish(&self) -> Result<(), Error> {
        self.inner().backend.finish()
    }

    fn answer(&self, texts: &[&str]) -> Result<Vec<Label>, Error> {
        let mut inner = self.inner();
        let inner = &mut *inner;
        inner.calls += 1;
        let mut done = |n: u64| {
            if let Some(progress) = &self.progress {
                progress(n);
            }
        };
        let answers: Vec<Answer> = inner.backend.answer(texts, &mut done)?;
        if answers.len() != texts.len() {
            return Err(Error::Model(format!(
                "`{}`: {} answers for {} texts",
                self.name,
                answers.len(),
                texts.len()
            )));
        }
        let mut out = Vec::with_capacity(texts.len());
        for (text, answer) in texts.iter().zip(answers) {
            if let Some(decision) = answer.decision {
                inner.has_decisions = true;
                let kept = if inner.calls == 1 {
                    &mut inner.first_decisions
                } else {
                    &mut inner.decisions
                };
                kept.insert((*text).into(), decision);
            }
            out.push(answer.output);
        }
        Ok(out)
    }

    fn decide(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, Error>> {
        let mut inner = self.inner();
        if !inner.has_decisions {
            return None;
        }
        let decisions = std::mem::take(&mut inner.decisions);
        Some(
            texts
                .iter()
                .map(|t| {
                    let known = decisions.get(*t).or_else(|| inner.first_decisions.get(*t));
                    known.cloned().ok_or_else(|| {
                        Error::Model(format!(
                            "`{}` gave decisions for some texts but none for {:?}",
                            self.name,
                            short(t)
                        ))
                    })
                })
                .collect(),
        )
    }
}

impl std::fmt::Debug for Adapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Adapter")
            .field("name", &self.name)
            .field("task", &self.task)
            .finish_non_exhaustive()
    }
}

impl Model for Adapter {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.answer(texts).map_err(ModelError::from)
    }

    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        self.decide(texts).map(|r| r.map_err(ModelError::from))
    }
}
