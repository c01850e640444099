//! The dispatch: a [`ModelSpec`] opened as the [`Adapter`] of its scheme. The one module that
//! knows every backend; no backend knows it.

use crate::adapter::Adapter;
use crate::backend::Backend;
use crate::error::Error;
use crate::settings::Settings;
use crate::spec::ModelSpec;
use crate::{cmd, file};

impl ModelSpec {
    /// Opens the model for `settings.task`: a `cmd:` subprocess starts here (once; it answers
    /// every batch of the adapter's life), a `file:` model's predictions are read and checked,
    /// `http:`/`openai:` models are checked and connect on their first batch.
    pub fn open(&self, settings: &Settings) -> Result<Adapter, Error> {
        let name = self.to_string();
        let backend: Box<dyn Backend> = match self {
            ModelSpec::Cmd { argv, .. } => Box::new(cmd::CmdBackend::start(&name, argv, settings)?),
            ModelSpec::Http { url } => http(&name, url, settings)?,
            ModelSpec::OpenAi { model, base_url } => openai(
                &name,
                model,
                base_url.as_deref().unwrap_or(&settings.base_url),
                settings,
            )?,
            ModelSpec::File { path } => Box::new(file::FileBackend::load(&name, path, settings)?),
        };
        Ok(Adapter::new(name, settings.task, backend))
    }
}

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
) -> Result<Box<dyn Backend>, Error> {
    Ok(Box::new(crate::openai::OpenAiBackend::new(
        name, model, base_url, settings,
    )?))
}

#[cfg(not(feature = "openai"))]
fn openai(name: &str, _: &str, _: &str, _: &Settings) -> Result<Box<dyn Backend>, Error> {
    Err(Error::Unsupported {
        model: name.to_owned(),
        scheme: "openai",
        feature: "openai",
    })
}
