//! `capkit`: the command-line front end of the capkit workspace, as a library so that other
//! front ends can start it: the binary `capkit` is [`main_with`] over the process's arguments,
//! and the Python package's `capkit` console script is the same function (`pip install
//! capkit-rs` installs the command line too).
//!
//! Each subcommand group lives in its own module: `typo` (typo task corpora), `mutator`
//! (mutator evaluation), `profile` (capability profiles of real models). Exit codes: 0 ok, 1 refused or failed (one-line error on stderr), 2 usage (and a failed gate of `capkit profile gate`, whose usage errors exit 1).
#![forbid(unsafe_code)]
// Every stdout write goes through `stdout`, which ends quietly on a closed pipe.
#![deny(clippy::print_stdout)]

mod augment;
mod cache;
mod mutator;
mod outfile;
mod profile;
mod report;
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
    Profile(Box<profile::Args>),
    /// One self-contained HTML page (no script, nothing fetched) for profile reports,
    /// comparisons and typo score reports.
    Report(report::Args),
    /// The prediction cache of `capkit profile`: stats, verify, compact, export.
    Cache(cache::Args),
    /// Teacher-labelled training rows for the stages a student misses, sized by a profile report.
    Augment(augment::Args),
}

/// Runs the command line `args` (the program's name first, as `std::env::args_os` gives it) and
/// returns its exit code.
pub fn main_with(args: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    let args: Vec<std::ffi::OsString> = args.into_iter().collect();
    // clap's usage errors exit with code 2, except under `capkit profile gate`, whose 2 means
    // "a gate failed": there a usage error is an error (1).
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() && profile::is_gate_command(&args) {
                1
            } else {
                e.exit_code()
            };
            let _ = e.print();
            return ExitCode::from(u8::try_from(code).unwrap_or(2));
        }
    };
    let result = match cli.command {
        Command::Typo(args) => typo::run(args),
        Command::Mutator(args) => mutator::run(args),
        Command::Profile(args) => profile::run(*args),
        Command::Report(args) => report::run(args),
        Command::Cache(args) => cache::run(args),
        Command::Augment(args) => augment::run(args),
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
