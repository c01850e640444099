//! Writing the profile: stdout, or `--out` atomically (a temporary file renamed into place).

use std::path::Path;

use anyhow::Context as _;

/// Writes `bytes` to `out` (temporary file in the same directory, then rename), or to stdout.
pub(crate) fn write(out: Option<&Path>, bytes: &[u8]) -> anyhow::Result<()> {
    let Some(out) = out else {
        return crate::stdout::write(bytes).context("writing to stdout");
    };
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let file_name = out
        .file_name()
        .with_context(|| format!("--out {}: not a file name", out.display()))?;
    let temp = dir.join(format!(
        ".{}.tmp-{}",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    let result = std::fs::write(&temp, bytes).and_then(|()| std::fs::rename(&temp, out));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&temp);
        return Err(e).with_context(|| format!("writing {}", out.display()));
    }
    Ok(())
}
