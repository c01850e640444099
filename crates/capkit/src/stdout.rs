//! Every write to stdout goes through here, so a closed pipe (`capkit … | head -1`) ends the
//! command quietly and successfully everywhere: what the reader took is what it wanted.
//!
//! Rust ignores `SIGPIPE`, so a write to a closed pipe returns `BrokenPipe`, and `println!`
//! panics on it. The writers here turn that one error into [`StdoutClosed`], which `main` maps to
//! exit code 0 without a message. A broken pipe anywhere else (a `cmd:` model's stdin) stays an
//! error: only stdout's own closing is a normal end.

use std::fmt;
use std::io::{self, Write};

/// The reader of stdout went away.
#[derive(Debug)]
pub(crate) struct StdoutClosed;

impl fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("stdout was closed by its reader")
    }
}

impl std::error::Error for StdoutClosed {}

/// Whether `err` (or any of its causes) is the end of stdout.
pub(crate) fn is_closed(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.is::<StdoutClosed>()
            || cause
                .downcast_ref::<io::Error>()
                .and_then(|e| e.get_ref())
                .is_some_and(|inner| inner.is::<StdoutClosed>())
    })
}

/// Maps a `BrokenPipe` of a stdout write to an I/O error carrying [`StdoutClosed`].
fn mark(err: io::Error) -> io::Error {
    if err.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, StdoutClosed)
    } else {
        err
    }
}

/// Buffered stdout whose closed pipe is reported as [`StdoutClosed`]. Flush it before the end:
/// an unflushed buffer dropped on a closed pipe is discarded silently.
pub(crate) struct Stdout {
    inner: io::BufWriter<io::Stdout>,
}

impl Stdout {
    /// Stdout with a buffer of `capacity` bytes.
    pub(crate) fn with_capacity(capacity: usize) -> Stdout {
        Stdout {
            inner: io::BufWriter::with_capacity(capacity, io::stdout()),
        }
    }
}

impl Default for Stdout {
    fn default() -> Stdout {
        Stdout::with_capacity(8 << 10)
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(mark)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).map_err(mark)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(mark)
    }
}

/// Writes `bytes` to stdout and flushes.
pub(crate) fn write(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = Stdout::default();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(())
}

/// Collects the lines of a report and writes them in one go ([`Lines::print`]).
#[derive(Default)]
pub(crate) struct Lines(String);

impl Lines {
    /// Appends one line (a line break is added).
    pub(crate) fn line(&mut self, text: impl fmt::Display) {
        use fmt::Write as _;
        let _ = writeln!(self.0, "{text}");
    }

    /// Writes every line to stdout.
    pub(crate) fn print(self) -> anyhow::Result<()> {
        write(self.0.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_marked_broken_pipe_is_the_end_of_stdout() {
        let marked = anyhow::Error::new(mark(io::Error::from(io::ErrorKind::BrokenPipe)));
        assert!(is_closed(&marked.context("writing stdout")));
        // A model's stdin closing is a failure, not the end of capkit's output.
        let model = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(!is_closed(&model));
        let other = anyhow::Error::new(mark(io::Error::from(io::ErrorKind::StorageFull)));
        assert!(!is_closed(&other));
    }
}
