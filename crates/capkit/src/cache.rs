//! `capkit cache`: looking after the prediction cache `capkit profile` keeps (the store itself
//! and these operations are `model_adapters`'; this module adds the flags and the output).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use model_adapters::cache_admin;

use crate::outfile::AtomicFile;
use crate::stdout::{self, Lines};

/// Arguments of `capkit cache`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: CacheCommand,
}

#[derive(Debug, clap::Subcommand)]
enum CacheCommand {
    /// Where the cache is, its size on disk, its answers per model and its `openai:` replies.
    Stats {
        #[command(flatten)]
        at: At,
        /// One JSON object instead of lines of text.
        #[arg(long)]
        json: bool,
    },
    /// Checks the cache (SQLite's integrity check, every answer's JSON, each sealed segment,
    /// each `openai:` reply's key and text); exits 1 naming each problem.
    Verify {
        #[command(flatten)]
        at: At,
    },
    /// Seals each model's answers into a segment file (a lookup there is one read of one page)
    /// and reclaims space: rewrites the database and empties its write-ahead log. Holds the
    /// cache's write lock throughout: run it between runs.
    Compact {
        #[command(flatten)]
        at: At,
    },
    /// Every answer as JSONL (`{"model", "k", "label", "decision"}` per line), in key order;
    /// with --replies the `openai:` replies instead, one line each as earlier capkit's reply
    /// file held it (`{"format", "key", "model", "reply"}`).
    Export {
        #[command(flatten)]
        at: At,
        /// Export the `openai:` replies, not the answers.
        #[arg(long)]
        replies: bool,
        /// Write to FILE, atomically, instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

/// Which cache.
#[derive(Debug, clap::Args)]
struct At {
    /// Directory of the prediction cache (default: $XDG_CACHE_HOME/capkit or ~/.cache/capkit,
    /// as for `capkit profile`).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
}

impl At {
    fn dir(&self) -> PathBuf {
        self.cache_dir
            .clone()
            .unwrap_or_else(model_adapters::default_cache_dir)
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// Runs `capkit cache`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        CacheCommand::Stats { at, json } => {
            let s = cache_admin::stats(&at.dir())?;
            if json {
                let mut text = serde_json::to_string_pretty(&s)?;
                text.push('\n');
                stdout::write(text.as_bytes())?;
            } else {
                let mut lines = Lines::default();
                lines.line(format_args!("cache: {}", s.path.display()));
                lines.line(format_args!("format: {}", s.format));
                lines.line(format_args!("size: {} ({} bytes)", mib(s.bytes), s.bytes));
                let per = if s.answers == 0 {
                    String::new()
                } else {
                    format!(
                        ", {:.0} bytes per answer",
                        s.bytes as f64 / s.answers as f64
                    )
                };
                lines.line(format_args!("answers: {}{per}", s.answers));
                for m in &s.models {
                    lines.line(format_args!("  {:>12}  {}", m.answers, m.identity));
                }
                lines.line(format_args!(
                    "replies: {} (openai: models' raw replies)",
                    s.replies
                ));
                lines.print()?;
            }
            Ok(ExitCode::SUCCESS)
        }
        CacheCommand::Verify { at } => {
            let dir = at.dir();
            let problems = cache_admin::verify(&dir)?;
            if problems.is_empty() {
                stdout::write(format!("ok: {}\n", dir.display()).as_bytes())?;
                return Ok(ExitCode::SUCCESS);
            }
            for p in &problems {
                eprintln!("capkit: cache {}: {p}", dir.display());
            }
            eprintln!(
                "capkit: cache {}: {} problem{}",
                dir.display(),
                problems.len(),
                if problems.len() == 1 { "" } else { "s" }
            );
            Ok(ExitCode::from(1))
        }
        CacheCommand::Compact { at } => {
            let (before, after) = cache_admin::compact(&at.dir())?;
            stdout::write(format!("compacted: {} -> {}\n", mib(before), mib(after)).as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        CacheCommand::Export { at, replies, out } => {
            let dir = at.dir();
            let (export, what): (fn(&Path, &mut dyn Write) -> _, _) = if replies {
                (cache_admin::export_replies, "replies")
            } else {
                (cache_admin::export, "answers")
            };
            match out {
                Some(path) => {
                    let mut file = AtomicFile::create(&path, "--out")?;
                    let n = {
                        let mut w = BufWriter::new(&mut file);
                        let n = export(&dir, &mut w)?;
                        w.flush()
                            .with_context(|| format!("--out {}: cannot write", path.display()))?;
                        n
                    };
                    file.commit()?;
                    eprintln!("capkit: exported {n} {what} to {}", path.display());
                }
                None => {
                    let mut w = stdout::Stdout::with_capacity(64 << 10);
                    export(&dir, &mut w)?;
                    w.flush()?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
