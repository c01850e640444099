//! Progress from Python: `progress=` callables of the report functions, told before each model
//! call which side, model, stage and how many texts (the engine's `Model::before_call`, the
//! same events the command line's progress lines come from).

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use profile_types::Label;
use suite_core::{Decision, Model, ModelError, SharedLabel, Side, Stage};

/// A model whose calls are announced to a Python callable. An exception the callable raises
/// stops the profile at the model's next call, as the model's own exception would (the very
/// object, with the side and stage noted).
pub(crate) struct Announced<M> {
    model: M,
    side: Side,
    name: Option<String>,
    callback: Option<Py<PyAny>>,
    failed: Mutex<Option<PyErr>>,
}

impl<M: Model> Announced<M> {
    pub(crate) fn new(
        model: M,
        side: Side,
        name: Option<String>,
        callback: Option<&Bound<'_, PyAny>>,
    ) -> Announced<M> {
        Announced {
            model,
            side,
            name,
            callback: callback.map(|c| c.clone().unbind()),
            failed: Mutex::new(None),
        }
    }

    /// The callable's exception, once.
    fn failure(&self) -> Option<ModelError> {
        let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        failed.take().map(|e| Box::new(e) as ModelError)
    }
}

impl<M: Model> Model for Announced<M> {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        if let Some(e) = self.failure() {
            return Err(e);
        }
        self.model.predict_batch(texts)
    }

    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        if let Some(e) = self.failure() {
            return Err(e);
        }
        self.model.predict_shared(texts)
    }

    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        if let Some(e) = self.failure() {
            return Some(Err(e));
        }
        self.model.decide_batch(texts)
    }

    fn before_call(&self, stage: &Stage, texts: usize) {
        self.model.before_call(stage, texts);
        let Some(callback) = &self.callback else {
            return;
        };
        Python::attach(|py| {
            let event = PyDict::new(py);
            let told = (|| -> PyResult<()> {
                event.set_item("side", self.side.to_string())?;
                event.set_item("model", self.name.as_deref())?;
                event.set_item("stage", stage.to_string())?;
                event.set_item("texts", texts)?;
                callback.call1(py, (event,))?;
                Ok(())
            })();
            if let Err(e) = told {
                *self.failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
            }
        });
    }
}
