//! `capkit report INPUT… [--out REPORT.html]`: one self-contained HTML page (the
//! `capkit-report` crate) for profile reports, comparisons and typo score reports, in the
//! order given.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, anyhow};
use capkit_report::{Input, Meta, format::utc_date, render};

/// Arguments of `capkit report`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Documents to show, in order: profile reports (`capkit profile classify|extract
    /// --report`), comparisons (`capkit profile compare`), typo score reports (`capkit typo
    /// score --json`).
    #[arg(value_name = "INPUT", required = true)]
    inputs: Vec<PathBuf>,
    /// Write the page here (atomically) instead of stdout.
    #[arg(long, value_name = "REPORT.html")]
    out: Option<PathBuf>,
}

/// Runs `capkit report`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(out) = &args.out {
        crate::outfile::check(out, "--out")?;
    }
    let mut inputs = Vec::with_capacity(args.inputs.len());
    for path in &args.inputs {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).with_context(|| format!("{name}: cannot read"))?;
        // One rule for reading a document, the Python package's `render_html` too.
        let input =
            Input::from_file_bytes(name.clone(), &bytes).map_err(|e| anyhow!("{name}: {e}"))?;
        inputs.push(input);
    }
    let html = render(&inputs, &Meta::new(utc_date(now()?)));
    match &args.out {
        Some(out) => {
            crate::outfile::write(out, "--out", html.as_bytes())?;
            eprintln!(
                "capkit: wrote {} ({} document{}, {} bytes)",
                out.display(),
                inputs.len(),
                if inputs.len() == 1 { "" } else { "s" },
                html.len()
            );
        }
        None => crate::stdout::write(html.as_bytes()).context("writing to stdout")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Seconds since the epoch: `$SOURCE_DATE_EPOCH` when set (reproducible pages), else the clock
/// (`capkit_report::format::page_time`, the Python package's rule too).
fn now() -> anyhow::Result<i64> {
    let clock = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let epoch = std::env::var("SOURCE_DATE_EPOCH").ok();
    Ok(capkit_report::format::page_time(epoch.as_deref(), clock)?)
}
