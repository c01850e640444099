//! `capkit typo`: not implemented yet.

use std::process::ExitCode;

/// Arguments of `capkit typo`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `capkit typo`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("capkit typo is not implemented yet")
}
