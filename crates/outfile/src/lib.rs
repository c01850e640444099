//! `outfile`: capkit's atomic output files, one implementation for the command line and the
//! Python package.
//!
//! * [`Staged::create`] makes a temporary file named `.NAME.capkit-PID-RANDOM.tmp` in the
//!   destination's directory; [`Staged::commit`] syncs it to disk and renames it over the
//!   destination. Dropped uncommitted, it is removed: a refusal or a failure never leaves a
//!   partial file, and an existing destination stays as it was.
//! * [`sweep`] removes the temporary files for a destination whose process is gone (a SIGKILL
//!   cannot be caught, so the next writer into the directory cleans up); the names carry the
//!   process id for that, and [`temp_owner`] reads it back.
//! * [`write_atomically`] is the whole write for a caller with a closure.
//!
//! What is not here: the command line's signal handling (removing pending temporary files on
//! SIGINT, SIGTERM, SIGHUP) and its messages, and the Python package's `OSError`s; both wrap
//! these functions.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let dest = dir.path().join("out.jsonl");
//! outfile::write_atomically(&dest, |w| std::io::Write::write_all(w, b"{}\n"))
//!     .map_err(|e| e.to_string())?;
//! assert_eq!(std::fs::read(&dest)?, b"{}\n");
//! assert_eq!(std::fs::read_dir(dir.path())?.count(), 1); // no temporary file left
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

/// The directory `path` is written into (`.` for a bare file name).
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The destination's file name as temporary names carry it (`out` when it has none).
fn dest_name(dest: &Path) -> String {
    dest.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".to_owned())
}

/// `.NAME.capkit-PID-`: the start of every temporary file name for `NAME`.
fn temp_prefix(name: &str, pid: u32) -> String {
    format!(".{name}.capkit-{pid}-")
}

/// The process id in a temporary file name of capkit's for destination file name `name`, if
/// `file` is one (`.NAME.capkit-PID-….tmp`; the names earlier versions used are recognised too).
pub fn temp_owner(file: &str, name: &str) -> Option<u32> {
    let rest = file.strip_prefix(&format!(".{name}.capkit-"))?;
    if !rest.ends_with(".tmp") {
        return None;
    }
    let digits = rest.split('-').next()?;
    digits.parse().ok()
}

/// Whether process `pid` is running (`None`: cannot tell on this platform).
fn process_alive(pid: u32) -> Option<bool> {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return None;
    }
    Some(proc.join(pid.to_string()).exists())
}

/// Removes the temporary files for destination file name `name` in `dir` whose capkit process is
/// gone (killed while writing). Files of running processes and, where liveness cannot be told,
/// every file are kept. Errors are ignored: sweeping is a courtesy, never a reason to fail.
pub fn sweep(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let me = std::process::id();
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = temp_owner(&file.to_string_lossy(), name) else {
            continue;
        };
        if pid != me && process_alive(pid) == Some(false) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// A file being written under a temporary name beside its destination; [`Staged::commit`]
/// renames it into place, and dropping it uncommitted removes it.
#[derive(Debug)]
pub struct Staged {
    file: tempfile::NamedTempFile,
}

impl Staged {
    /// Creates the temporary file for `dest` in `dest`'s directory.
    pub fn create(dest: &Path) -> io::Result<Staged> {
        let prefix = temp_prefix(&dest_name(dest), std::process::id());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // tempfile's default is 0600 whatever the umask, and the rename keeps it: ask for what
        // an ordinary new file gets (0666 less the umask, which the OS applies at creation).
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        builder
            .tempfile_in(parent_dir(dest))
            .map(|file| Staged { file })
    }

    /// The temporary file's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The temporary file.
    pub fn as_file(&self) -> &File {
        self.file.as_file()
    }

    /// The temporary file, for writing.
    pub fn as_file_mut(&mut self) -> &mut File {
        self.file.as_file_mut()
    }

    /// Syncs the file to disk and renames it over `dest`. On failure the temporary file is
    /// removed and `dest` is left as it was.
    pub fn commit(self, dest: &Path) -> Result<(), CommitError> {
        self.file.as_file().sync_all().map_err(CommitError::Sync)?;
        self.file
            .persist(dest)
            .map(drop)
            .map_err(|e| CommitError::Rename(e.error))
    }
}

/// Why [`Staged::commit`] failed.
#[derive(Debug)]
pub enum CommitError {
    /// Syncing the written bytes to disk failed (a full disk shows here at the latest).
    Sync(io::Error),
    /// Renaming the finished file over the destination failed.
    Rename(io::Error),
}

impl CommitError {
    /// The OS error.
    pub fn io_error(&self) -> &io::Error {
        match self {
            CommitError::Sync(e) | CommitError::Rename(e) => e,
        }
    }
}

impl fmt::Display for CommitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommitError::Sync(e) => write!(f, "cannot write: {e}"),
            CommitError::Rename(e) => {
                write!(f, "cannot rename the finished file into place: {e}")
            }
        }
    }
}

impl std::error::Error for CommitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.io_error())
    }
}

/// Why [`write_atomically`] failed: the content was refused (nothing was written), or the file
/// system failed (at the path named, doing what is said).
#[derive(Debug)]
pub enum WriteError<E> {
    /// The closure refused; its error.
    Refused(E),
    /// The file system failed at this path, doing this.
    Io(PathBuf, io::Error, &'static str),
}

impl<E: fmt::Display> fmt::Display for WriteError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Refused(e) => write!(f, "{e}"),
            WriteError::Io(at, e, what) => write!(f, "{}: {what}: {e}", at.display()),
        }
    }
}

/// Writes `dest` atomically: `write` fills a new temporary file beside it (through a 1 MiB
/// buffer), which is synced and renamed over `dest` only when `write` succeeded. On any failure
/// the temporary file is removed and `dest` is left as it was.
pub fn write_atomically<E>(
    dest: &Path,
    write: impl FnOnce(&mut BufWriter<&mut File>) -> Result<(), E>,
) -> Result<(), WriteError<E>> {
    let mut staged = Staged::create(dest).map_err(|e| {
        WriteError::Io(
            parent_dir(dest).to_path_buf(),
            e,
            "cannot create a temporary file",
        )
    })?;
    let temp_path = staged.path().to_path_buf();
    let mut w = BufWriter::with_capacity(1 << 20, staged.as_file_mut());
    write(&mut w).map_err(WriteError::Refused)?;
    w.into_inner()
        .map_err(|e| WriteError::Io(temp_path.clone(), e.into_error(), "cannot write"))?;
    staged.commit(dest).map_err(|e| match e {
        CommitError::Sync(e) => WriteError::Io(temp_path, e, "cannot write"),
        CommitError::Rename(e) => WriteError::Io(
            dest.to_path_buf(),
            e,
            "cannot rename the finished file into place",
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_carry_their_owner() {
        let name = format!("{}123abc.tmp", temp_prefix("c.jsonl", 4242));
        assert_eq!(temp_owner(&name, "c.jsonl"), Some(4242));
        // The names earlier versions used are recognised too.
        assert_eq!(
            temp_owner(".c.jsonl.capkit-17-998877-0.tmp", "c.jsonl"),
            Some(17)
        );
        assert_eq!(temp_owner(".c.jsonl.capkit-17-x.tmp", "d.jsonl"), None);
        assert_eq!(temp_owner(".c.jsonl.capkit-17-x", "c.jsonl"), None);
        assert_eq!(temp_owner("c.jsonl", "c.jsonl"), None);
    }

    #[test]
    fn a_staged_file_is_named_for_its_owner_and_gone_unless_committed() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let dest = dir.path().join("out.json");
        let staged = Staged::create(&dest)?;
        let temp = staged.path().to_path_buf();
        let file = temp.file_name().map(|f| f.to_string_lossy().into_owned());
        assert_eq!(
            file.and_then(|f| temp_owner(&f, "out.json")),
            Some(std::process::id())
        );
        drop(staged);
        assert!(!temp.exists());
        assert!(!dest.exists());
        Ok(())
    }

    #[test]
    fn a_refused_write_leaves_the_old_file_and_no_temporary_file() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let dest = dir.path().join("out.json");
        std::fs::write(&dest, b"old")?;
        let refused = write_atomically(&dest, |w| {
            io::Write::write_all(w, b"new, half")?;
            Err::<(), io::Error>(io::Error::other("refused"))
        });
        assert!(matches!(refused, Err(WriteError::Refused(_))));
        assert_eq!(std::fs::read(&dest)?, b"old");
        assert_eq!(std::fs::read_dir(dir.path())?.count(), 1);
        Ok(())
    }

    #[test]
    fn the_sweep_removes_only_files_of_gone_processes() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        // No process has pid u32::MAX - 1; this one is alive.
        let gone = dir
            .path()
            .join(format!(".c.jsonl.capkit-{}-x.tmp", u32::MAX - 1));
        let mine = dir
            .path()
            .join(format!(".c.jsonl.capkit-{}-x.tmp", std::process::id()));
        let other = dir
            .path()
            .join(format!(".d.jsonl.capkit-{}-x.tmp", u32::MAX - 1));
        for f in [&gone, &mine, &other] {
            std::fs::write(f, b"")?;
        }
        sweep(dir.path(), "c.jsonl");
        if process_alive(1).is_some() {
            assert!(!gone.exists());
        }
        assert!(mine.exists() && other.exists());
        Ok(())
    }
}
