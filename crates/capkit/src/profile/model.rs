//! The model adapters behind one [`suite_core::Model`]: the prediction cache in front, the
//! decision API answered from what the adapter returned with each prediction, progress per stage.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;

use serde_json::Value;
use suite_core::{AnswerKind, Decision, Label, Model, ModelError, ProtocolError, Side};

use crate::profile::cache::{CachedAnswer, DiskCache};
use crate::profile::progress::Progress;
use crate::profile::spec::ModelSpec;
use crate::profile::{cmd, file, http, openai};

/// Which profile a run computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Task {
    /// `capture_profile`: labels.
    Classify,
    /// `extractive_capture_profile`: records (JSON objects).
    Extract,
}

impl Task {
    /// What the models of this task answer with.
    pub(crate) fn answer_kind(self) -> AnswerKind {
        match self {
            Task::Classify => AnswerKind::Label,
            Task::Extract => AnswerKind::Record,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Task::Classify => "classify",
            Task::Extract => "extract",
        }
    }
}

/// Options shared by the adapters.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub task: Task,
    pub batch_size: usize,
    pub concurrency: usize,
    pub timeout: Duration,
    pub retries: u32,
    pub base_url: String,
    pub api_key_env: String,
    pub prompt_template: Option<String>,
    pub cache_dir: Option<PathBuf>,
}

/// One answer of an adapter: the label (or record) and, when the model has a decision API, its
/// decision on the same text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub output: Label,
    pub decision: Option<Decision>,
}

/// What every adapter does: answer a batch of texts, in order.
pub(crate) trait Backend {
    /// Answers `texts` (in order, one each). `done(n)` reports `n` more texts answered.
    fn answer(&mut self, texts: &[&str], done: &mut dyn FnMut(u64)) -> Result<Vec<Answer>, String>;

    /// Ends the run cleanly (a subprocess gets end-of-input and is waited for).
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }

    /// What the answers depend on besides the text: the cache key's model part. `None`: the
    /// adapter is not cached (precomputed predictions).
    fn identity(&self) -> Option<String>;
}

/// Calls `call` on every item, at most `concurrency` at once, and gathers the answers in item
/// order (so the result does not depend on `concurrency`). The first failure in item order is
/// the error; `done` counts the answers gathered before it.
pub(crate) fn gather_ordered<T: Sync>(
    items: &[T],
    concurrency: usize,
    call: impl Fn(usize, &T) -> Result<Vec<Answer>, String> + Sync,
    done: &mut dyn FnMut(u64),
) -> Result<Vec<Answer>, String> {
    let mut out = Vec::new();
    let mut failed = None;
    chat_client::for_each_ordered(items, concurrency, call, |_, result| match result {
        Ok(answers) if failed.is_none() => {
            done(answers.len() as u64);
            out.extend(answers);
        }
        Ok(_) => {}
        Err(e) => {
            failed.get_or_insert(e);
        }
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Checks an extractor's output; `what` names the answer in the error.
pub(crate) fn check_record(
    task: Task,
    output: &Value,
    what: &dyn Fn() -> String,
) -> Result<(), String> {
    suite_core::check_output(task.answer_kind(), output)
        .map_err(|e| format!("{}: {}", what(), protocol_message(&e)))
}

/// A protocol error's message, values cut to 60 characters.
pub(crate) fn protocol_message(e: &ProtocolError) -> String {
    match e {
        ProtocolError::NotARecord { got } => {
            format!("a record must be a JSON object, got {}", short(got))
        }
        ProtocolError::NotJson { error, line } => {
            format!("not a JSON answer object ({error}): {}", short(line))
        }
        ProtocolError::InAnswer { error, .. } | ProtocolError::InBatch { error, .. } => {
            protocol_message(error)
        }
        other => other.to_string(),
    }
}

/// `s` cut to 60 characters for a message.
pub(crate) fn short(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_owned()
    } else {
        let mut out: String = s.chars().take(57).collect();
        out.push('…');
        out
    }
}

/// The decision an answer line carries: `null` escalates, anything else answers.
pub(crate) use suite_core::decision_of;

struct Inner {
    backend: Box<dyn Backend>,
    cache: Option<DiskCache>,
    /// Decisions by text, kept when the model gives them (only clean texts are asked later, but
    /// a prediction does not know which stage it is in), until the next request for decisions:
    /// a profile asks for the decisions of a chunk's texts once, after predicting them, so
    /// memory stays bounded by the chunk.
    decisions: HashMap<Box<str>, Decision>,
    /// The decisions of the first batch, kept for the whole run: it is the probes, which a
    /// profile predicts once and may meet again as clean texts of any chunk (or, without
    /// probes, one chunk's clean texts).
    first_decisions: HashMap<Box<str>, Decision>,
    has_decisions: bool,
    calls: u64,
}

/// A model of the command line, usable by the profile functions.
pub(crate) struct CliModel {
    name: String,
    side: Side,
    progress: Rc<Progress>,
    inner: RefCell<Inner>,
}

impl CliModel {
    /// Opens the adapter `spec` names (a subprocess starts here, once per run).
    pub(crate) fn open(
        spec: &ModelSpec,
        settings: &Settings,
        side: Side,
        progress: Rc<Progress>,
    ) -> anyhow::Result<CliModel> {
        let name = spec.to_string();
        let backend: Box<dyn Backend> = match spec {
            ModelSpec::Cmd { argv, .. } => Box::new(cmd::CmdBackend::start(&name, argv, settings)?),
            ModelSpec::Http { url } => Box::new(http::HttpBackend::new(&name, url, settings)?),
            ModelSpec::OpenAi { model, base_url } => Box::new(openai::OpenAiBackend::new(
                &name,
                model,
                base_url.as_deref().unwrap_or(&settings.base_url),
                settings,
            )?),
            ModelSpec::File { path } => Box::new(file::FileBackend::load(&name, path, settings)?),
        };
        let cache = match (&settings.cache_dir, backend.identity()) {
            (Some(dir), Some(identity)) => {
                let identity = format!("{}\0{identity}", settings.task.name());
                match DiskCache::open(dir, &identity) {
                    Ok(cache) => Some(cache),
                    Err(e) => {
                        eprintln!("capkit: warning: no prediction cache for `{name}`: {e:#}");
                        None
                    }
                }
            }
            _ => None,
        };
        Ok(CliModel {
            name,
            side,
            progress,
            inner: RefCell::new(Inner {
                backend,
                cache,
                decisions: HashMap::new(),
                first_decisions: HashMap::new(),
                has_decisions: false,
                calls: 0,
            }),
        })
    }

    /// Closes the adapter after a successful profile.
    pub(crate) fn finish(&self) -> anyhow::Result<()> {
        let mut inner = self.inner.borrow_mut();
        inner
            .backend
            .finish()
            .map_err(|e| anyhow::anyhow!("{} model `{}`: {e}", self.side, self.name))?;
        if let Some(cache) = &mut inner.cache
            && let Err(e) = cache.flush()
        {
            eprintln!(
                "capkit: warning: prediction cache for `{}`: {e:#}",
                self.name
            );
        }
        Ok(())
    }

    /// Prints the cache's hits and misses on stderr.
    pub(crate) fn report_cache(&self) {
        let inner = self.inner.borrow();
        if let Some(cache) = &inner.cache {
            eprintln!(
                "capkit: {} `{}`: prediction cache {} hits, {} misses ({})",
                self.side,
                self.name,
                cache.hits(),
                cache.misses(),
                cache.path().display()
            );
        }
    }

    fn predict(&self, texts: &[&str]) -> Result<Vec<Label>, String> {
        let mut inner = self.inner.borrow_mut();
        let inner = &mut *inner;
        inner.calls += 1;
        if inner.calls == 1 {
            // A model's first call opens its run, before any transform of that run has moved
            // the stage tracker (in a comparison, the previous student's run left it at its end).
            self.progress.new_run();
        }
        let bar = self
            .progress
            .stage_bar(self.side, inner.calls, texts.len() as u64);
        let mut answers: Vec<Option<Answer>> = vec![None; texts.len()];
        let mut missing: Vec<usize> = Vec::new();
        match &mut inner.cache {
            Some(cache) => {
                for (i, text) in texts.iter().enumerate() {
                    match cache.get(text) {
                        Some(hit) => {
                            answers[i] = Some(Answer {
                                output: hit.output,
                                decision: hit.decision,
                            });
                        }
                        None => missing.push(i),
                    }
                }
                bar.inc((texts.len() - missing.len()) as u64);
            }
            None => missing.extend(0..texts.len()),
        }
        if !missing.is_empty() {
            let asked: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
            let mut done = |n| bar.inc(n);
            let fresh = inner.backend.answer(&asked, &mut done)?;
            if fresh.len() != asked.len() {
                return Err(format!(
                    "`{}`: {} answers for {} texts",
                    self.name,
                    fresh.len(),
                    asked.len()
                ));
            }
            if let Some(cache) = &mut inner.cache {
                let entries: Vec<(&str, CachedAnswer)> = asked
                    .iter()
                    .zip(&fresh)
                    .map(|(t, a)| {
                        (
                            *t,
                            CachedAnswer {
                                output: a.output.clone(),
                                decision: a.decision.clone(),
                            },
                        )
                    })
                    .collect();
                // A cache only ever saves calls: one that cannot be written is dropped with a
                // warning, never a reason to lose the run.
                if let Err(e) = cache.put_all(entries) {
                    eprintln!(
                        "capkit: warning: prediction cache disabled for `{}`: {e:#}",
                        self.name
                    );
                    inner.cache = None;
                }
            }
            for (i, answer) in missing.into_iter().zip(fresh) {
                answers[i] = Some(answer);
            }
        }
        bar.finish();
        let mut out = Vec::with_capacity(texts.len());
        for (text, answer) in texts.iter().zip(answers) {
            let Some(answer) = answer else {
                return Err(format!("`{}`: no answer for {:?}", self.name, short(text)));
            };
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

    fn decide(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, String>> {
        let mut inner = self.inner.borrow_mut();
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
                        format!(
                            "`{}` gave decisions for some texts but none for {:?}",
                            self.name,
                            short(t)
                        )
                    })
                })
                .collect(),
        )
    }
}

impl Model for CliModel {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        self.predict(texts).map_err(ModelError::from)
    }

    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        self.decide(texts).map(|r| r.map_err(ModelError::from))
    }
}
