//! What the report commands share: the intervals' settings from flags.

use profile_stats::Settings;

/// `--level` and `--break-even`, validated.
pub(crate) fn settings(level: f64, break_even: f64) -> anyhow::Result<Settings> {
    profile_stats::Level::new(level).map_err(|e| anyhow::anyhow!("--level: {e}"))?;
    Settings::new(level, break_even).map_err(|e| anyhow::anyhow!("--break-even: {e}"))
}
