//! The dispatch: a [`ModelSpec`] opened as the [`Adapter`] of its scheme. The one module that
//! knows every backend; no backend knows it.

use std::path::Path;
use std::sync::Arc;

use crate::Cached;
use crate::adapter::Adapter;
use crate::backend::Backend;
use crate::error::Error;
use crate::settings::Settings;
use crate::spec::ModelSpec;
use crate::{cmd, file};

impl ModelSpec {
    /// Opens the model for `settings.task`: a `cmd:` subprocess starts here (once; it answers
    /// every batch of the adapter's life), a `file:` model's predictions are read and checked
    /// into a lookup file in a temporary directory (removed with the adapter; see
    /// [`ModelSpec::open_cached`] to keep it), `http:`/`openai:` models are checked and connect
    /// on their first batch.
    pub fn open(&self, settings: &Settings) -> Result<Adapter, Error> {
        self.open_in(settings, None)
    }

    /// [`ModelSpec::open`], a `file:` model's lookup file and an `openai:` model's replies kept
    /// in `cache_dir` when given.
    fn open_in(&self, settings: &Settings, cache_dir: Option<&Path>) -> Result<Adapter, Error> {
        let name = self.to_string();
        let backend: Box<dyn Backend> = match self {
            ModelSpec::Cmd { argv, .. } => Box::new(cmd::CmdBackend::start(&name, argv, settings)?),
            ModelSpec::Http { url } => http(&name, url, settings)?,
            ModelSpec::OpenAi { model, base_url } => openai(
                &name,
                model,
                base_url.as_deref().unwrap_or(&settings.base_url),
                settings,
                cache_dir,
            )?,
            ModelSpec::File { path } => {
                Box::new(file::FileBackend::load(&name, path, settings, cache_dir)?)
            }
        };
        Ok(Adapter::new(name, settings.task, backend))
    }

    /// Opens the model for `settings.task` (see [`ModelSpec::open`]) in the prediction cache
    /// under `cache_dir`, or in a pass-through cache without one: the one assembly of spec,
    /// adapter and cache that `capkit profile` and `capkit_rs.models` both run. `progress`, if
    /// given, moves by the texts answered, from the model (misses) and from the cache (hits).
    /// A cache that cannot be opened is not an error: the model answers uncached and the cache
    /// keeps the warning ([`Cached::take_warning`](crate::Cached::take_warning)). A `file:`
    /// model is not cached (its answers are on disk already) but keeps its lookup file in
    /// `cache_dir/file-segments/`, named by the file's contents: a later run over the
    /// unchanged file opens it instead of reading every line again. An `openai:` model keeps
    /// its raw replies in the cache's database ([`ReplyDatabase`](crate::ReplyDatabase),
    /// instead of [`Settings::reply_cache`]).
    pub fn open_cached(
        &self,
        settings: &Settings,
        cache_dir: Option<&Path>,
        progress: Option<Progress>,
    ) -> Result<Cached<Adapter>, Error> {
        let mut adapter = self.open_in(settings, cache_dir)?;
        if let Some(progress) = &progress {
            let progress = Arc::clone(progress);
            adapter = adapter.with_progress(move |n| progress(n));
        }
        let mut model = match cache_dir {
            Some(dir) => adapter.cached(dir),
            None => Cached::pass_through(adapter),
        };
        if let Some(progress) = progress {
            model = model.with_progress(move |n| progress(n));
        }
        Ok(model)
    }
}

/// A callback moved by the number of texts answered (a progress bar, say).
pub type Progress = Arc<dyn Fn(u64) + Send + Sync>;

#[cfg(feature = "http")]
fn http(name: &str, url: &str, settings: &Settings) -> Result<Box<dyn Backend>, Error> {
    Ok(Box::new(crate::http::HttpBackend::new(
        name, url, settings,
    )?))
}

#[cfg(not(feature = "http"))]
fn http(name: &str, _: &str, _: &Settings) -> Result<Box<dyn Backend>, Error> {
    Err(Error::Unsupported {
        model: name.to_owned(),
        scheme: "http",
        feature: "http",
    })
}

#[cfg(feature = "openai")]
fn openai(
    name: &str,
    model: &str,
    base_url: &str,
    settings: &Settings,
    cache_dir: Option<&Path>,
) -> Result<Box<dyn Backend>, Error> {
    Ok(Box::new(crate::openai::OpenAiBackend::new(
        name, model, base_url, settings, cache_dir,
    )?))
}

#[cfg(not(feature = "openai"))]
fn openai(
    name: &str,
    _: &str,
    _: &str,
    _: &Settings,
    _: Option<&Path>,
) -> Result<Box<dyn Backend>, Error> {
    Err(Error::Unsupported {
        model: name.to_owned(),
        scheme: "openai",
        feature: "openai",
    })
}
