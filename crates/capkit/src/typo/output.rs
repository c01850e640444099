//! Where emitted JSONL goes, so that a refusal or a crash never leaves a partial corpus.
//!
//! * `--out FILE`: written to a temporary file in FILE's directory, renamed over FILE only when
//!   the whole corpus is written (rename is atomic within one file system).
//! * stdout, when the corpus could still be refused: spooled to a temporary file and copied to
//!   stdout at the end, so a refusal writes nothing to stdout. Spooling costs one extra write and
//!   read of the output, which is small next to generating it, and keeps memory bounded.
//! * stdout with `--drop-unrepresentable`: nothing can be refused, so it streams directly.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context as _;

use super::display;
use crate::stdout::Stdout;

/// A temporary file that is removed unless it was kept.
struct TempPath {
    path: PathBuf,
    keep: bool,
}

impl Drop for TempPath {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Creates a new, uniquely named file `dir/.{stem}.{pid}-{n}.tmp`.
fn create_temp(dir: &Path, stem: &str) -> anyhow::Result<(File, TempPath)> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let mut last_err = None;
    for attempt in 0..100u32 {
        let path = dir.join(format!(
            ".{stem}.capkit-{}-{nanos}-{attempt}.tmp",
            std::process::id()
        ));
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((file, TempPath { path, keep: false })),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_err = Some(e),
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("{}: cannot create a temporary file", display(dir)));
            }
        }
    }
    Err(last_err.unwrap_or_else(|| io::Error::other("no free name")))
        .with_context(|| format!("{}: cannot create a temporary file", display(dir)))
}

enum Inner {
    Direct(Stdout),
    Staged {
        file: BufWriter<File>,
        temp: TempPath,
        dest: Option<PathBuf>,
    },
}

/// The output of `emit`: write to it, then [`Sink::commit`]; dropping it uncommitted discards
/// everything written.
pub(crate) struct Sink {
    inner: Inner,
}

const BUF: usize = 1 << 20;

impl Sink {
    /// A sink for `out` (or stdout); `may_refuse` says whether the corpus can still be refused
    /// after writing starts, which makes stdout spool.
    pub(crate) fn create(out: Option<&Path>, may_refuse: bool) -> anyhow::Result<Sink> {
        let inner = match out {
            Some(dest) => {
                let dir = match dest.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                let stem = dest
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "out".to_owned());
                let (file, temp) =
                    create_temp(&dir, &stem).with_context(|| format!("--out {}", display(dest)))?;
                Inner::Staged {
                    file: BufWriter::with_capacity(BUF, file),
                    temp,
                    dest: Some(dest.to_path_buf()),
                }
            }
            None if may_refuse => {
                let (file, temp) = create_temp(&std::env::temp_dir(), "stdout")?;
                Inner::Staged {
                    file: BufWriter::with_capacity(BUF, file),
                    temp,
                    dest: None,
                }
            }
            None => Inner::Direct(Stdout::with_capacity(BUF)),
        };
        Ok(Sink { inner })
    }

    /// Makes the output visible: renames the temporary file over `--out`, or copies the spool
    /// to stdout.
    pub(crate) fn commit(self) -> anyhow::Result<()> {
        match self.inner {
            Inner::Direct(mut w) => w.flush().context("writing stdout"),
            Inner::Staged {
                file,
                mut temp,
                dest,
            } => {
                let mut file = file
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .with_context(|| format!("{}: cannot write", display(&temp.path)))?;
                match dest {
                    Some(dest) => {
                        file.sync_all()
                            .with_context(|| format!("{}: cannot write", display(&temp.path)))?;
                        drop(file);
                        fs::rename(&temp.path, &dest).with_context(|| {
                            format!(
                                "--out {}: cannot rename the finished corpus into place",
                                display(&dest)
                            )
                        })?;
                        temp.keep = true;
                        Ok(())
                    }
                    None => {
                        file.seek(SeekFrom::Start(0))
                            .context("rereading the stdout spool")?;
                        let mut stdout = Stdout::with_capacity(BUF);
                        io::copy(&mut file, &mut stdout).context("writing stdout")?;
                        stdout.flush().context("writing stdout")
                    }
                }
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Direct(w) => w.write(buf),
            Inner::Staged { file, .. } => file.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.inner {
            Inner::Direct(w) => w.write_all(buf),
            Inner::Staged { file, .. } => file.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Direct(w) => w.flush(),
            Inner::Staged { file, .. } => file.flush(),
        }
    }
}
