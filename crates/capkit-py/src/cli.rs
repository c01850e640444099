//! The wheel's `capkit` command: the console script `capkit_rs._cli:main` runs the command line
//! itself (`capkit::main_with`), so `pip install capkit-rs` gives the same CLI as the binary.

use std::process::ExitCode;

use pyo3::prelude::*;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_cli_main, m)?)?;
    Ok(())
}

/// The status an [`ExitCode`] stands for (`ExitCode` keeps it private; every code the command
/// line returns is one of `0..=255`).
fn status(code: ExitCode) -> u8 {
    (0..=u8::MAX)
        .find(|&k| ExitCode::from(k) == code)
        .unwrap_or(1)
}

/// `_cli_main(argv) -> int`: runs the command line `argv` (the program's name first) with the
/// GIL released, and returns its exit status.
#[pyfunction]
fn _cli_main(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> u8 {
    py.detach(|| status(capkit::main_with(argv)))
}
