//! An incremental corpus fingerprint (BLAKE3 of JSONL bytes fed in pieces), so a corpus written
//! shard by shard is fingerprinted as it is written, never read back.

use std::io::Write;
use std::sync::Mutex;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use typo_tasks::FingerprintWriter;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Fingerprinter>()
}

/// `Fingerprinter()`: feed JSONL bytes with `update(b)` in corpus order; `hexdigest()` is the
/// corpus fingerprint (`blake3:…`), the same as `fingerprint(all_bytes)`.
#[pyclass(module = "capkit_rs.typo", frozen)]
pub(crate) struct Fingerprinter {
    writer: Mutex<FingerprintWriter<std::io::Sink>>,
}

#[pymethods]
impl Fingerprinter {
    #[new]
    fn new() -> Fingerprinter {
        Fingerprinter {
            writer: Mutex::new(FingerprintWriter::new(std::io::sink())),
        }
    }

    /// Adds the next bytes of the corpus.
    fn update(&self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        py.detach(|| {
            let mut writer = self
                .writer
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            writer.write_all(data)
        })
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// `blake3:<hex>` of every byte added so far.
    fn hexdigest(&self) -> String {
        let writer = self
            .writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        writer.fingerprint().to_string()
    }
}
