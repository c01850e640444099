//! The command line's models: a `model_adapters` adapter in its prediction cache, with a
//! progress bar per model call (named by side and stage) and the cache's warnings and counts on
//! stderr.

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

use model_adapters::{Adapter, Cached, ModelSpec, Settings};
use suite_core::{Decision, Label, Model, ModelError, SharedLabel, Side, Stage};

use crate::profile::progress::Progress;

/// A model of the command line, usable by the profile functions.
pub(crate) struct CliModel {
    name: String,
    side: Side,
    progress: Arc<Progress>,
    model: Cached<Adapter>,
    /// The stage of the next call, as the engine said ([`Model::before_call`]).
    stage: RefCell<Stage>,
}

/// Moves the call in progress by `n` texts (the adapter and the cache call this).
fn advance(progress: &Arc<Progress>) -> impl Fn(u64) + Send + Sync + 'static {
    let progress = Arc::clone(progress);
    move |n| progress.advance(n)
}

impl CliModel {
    /// Opens the adapter `spec` names (a subprocess starts here, once per run), in the
    /// prediction cache under `cache_dir` unless that is `None`.
    pub(crate) fn open(
        spec: &ModelSpec,
        settings: &Settings,
        cache_dir: Option<&Path>,
        side: Side,
        progress: Arc<Progress>,
    ) -> anyhow::Result<CliModel> {
        let name = spec.to_string();
        let model = spec.open_cached(settings, cache_dir, Some(Arc::new(advance(&progress))))?;
        if let Some(e) = model.take_warning() {
            eprintln!(
                "capkit: warning: no prediction cache for `{name}`: {:#}",
                anyhow::Error::from(e)
            );
        } else if let Some(path) = model.path() {
            // Where the answers go and how big the store is, before any model call.
            let size = model_adapters::cache_size(&path);
            eprintln!(
                "capkit: {side} `{name}`: prediction cache {} ({:.1} MiB)",
                path.display(),
                size as f64 / (1024.0 * 1024.0)
            );
        }
        Ok(CliModel {
            name,
            side,
            progress,
            model,
            stage: RefCell::new(Stage::Clean),
        })
    }

    /// Closes the adapter after a successful profile.
    pub(crate) fn finish(&self) -> anyhow::Result<()> {
        self.model
            .inner()
            .finish()
            .map_err(|e| anyhow::anyhow!("{} model `{}`: {e}", self.side, self.name))?;
        if let Err(e) = self.model.flush() {
            eprintln!(
                "capkit: warning: prediction cache for `{}`: {:#}",
                self.name,
                anyhow::Error::from(e)
            );
        }
        Ok(())
    }

    /// Prints the cache's hits and misses on stderr.
    pub(crate) fn report_cache(&self) {
        if let Some(path) = self.model.path() {
            eprintln!(
                "capkit: {} `{}`: prediction cache {} hits, {} misses ({})",
                self.side,
                self.name,
                self.model.hits(),
                self.model.misses(),
                path.display()
            );
        }
    }
}

impl Model for CliModel {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok(self
            .predict_shared(texts)?
            .into_iter()
            .map(Arc::unwrap_or_clone)
            .collect())
    }

    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        self.progress
            .start_call(self.side, &self.stage.borrow(), texts.len() as u64);
        let answers = self.model.predict_shared(texts);
        self.progress.end_call();
        // A cache only ever saves calls: one that cannot be written is a warning, never a
        // reason to lose the run.
        if let Some(e) = self.model.take_warning() {
            eprintln!(
                "capkit: warning: prediction cache for `{}` not written (its answers are kept for this run only): {:#}",
                self.name,
                anyhow::Error::from(e)
            );
        }
        answers
    }

    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        self.model.decide_batch(texts)
    }

    fn before_call(&self, stage: &Stage, _texts: usize) {
        *self.stage.borrow_mut() = stage.clone();
    }
}
