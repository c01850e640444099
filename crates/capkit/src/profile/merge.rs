//! `capkit profile merge`: reports of text shards into the report of all the texts.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use crate::profile::report::{self, Document};

/// Arguments of `capkit profile merge`.
#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {
    /// The reports (or comparisons) to merge: same format, suite, models and settings.
    #[arg(value_name = "REPORT.json", num_args = 2.., required = true)]
    reports: Vec<PathBuf>,
    /// Write the merged report here (atomically) instead of stdout.
    #[arg(long, value_name = "MERGED.json")]
    out: Option<PathBuf>,
}

/// Runs `capkit profile merge`.
pub(crate) fn run(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    if let Some(out) = &args.out {
        crate::outfile::check(out, "--out")?;
    }
    let mut paths = args.reports.iter();
    let Some(first) = paths.next() else {
        bail!("give the reports to merge");
    };
    let (mut merged, provenance) = report::read(first)?;
    let mut runs = provenance.runs();
    for path in paths {
        let (next, more) = report::read(path)?;
        let refused = |e: profile_stats::Error| {
            anyhow::anyhow!("{} and {}: {e}", first.display(), path.display())
        };
        merged = match (merged, next) {
            (Document::Report(a), Document::Report(b)) => {
                Document::Report(Box::new(a.merge(&b).map_err(refused)?))
            }
            (Document::Comparison(a), Document::Comparison(b)) => {
                Document::Comparison(a.merge(&b).map_err(refused)?)
            }
            _ => bail!(
                "{} and {}: cannot merge a report with a comparison",
                first.display(),
                path.display()
            ),
        };
        runs.extend(more.runs());
    }
    let mut json = merged.to_json();
    if !runs.is_empty()
        && let serde_json::Value::Object(map) = &mut json
    {
        map.insert("runs".to_owned(), runs.into());
    }
    report::write_json(args.out.as_deref(), &json)?;
    Ok(ExitCode::SUCCESS)
}
