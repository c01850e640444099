//! `capkit-py`: the Python package `capkit_rs` (distribution `capkit-rs`), built by maturin.
//!
//! The bindings adapt; they never re-implement. Every rule (profiles, transforms, typo tasks,
//! mutator scoring) lives in the Rust crates; this crate only turns Python values into Rust values,
//! reaches Python models the way upstream mixle reaches them, and builds the plain `dict`s mixle
//! returns. Everything is behind the `python` feature so that `cargo test --workspace` needs no
//! Python toolchain (maturin enables it; see `pyproject.toml`).
#![forbid(unsafe_code)]

#[cfg(feature = "python")]
mod adapters;
#[cfg(feature = "python")]
mod cache;
#[cfg(feature = "python")]
mod cli;
#[cfg(feature = "python")]
mod convert;
#[cfg(feature = "python")]
mod errors;
#[cfg(feature = "python")]
mod files;
#[cfg(feature = "python")]
mod fingerprint;
#[cfg(feature = "python")]
mod model;
#[cfg(feature = "python")]
mod mutator;
#[cfg(feature = "python")]
mod native;
#[cfg(feature = "python")]
mod page;
#[cfg(feature = "python")]
mod plan;
#[cfg(feature = "python")]
mod profile;
#[cfg(feature = "python")]
mod progress;
#[cfg(feature = "python")]
mod report;
#[cfg(feature = "python")]
mod reprs;
#[cfg(feature = "python")]
mod suite;
#[cfg(feature = "python")]
mod transform;
#[cfg(feature = "python")]
mod typo;

#[cfg(feature = "python")]
use pyo3::prelude::*;

/// The native module `capkit_rs._native`; the Python package re-exports its public face.
#[cfg(feature = "python")]
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    profile::register(m)?;
    typo::register(m)?;
    mutator::register(m)?;
    report::register(m)?;
    plan::register(m)?;
    fingerprint::register(m)?;
    adapters::register(m)?;
    cache::register(m)?;
    files::register(m)?;
    cli::register(m)?;
    suite::register(m)?;
    page::register(m)?;
    m.add_class::<model::PerItem>()?;
    Ok(())
}
