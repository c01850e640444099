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

/// The two outputs of a ledger command (`slices`, `breakdown`): its JSON to `out` (atomically)
/// with the short `table` on stdout, or without `out` the JSON on stdout and the table on
/// stderr, so a pipe gets the JSON alone.
pub(crate) fn write_json_and_table(
    out: Option<&Path>,
    json: &impl serde::Serialize,
    table: &str,
) -> anyhow::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(json)?;
    bytes.push(b'\n');
    match out {
        Some(out) => {
            crate::outfile::write(out, "--out", &bytes)?;
            write(None, table.as_bytes())
        }
        None => {
            write(None, &bytes)?;
            eprint!("{table}");
            Ok(())
        }
    }
}
