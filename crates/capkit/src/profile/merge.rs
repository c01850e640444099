//! `capkit profile merge`: reports of text shards into the report of all the texts.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::profile::{cli_error, output};

/// Arguments of `capkit profile merge`.
#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {
    /// The reports (or comparisons) to merge: same format, suite, models and settings.
    #[arg(value_name = "REPORT.json", num_args = 2.., required = true)]
    reports: Vec<PathBuf>,
    /// Write the merged report here (atomically) instead of stdout.
    #[arg(long, value_name = "MERGED.json")]
    out: Option<PathBuf>,
    /// Drop a shard whose texts (its `texts` fingerprints) are all in a shard already merged,
    /// with a warning, instead of refusing it.
    #[arg(long)]
    dedupe: bool,
}

/// Runs `capkit profile merge`.
pub(crate) fn run(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    if let Some(out) = &args.out {
        crate::outfile::check(out, "--out")?;
    }
    let mut files = Vec::with_capacity(args.reports.len());
    for path in &args.reports {
        let file = runner::ReportFile::read(path).map_err(cli_error)?;
        files.push((path.display().to_string(), file));
    }
    let merged = runner::merge(files, args.dedupe).map_err(cli_error)?;
    for warning in &merged.warnings {
        eprintln!("capkit: warning: {warning}");
    }
    output::write(args.out.as_deref(), &merged.file.to_bytes())?;
    Ok(ExitCode::SUCCESS)
}
