//! Files written and read for Python callers: `OSError`s that name the file, and the atomic
//! write the `capkit` command line uses for `--out` (a temporary file in the destination's
//! directory, synced, then renamed over it), so a refusal or a crash never leaves a partial file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;

/// An `OSError` naming `path`: Python picks the subclass from the errno (`FileNotFoundError`,
/// `PermissionError`, ...), and `filename` is set, so `str(err)` names the file.
pub(crate) fn os_error(path: &Path, err: &io::Error, what: &str) -> PyErr {
    let message = format!("{what}: {err}");
    match err.raw_os_error() {
        Some(errno) => PyOSError::new_err((errno, message, path.display().to_string())),
        None => PyOSError::new_err(format!("{}: {message}", path.display())),
    }
}

/// A temporary file that is removed unless it was renamed into place.
struct Temp {
    path: PathBuf,
    renamed: bool,
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Why an atomic write failed: the content was refused (nothing was written), or the file
/// system failed (at the path named).
pub(crate) enum WriteError<E> {
    Refused(E),
    Io(PathBuf, io::Error, &'static str),
}

/// Writes `dest` atomically: `write` fills a new temporary file beside it, which is synced and
/// renamed over `dest` only when `write` succeeded. On any failure the temporary file is removed
/// and `dest` is left as it was.
pub(crate) fn write_atomically<E>(
    dest: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<(), E>,
) -> Result<(), WriteError<E>> {
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let stem = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".to_owned());
    let (file, mut temp) = create_temp(&dir, &stem)?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    write(&mut w).map_err(WriteError::Refused)?;
    let file = w
        .into_inner()
        .map_err(|e| WriteError::Io(temp.path.clone(), e.into_error(), "cannot write"))?;
    file.sync_all()
        .map_err(|e| WriteError::Io(temp.path.clone(), e, "cannot write"))?;
    drop(file);
    fs::rename(&temp.path, dest).map_err(|e| {
        WriteError::Io(
            dest.to_path_buf(),
            e,
            "cannot rename the finished file into place",
        )
    })?;
    temp.renamed = true;
    Ok(())
}

/// Creates `dir/.{stem}.capkit-{pid}-{nanos}-{n}.tmp`, new (never an existing file).
fn create_temp<E>(dir: &Path, stem: &str) -> Result<(File, Temp), WriteError<E>> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let mut last = io::Error::other("no free temporary name");
    for attempt in 0..100u32 {
        let path = dir.join(format!(
            ".{stem}.capkit-{}-{nanos}-{attempt}.tmp",
            std::process::id()
        ));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => {
                return Ok((
                    file,
                    Temp {
                        path,
                        renamed: false,
                    },
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => {
                return Err(WriteError::Io(
                    dir.to_path_buf(),
                    e,
                    "cannot create a temporary file",
                ));
            }
        }
    }
    Err(WriteError::Io(
        dir.to_path_buf(),
        last,
        "cannot create a temporary file",
    ))
}
