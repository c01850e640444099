//! Writing the profile: stdout, or `--out` atomically (a temporary file renamed into place).

use std::path::Path;

use anyhow::Context as _;

/// Writes `bytes` to `out` atomically (see [`crate::outfile::AtomicFile`]), or to stdout.
pub(crate) fn write(out: Option<&Path>, bytes: &[u8]) -> anyhow::Result<()> {
    match out {
        Some(out) => crate::outfile::write(out, "--out", bytes),
        None => crate::stdout::write(bytes).context("writing to stdout"),
    }
}
