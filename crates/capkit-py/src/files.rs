//! Files written and read for Python callers: `OSError`s that name the file, a check that an
//! output path can be written before any work starts, and the atomic write the `capkit` command
//! line uses for its outputs (a temporary file `.NAME.capkit-*.tmp` beside the destination,
//! synced, then renamed over it), so a refusal or a failure never leaves a partial file and an
//! existing file stays as it was.
//!
//! The naming, the creation, the sync and the rename are the library `outfile`'s, which the
//! command line writes with too (its sweep finds these files by their names); this module adds
//! the Python errors.

use std::io;
use std::path::{Path, PathBuf};

use outfile::{Staged, parent_dir};
pub(crate) use outfile::{WriteError, write_atomically};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;

/// An `OSError` naming `path`: Python picks the subclass from the errno (`FileNotFoundError`,
/// `PermissionError`, ...), and `filename` is set, so `str(err)` names the file.
pub(crate) fn os_error(path: &Path, err: &io::Error, what: &str) -> PyErr {
    // `tempfile` wraps its errors with the temporary path, which names nothing the caller asked
    // for, and hides the OS error number: keep the OS's text and recover the number from the kind.
    let text = err.to_string();
    let text = text.split(" at path ").next().unwrap_or(&text);
    let message = format!("{what}: {text}");
    match err.raw_os_error().or_else(|| errno_of(err.kind())) {
        Some(errno) => PyOSError::new_err((errno, message, path.display().to_string())),
        None => PyOSError::new_err(format!("{}: {message}", path.display())),
    }
}

/// The POSIX error number of the kinds a file write meets (the same numbers on Linux and macOS),
/// so that Python raises the matching `OSError` subclass.
fn errno_of(kind: io::ErrorKind) -> Option<i32> {
    use io::ErrorKind as K;
    Some(match kind {
        K::NotFound => 2,
        K::PermissionDenied => 13,
        K::AlreadyExists => 17,
        K::NotADirectory => 20,
        K::IsADirectory => 21,
        K::StorageFull => 28,
        K::ReadOnlyFilesystem => 30,
        _ => return None,
    })
}

/// Refuses an output path a file cannot be written to (a directory, a missing directory, a
/// directory that takes no new file), before a long run: an `OSError` naming it.
pub(crate) fn check_writable(path: &Path) -> PyResult<()> {
    if path.is_dir() {
        return Err(os_error(
            path,
            &io::Error::from(io::ErrorKind::IsADirectory),
            "cannot write",
        ));
    }
    // Permissions alone cannot tell (root, ACLs, read-only mounts): try a file.
    Staged::create(path).map(drop).map_err(|e| {
        os_error(
            parent_dir(path),
            &e,
            "cannot create a file in this directory",
        )
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_write_atomically, m)?)?;
    Ok(())
}

/// `_write_atomically(path, data)`: `data` written to `path` as the command line writes its
/// outputs (a temporary file `.NAME.capkit-*.tmp` beside it, synced, renamed into place, removed
/// on failure; the mode the umask gives a new file), with the GIL released; an `OSError` naming
/// the file on failure. For the package's Python modules (`capkit_rs.ray`'s corpus shards).
#[pyfunction]
fn _write_atomically(py: Python<'_>, path: PathBuf, data: &[u8]) -> PyResult<()> {
    py.detach(|| write_bytes_atomically(&path, data))
}

/// [`write_atomically`] of bytes at hand, as an `OSError` on failure.
pub(crate) fn write_bytes_atomically(dest: &Path, bytes: &[u8]) -> PyResult<()> {
    use std::io::Write as _;
    write_atomically(dest, |w| w.write_all(bytes)).map_err(|e| match e {
        WriteError::Refused(e) => os_error(dest, &e, "cannot write"),
        WriteError::Io(at, e, what) => os_error(&at, &e, what),
    })
}
