//! `capkit`: the command-line front end of the capkit workspace.
//!
//! Each subcommand group lives in its own module: `typo` (typo task corpora), `mutator`
//! (mutator evaluation), `profile` (capability profiles of real models). Exit codes: 0 ok, 1 refused or failed (one-line error on stderr), 2 usage.
#![forbid(unsafe_code)]
// Every stdout write goes through `stdout`, which ends quietly on a closed pipe.
#![deny(clippy::print_stdout)]

mod lines;
mod mutator;
mod outfile;
mod profile;
mod stdout;
mod typo;
mod words;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// capkit: capability profiles, typo task corpora and mutator evaluation.
#[derive(Debug, Parser)]
#[command(name = "capkit", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Typo generators as learnable tasks: emit corpora, score predictions, list tasks.
    Typo(typo::Args),
    /// Evaluate LLM mutators over a dataset of cases.
    Mutator(mutator::Args),
    /// Capability profiles of real models (subprocess, HTTP, OpenAI-compatible, precomputed).
    Profile(profile::Args),
}

fn main() -> ExitCode {
    // clap exits with code 2 on usage errors by itself.
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Typo(args) => typo::run(args),
        Command::Mutator(args) => mutator::run(args),
        Command::Profile(args) => profile::run(args),
    };
    match result {
        Ok(code) => code,
        // The reader of stdout went away (`| head`): what it read is what it wanted.
        Err(err) if stdout::is_closed(&err) => ExitCode::SUCCESS,
        Err(err) => {
            // One line: the error and its causes, joined.
            eprintln!("capkit: {err:#}");
            ExitCode::from(1)
        }
    }
}
