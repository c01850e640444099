//! Output files: checked before any work, written atomically, never left behind.
//!
//! * [`check`] refuses an output path that cannot be written (a directory, a missing or
//!   read-only directory, a read-only file) before a command does any work, so a long run never
//!   fails at its end, and one output is never replaced while another is refused.
//! * [`AtomicFile`] writes to a temporary file in the destination's directory, named
//!   `.NAME.capkit-PID-RANDOM.tmp`, and renames it over the destination only when complete
//!   (the library `outfile`'s `Staged`, which the Python package writes with too: one
//!   implementation of the names, the permissions, the sync and the rename).
//!   On SIGINT, SIGTERM or SIGHUP every pending temporary file is removed before the process
//!   dies of the signal. A SIGKILL cannot be caught: the next run that writes into the same
//!   directory removes the temporary files of capkit processes that no longer exist.
//! * [`spool`] is an unnamed temporary file (`O_TMPFILE` on Linux, through the `tempfile`
//!   crate): it has no name to leave behind, whatever ends the process.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

use ::outfile::{CommitError, Staged, parent_dir, sweep};
use anyhow::Context as _;

/// Temporary files to remove if a signal ends the process.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Refuses `path` (given as `flag PATH`) unless a file can be written there: it must not be a
/// directory or a read-only file, and its directory must exist and accept a new file.
pub(crate) fn check(path: &Path, flag: &str) -> anyhow::Result<()> {
    let at = || format!("{flag} {}", path.display());
    if path.file_name().is_none() {
        anyhow::bail!("{}: not a file name", at());
    }
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.is_dir() {
            anyhow::bail!("{}: is a directory", at());
        }
        if meta.permissions().readonly() {
            anyhow::bail!("{}: the file is read-only", at());
        }
    }
    let dir = parent_dir(path);
    match std::fs::metadata(dir) {
        Err(_) => anyhow::bail!("{}: the directory {} does not exist", at(), dir.display()),
        Ok(meta) if !meta.is_dir() => {
            anyhow::bail!("{}: {} is not a directory", at(), dir.display())
        }
        Ok(_) => {}
    }
    // Permissions alone cannot tell (root, ACLs, read-only mounts): try a file.
    tempfile::Builder::new()
        .prefix(".capkit-check-")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|e| anyhow::anyhow!("{}: cannot write in {}: {e}", at(), dir.display()))
}

/// A file written under a temporary name beside its destination and renamed into place by
/// [`AtomicFile::commit`]; dropped uncommitted, it is removed.
pub(crate) struct AtomicFile {
    // Declared first: taken off the signal list before the file is removed.
    _pending: Pending,
    file: Staged,
    dest: PathBuf,
    flag: String,
}

/// A temporary file's place on the signal list, given up when dropped.
struct Pending(PathBuf);

impl Pending {
    fn new(path: &Path) -> Pending {
        lock_pending().push(path.to_path_buf());
        Pending(path.to_path_buf())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        lock_pending().retain(|p| *p != self.0);
    }
}

impl AtomicFile {
    /// Checks `dest` (see [`check`]), removes stale temporary files of earlier runs killed
    /// while writing it, and creates the temporary file.
    pub(crate) fn create(dest: &Path, flag: &str) -> anyhow::Result<AtomicFile> {
        check(dest, flag)?;
        let dir = parent_dir(dest);
        let name = dest
            .file_name()
            .unwrap_or_else(|| OsStr::new("out"))
            .to_string_lossy();
        sweep(dir, &name);
        install_signal_cleanup();
        let file = Staged::create(dest).with_context(|| {
            format!(
                "{flag} {}: cannot create a temporary file in {}",
                dest.display(),
                dir.display()
            )
        })?;
        Ok(AtomicFile {
            _pending: Pending::new(file.path()),
            file,
            dest: dest.to_path_buf(),
            flag: flag.to_owned(),
        })
    }

    /// The temporary file, for writing.
    pub(crate) fn as_file_mut(&mut self) -> &mut File {
        self.file.as_file_mut()
    }

    /// Flushes the file to disk and renames it over the destination.
    pub(crate) fn commit(self) -> anyhow::Result<()> {
        let at = format!("{} {}", self.flag, self.dest.display());
        let AtomicFile {
            _pending,
            file,
            dest,
            ..
        } = self;
        file.commit(&dest).map_err(|e| match e {
            CommitError::Sync(e) => anyhow::Error::new(e).context(format!("{at}: cannot write")),
            // The words tempfile's persist error printed before the library kept only its cause.
            CommitError::Rename(e) => anyhow::anyhow!(
                "{at}: cannot rename the finished file into place: failed to persist temporary file: {e}"
            ),
        })
    }
}

/// Writes go to the temporary file (wrap it in a `BufWriter` for many small writes).
impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.as_file_mut().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_file_mut().flush()
    }
}

/// Writes `bytes` to `dest` atomically (see [`AtomicFile`]).
pub(crate) fn write(dest: &Path, flag: &str, bytes: &[u8]) -> anyhow::Result<()> {
    let mut file = AtomicFile::create(dest, flag)?;
    file.as_file_mut()
        .write_all(bytes)
        .with_context(|| format!("{flag} {}: cannot write", dest.display()))?;
    file.commit()
}

/// An unnamed temporary file in the temporary directory: nothing to remove, whatever ends the
/// process. Also removes the named spools that versions before it could leave behind.
pub(crate) fn spool() -> anyhow::Result<File> {
    let dir = std::env::temp_dir();
    sweep(&dir, "stdout");
    tempfile::tempfile_in(&dir)
        .with_context(|| format!("{}: cannot create a temporary file", dir.display()))
}

fn lock_pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the lock leaves a list that is still valid.
    PENDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// On SIGINT, SIGTERM or SIGHUP: remove every pending temporary file, then die of the signal
/// as if it had not been caught (so the exit status tells the shell what happened).
#[cfg(unix)]
fn install_signal_cleanup() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        let spawned = std::thread::Builder::new()
            .name("capkit-signals".to_owned())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    for path in lock_pending().drain(..) {
                        let _ = std::fs::remove_file(path);
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                }
            });
        drop(spawned);
    });
}

#[cfg(not(unix))]
fn install_signal_cleanup() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {});
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_refuses_what_cannot_be_written() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let err = check(dir.path(), "--out").err().map(|e| e.to_string());
        assert_eq!(
            err,
            Some(format!("--out {}: is a directory", dir.path().display()))
        );
        let missing = dir.path().join("no/such/file.json");
        let err = check(&missing, "--out").err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.ends_with("does not exist")));
        assert!(check(&dir.path().join("fine.json"), "--out").is_ok());
        // The probe file is gone again.
        assert_eq!(
            std::fs::read_dir(dir.path()).map(Iterator::count).ok(),
            Some(0)
        );
    }
}
