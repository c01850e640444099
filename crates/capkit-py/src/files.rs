//! Files written and read for Python callers: `OSError`s that name the file, a check that an
//! output path can be written before any work starts, and the atomic write the `capkit` command
//! line uses for its outputs (a temporary file `.NAME.capkit-*.tmp` beside the destination,
//! synced, then renamed over it), so a refusal or a failure never leaves a partial file and an
//! existing file stays as it was.
//!
//! (The command line's own helpers live in the `capkit` binary crate, which a library cannot
//! depend on; these follow the same rules with the same `tempfile` crate.)

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

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

/// The directory `path` is written into.
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn temp_in(dir: &Path, dest: &Path) -> io::Result<tempfile::NamedTempFile> {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".to_owned());
    let prefix = format!(".{name}.capkit-{}-", std::process::id());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // tempfile's default is 0600 whatever the umask, and the rename keeps it: ask for what an
    // ordinary new file gets (0666 less the umask, which the OS applies at creation).
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    builder.tempfile_in(dir)
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
    let dir = parent_dir(path);
    // Permissions alone cannot tell (root, ACLs, read-only mounts): try a file.
    temp_in(&dir, path)
        .map(drop)
        .map_err(|e| os_error(&dir, &e, "cannot create a file in this directory"))
}

/// Why an atomic write failed: the content was refused (nothing was written), or the file
/// system failed (at the path named, doing what is said).
pub(crate) enum WriteError<E> {
    Refused(E),
    Io(PathBuf, io::Error, &'static str),
}

/// Writes `dest` atomically: `write` fills a new temporary file beside it, which is synced and
/// renamed over `dest` only when `write` succeeded. On any failure the temporary file is removed
/// and `dest` is left as it was.
pub(crate) fn write_atomically<E>(
    dest: &Path,
    write: impl FnOnce(&mut BufWriter<&mut File>) -> Result<(), E>,
) -> Result<(), WriteError<E>> {
    let dir = parent_dir(dest);
    let mut temp = temp_in(&dir, dest)
        .map_err(|e| WriteError::Io(dir.clone(), e, "cannot create a temporary file"))?;
    let temp_path = temp.path().to_path_buf();
    let mut w = BufWriter::with_capacity(1 << 20, temp.as_file_mut());
    write(&mut w).map_err(WriteError::Refused)?;
    w.into_inner()
        .map_err(|e| WriteError::Io(temp_path.clone(), e.into_error(), "cannot write"))?;
    temp.as_file()
        .sync_all()
        .map_err(|e| WriteError::Io(temp_path, e, "cannot write"))?;
    temp.persist(dest).map_err(|e| {
        WriteError::Io(
            dest.to_path_buf(),
            e.error,
            "cannot rename the finished file into place",
        )
    })?;
    Ok(())
}

/// [`write_atomically`] of bytes at hand, as an `OSError` on failure.
pub(crate) fn write_bytes_atomically(dest: &Path, bytes: &[u8]) -> PyResult<()> {
    use std::io::Write as _;
    write_atomically(dest, |w| w.write_all(bytes)).map_err(|e| match e {
        WriteError::Refused(e) => os_error(dest, &e, "cannot write"),
        WriteError::Io(at, e, what) => os_error(&at, &e, what),
    })
}
