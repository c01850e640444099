//! `capkit`: the command-line front end of the capkit workspace.
#![forbid(unsafe_code)]

use clap::Parser;

/// capkit: capability profiles, typo task corpora and mutator evaluation.
#[derive(Debug, Parser)]
#[command(name = "capkit", version, about)]
struct Cli {}

fn main() -> anyhow::Result<()> {
    let _cli = Cli::parse();
    Ok(())
}
