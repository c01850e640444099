//! `capkit mutator`: not implemented yet.

use std::process::ExitCode;

/// Arguments of `capkit mutator`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `capkit mutator`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("capkit mutator is not implemented yet")
}
