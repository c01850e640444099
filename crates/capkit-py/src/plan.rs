//! Planning a profile for execution elsewhere (Ray): which distinct texts each stage sends the
//! models, computed by the profile engine itself over models that answer nothing, so the plan is
//! exactly what a single-process profile would ask.

use pyo3::prelude::*;

use profile_types::Label;
use suite_core::{Model, ModelError, PredictionCache, Stage};

use crate::convert::texts_of;
use crate::errors::suite_error;
use crate::profile::rust_suite;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_plan_texts, m)?)?;
    Ok(())
}

/// A model that is never really asked: the plan only needs the texts.
struct Silent;

impl Model for Silent {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok(vec![Label::Null; texts.len()])
    }
}

/// `(text, stage)` for every distinct text a profile of `texts` under `suite` sends each model,
/// in the order the engine first sends it, with the stage that first sends it (`clean`,
/// `corruption:NAME`, `invariance:NAME`). Probes are not included.
#[pyfunction]
fn _plan_texts(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    suite: &Bound<'_, PyAny>,
) -> PyResult<Vec<(String, String)>> {
    let texts = texts_of(texts)?;
    let (suite, _probes) = rust_suite(suite, &texts)?;
    py.detach(|| -> Result<Vec<(String, String)>, suite_core::Error> {
        let mut cache = PredictionCache::new(&Silent, &Silent);
        let mut plan = Vec::new();
        let mut take = |cache: &PredictionCache<'_>, from: usize, stage: String| {
            for id in from..cache.distinct_texts() {
                plan.push((cache.text(id as u32).to_owned(), stage.clone()));
            }
        };
        let from = cache.distinct_texts();
        let clean = cache.stage(&Stage::Clean, texts.iter().map(String::as_str))?;
        take(&cache, from, "clean".to_owned());
        for (name, transform) in suite.corruptions() {
            let from = cache.distinct_texts();
            cache.transformed(&Stage::Corruption(name.to_owned()), &clean, transform)?;
            take(&cache, from, format!("corruption:{name}"));
        }
        for (name, transform) in suite.invariances() {
            let from = cache.distinct_texts();
            cache.transformed(&Stage::Invariance(name.to_owned()), &clean, transform)?;
            take(&cache, from, format!("invariance:{name}"));
        }
        Ok(plan)
    })
    .map_err(|e| suite_error(py, e))
}
