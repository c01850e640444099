//! `capkit report INPUT… [--out REPORT.html]`: one self-contained HTML page (the
//! `capkit-report` crate) for profile reports, comparisons and typo score reports, in the
//! order given.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, anyhow};
use capkit_report::{Document, Input, Meta, Source, format::utc_date, render};
use serde_json::Value;

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
        let json: Value =
            serde_json::from_slice(&bytes).map_err(|e| anyhow!("{name}: not JSON: {e}"))?;
        let document = Document::from_json(&json).map_err(|e| anyhow!("{name}: {e}"))?;
        inputs.push(Input {
            source: Source {
                name,
                blake3: Some(blake3::hash(&bytes).to_hex().to_string()),
            },
            document,
        });
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

/// Seconds since the epoch: `$SOURCE_DATE_EPOCH` when set (reproducible pages), else the clock.
fn now() -> anyhow::Result<i64> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(s) => s
            .trim()
            .parse()
            .map_err(|_| anyhow!("SOURCE_DATE_EPOCH must be whole seconds, got {s:?}")),
        Err(_) => Ok(SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))),
    }
}
