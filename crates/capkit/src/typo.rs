//! `capkit typo`: the typo generators as learnable tasks.
//!
//! * `emit` — the main job: a JSONL corpus, one example per (name, task), streamed in bounded
//!   memory and in parallel, byte-identical to the single-threaded order.
//! * `score` — strict scores of a predictions file against a corpus, per task, rules and tables
//!   kept apart.
//! * `stats` — what a corpus holds, and its fingerprint.
//! * `tasks` — every task id, its title and needs, and whether the data registers it.
//!
//! Exit codes: 0 ok, 1 refused or failed (one line on stderr naming file, line and field),
//! 2 usage (bad flags, unknown or blank task selection).

mod emit;
mod output;
mod score;
mod stats;
mod tasks;

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use typo_tasks::{Data, HarnessError, Keyboard, Registry, Task, select};

/// Arguments of `capkit typo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Emit a JSONL corpus: one example per (name, task) with the task's whole expected set.
    Emit(emit::EmitArgs),
    /// Score a predictions file against a corpus, per task, rules and tables kept apart.
    Score(score::ScoreArgs),
    /// Count what a JSONL corpus holds and print its fingerprint.
    Stats(stats::StatsArgs),
    /// List every task: id, title, needs, and whether the data registers it (and why not).
    Tasks(tasks::TasksArgs),
}

/// Runs `capkit typo`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let result = match args.command {
        Command::Emit(a) => emit::run(&a),
        Command::Score(a) => score::run(&a),
        Command::Stats(a) => stats::run(&a),
        Command::Tasks(a) => tasks::run(&a),
    };
    match result {
        Err(err) if err.is::<Usage>() => {
            eprintln!("capkit: {err:#}");
            Ok(ExitCode::from(2))
        }
        other => other.map(|()| ExitCode::SUCCESS),
    }
}

/// A usage error: the command line asked for something impossible (exit code 2).
#[derive(Debug)]
pub(crate) struct Usage(pub String);

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// The built-in keyboard layouts, by name.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum KeyboardName {
    /// 4-row QWERTY with the digit row (the default).
    Qwerty,
    /// 3-row QWERTY, letters only.
    Qwerty3,
    /// AZERTY.
    Azerty,
    /// QWERTZ.
    Qwertz,
    /// Dvorak.
    Dvorak,
}

impl KeyboardName {
    fn as_str(self) -> &'static str {
        match self {
            KeyboardName::Qwerty => "qwerty",
            KeyboardName::Qwerty3 => "qwerty3",
            KeyboardName::Azerty => "azerty",
            KeyboardName::Qwertz => "qwertz",
            KeyboardName::Dvorak => "dvorak",
        }
    }
}

/// The data a registry is built from: shared by every subcommand, and for `score` it must be
/// what the corpus was built with.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct RegistryArgs {
    /// Language data as JSON in `data.json`'s shape (default: the embedded English tables).
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// Keyboard layout for acs, aci and rar (default: qwerty, or the --data file's own rows).
    #[arg(long, value_enum, value_name = "LAYOUT")]
    keyboard: Option<KeyboardName>,
}

impl RegistryArgs {
    /// Builds the registry: `--data` (or English), with `--keyboard` replacing its rows.
    pub(crate) fn registry(&self) -> anyhow::Result<Registry> {
        let mut data = match &self.data {
            None => Data::english().with_keyboard(Keyboard::default()),
            Some(path) => {
                let text = read_text(path)?;
                Data::from_json_str(&text).with_context(|| display(path))?
            }
        };
        if let Some(name) = self.keyboard {
            data = data.with_keyboard(Keyboard::by_name(name.as_str())?);
        }
        Ok(Registry::new(&data))
    }
}

/// Reads a whole UTF-8 file, naming it in the error.
pub(crate) fn read_text(path: &Path) -> anyhow::Result<String> {
    fs::read_to_string(path).with_context(|| format!("{}: cannot read", display(path)))
}

/// A path as the user wrote it, for messages.
pub(crate) fn display(path: &Path) -> String {
    path.display().to_string()
}

/// The tasks `--tasks` names (`all`, or comma-separated ids), with a usage error naming any
/// unknown id and, for a known task the data leaves out, why.
pub(crate) fn select_tasks<'r>(
    registry: &'r Registry,
    args: &[String],
) -> anyhow::Result<Vec<&'r Task>> {
    let all = args.len() == 1 && args[0].trim() == "all";
    let chosen = if all {
        select::<String>(registry, &[])
    } else {
        select(registry, args)
    };
    chosen.map_err(|err| {
        let mut message = format!("--tasks: {err}");
        if let HarnessError::BlankSelection { .. } = &err {
            message.push_str(" (omit --tasks, or pass --tasks all)");
        }
        if let HarnessError::UnknownTasks { unknown, .. } = &err {
            let why: Vec<String> = unknown
                .iter()
                .filter_map(|id| registry.why_unregistered(id))
                .map(ToString::to_string)
                .collect();
            if !why.is_empty() {
                message.push_str(&format!(" (not registered: {})", why.join("; ")));
            }
        }
        anyhow::Error::new(Usage(message))
    })
}

/// A corpus's counts for messages: `1 example, 1 input, 1 task, 80 variants [train=1]` (the
/// library's `Stats` text is upstream's, which says "1 examples").
pub(crate) fn stats_line(stats: &typo_tasks::Stats) -> String {
    use crate::words::count;
    let splits: Vec<String> = [typo_tasks::TRAIN, typo_tasks::VAL, typo_tasks::TEST]
        .iter()
        .filter_map(|s| stats.splits.get(*s).map(|n| format!("{s}={n}")))
        .collect();
    format!(
        "{}, {}, {}, {} [{}]",
        count(stats.examples, "example"),
        count(stats.inputs, "input"),
        count(stats.tasks, "task"),
        count(stats.variants, "variant"),
        splits.join(" ")
    )
}

/// Heading of one needs group: rules and tables are always reported apart.
pub(crate) fn needs_heading(needs: typo_tasks::Needs) -> &'static str {
    needs.heading()
}
