//! Where emitted JSONL goes, so that a refusal or a crash never leaves a partial corpus.
//!
//! * `--out FILE`: written to a temporary file in FILE's directory, renamed over FILE only when
//!   the whole corpus is written (rename is atomic within one file system); see
//!   [`AtomicFile`] for what happens on signals.
//! * stdout, when the corpus could still be refused: spooled to an unnamed temporary file and
//!   copied to stdout at the end, so a refusal writes nothing to stdout. Spooling costs one extra
//!   write and read of the output, which is small next to generating it, and keeps memory
//!   bounded.
//! * stdout with `--drop-unrepresentable`: nothing can be refused, so it streams directly.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

use anyhow::Context as _;

use crate::outfile::{self, AtomicFile};
use crate::stdout::Stdout;

enum Inner {
    Direct(Stdout),
    /// `--out FILE`.
    Atomic(BufWriter<AtomicFile>),
    /// Stdout spooled to an unnamed temporary file.
    Spooled(BufWriter<File>),
}

/// The output of `emit`: write to it, then [`Sink::commit`]; dropping it uncommitted discards
/// everything written.
pub(crate) struct Sink {
    inner: Inner,
}

/// Buffered writes of small pieces; emit's blocks of names (usually bigger) go straight through
/// to the file, without a copy into the buffer.
const BUF: usize = 64 << 10;

impl Sink {
    /// A sink for `out` (or stdout); `may_refuse` says whether the corpus can still be refused
    /// after writing starts, which makes stdout spool.
    pub(crate) fn create(out: Option<&Path>, may_refuse: bool) -> anyhow::Result<Sink> {
        let inner = match out {
            Some(dest) => Inner::Atomic(BufWriter::with_capacity(
                BUF,
                AtomicFile::create(dest, "--out")?,
            )),
            None if may_refuse => Inner::Spooled(BufWriter::with_capacity(BUF, outfile::spool()?)),
            None => Inner::Direct(Stdout::with_capacity(BUF)),
        };
        Ok(Sink { inner })
    }

    /// Makes the output visible: renames the temporary file over `--out`, or copies the spool
    /// to stdout.
    pub(crate) fn commit(self) -> anyhow::Result<()> {
        match self.inner {
            Inner::Direct(mut w) => w.flush().context("writing stdout"),
            Inner::Atomic(w) => w
                .into_inner()
                .map_err(|e| anyhow::Error::new(e.into_error()).context("--out: cannot write"))?
                .commit(),
            Inner::Spooled(w) => {
                let mut file = w
                    .into_inner()
                    .map_err(|e| anyhow::Error::new(e.into_error()))
                    .context("writing the stdout spool")?;
                file.seek(SeekFrom::Start(0))
                    .context("rereading the stdout spool")?;
                let mut stdout = Stdout::with_capacity(BUF);
                io::copy(&mut file, &mut stdout).context("writing stdout")?;
                stdout.flush().context("writing stdout")
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Direct(w) => w.write(buf),
            Inner::Atomic(w) => w.write(buf),
            Inner::Spooled(w) => w.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.inner {
            Inner::Direct(w) => w.write_all(buf),
            Inner::Atomic(w) => w.write_all(buf),
            Inner::Spooled(w) => w.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Direct(w) => w.flush(),
            Inner::Atomic(w) => w.flush(),
            Inner::Spooled(w) => w.flush(),
        }
    }
}
