//! `capkit typo score`: strict scores of predictions against a corpus (the job is
//! `runner::typo::score`; this module parses the arguments and prints).

use std::path::PathBuf;

use crate::stdout::Lines;

use super::needs_heading;

/// Arguments of `capkit typo score`.
#[derive(Debug, clap::Args)]
pub(crate) struct ScoreArgs {
    /// The JSONL corpus the predictions answer.
    #[arg(long, value_name = "FILE")]
    corpus: PathBuf,
    /// Predictions, one `{"task":…,"input":…,"predict":[…]}` per line.
    #[arg(long, value_name = "FILE")]
    predictions: PathBuf,
    #[command(flatten)]
    registry: super::RegistryArgs,
    /// Score only the corpus examples of this split (`train`, `val`, `test`).
    #[arg(long, value_name = "SPLIT")]
    split: Option<String>,
    /// Print the summaries as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Longest corpus input accepted, in bytes (the oracle runs again on each): as for emit.
    #[arg(long, value_name = "BYTES", default_value_t = typo_tasks::MAX_NAME_LEN)]
    max_name_len: usize,
}

/// Runs `capkit typo score`.
pub(crate) fn run(args: &ScoreArgs) -> anyhow::Result<()> {
    let registry = args.registry.registry()?;
    let job = runner::typo::ScoreJob {
        corpus: &args.corpus,
        predictions: &args.predictions,
        split: args.split.as_deref(),
        max_name_len: args.max_name_len,
    };
    let scored = runner::typo::score(&job, &registry).map_err(|e| anyhow::anyhow!("{e}"))?;
    let label = args.corpus.display();
    if scored.examples == 0 {
        eprintln!("capkit: warning: {label}: the corpus has no examples; nothing was scored");
    }
    let mut out = Lines::default();
    if args.json {
        out.line(serde_json::to_string_pretty(&scored.report)?);
        return out.print();
    }
    for (i, (needs, group)) in runner::typo::groups(&scored.summaries)
        .into_iter()
        .enumerate()
    {
        if i > 0 {
            out.line("");
        }
        out.line(needs_heading(needs));
        for s in group {
            out.line(format_args!("  {s}"));
        }
    }
    out.print()?;
    let unpredicted = scored.unpredicted;
    eprintln!(
        "capkit: scored {} of {label}; {} no prediction and were scored as empty answers",
        crate::words::count(scored.scored, "example"),
        if unpredicted == 1 {
            "1 had".to_owned()
        } else {
            format!("{unpredicted} had")
        }
    );
    Ok(())
}
