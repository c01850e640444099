//! `capkit mutator`: evaluate LLM mutators over a JSONL dataset of cases.
//!
//! `capkit mutator eval CASES.jsonl (--replay | --base-url URL --model NAME)` runs every case
//! through an LLM mutator and the upstream-exact evaluator, prints the aggregate, and optionally
//! writes one result per line. Exit codes: 0 when every case ran, 1 when any case errored (the
//! count is on stderr) or the input could not be read, 2 usage.

use std::io::{BufWriter, IsTerminal as _, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use mutator_eval::{ChatClient, ChatConfig, Replies, ResponseCache, Runner, SummaryBuilder};
use profile_types::{CaseResult, DatasetSummary};

use crate::stdout::Lines;

/// Arguments of `capkit mutator`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Evaluate an LLM mutator on every case of a JSONL file and print the aggregate.
    Eval(EvalArgs),
}

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["base_url", "replay"])))]
struct EvalArgs {
    /// The cases, one JSON object per line (see the mutator-eval `Case` docs).
    #[arg(value_name = "CASES.jsonl")]
    cases: PathBuf,
    /// Base URL of an OpenAI-compatible API, such as http://localhost:8000/v1.
    #[arg(long, value_name = "URL", requires = "model")]
    base_url: Option<String>,
    /// Model name sent with every request.
    #[arg(long, value_name = "NAME", requires = "base_url")]
    model: Option<String>,
    /// Offline: answer each case with its own `reply`, no network.
    #[arg(long, conflicts_with_all = ["base_url", "model"])]
    replay: bool,
    /// Cases evaluated at the same time.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    concurrency: u16,
    /// Write one result per line (JSONL, dataset order) to this file.
    #[arg(long, value_name = "RESULTS.jsonl")]
    out: Option<PathBuf>,
    /// Write the aggregate as JSON to this file.
    #[arg(long, value_name = "FILE")]
    summary_out: Option<PathBuf>,
    /// Environment variable holding the API key (unset: no Authorization header).
    #[arg(long, value_name = "VAR", default_value = "OPENAI_API_KEY")]
    api_key_env: String,
    /// Seconds allowed for one request attempt.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    timeout: f64,
    /// Retries after 429, 5xx, timeouts and connection errors (exponential backoff).
    #[arg(long, value_name = "N", default_value_t = 3)]
    retries: u32,
    /// Sampling temperature (always sent).
    #[arg(long, default_value_t = 0.0)]
    temperature: f64,
    /// Sampling seed (always sent).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Reply length limit.
    #[arg(long, value_name = "N")]
    max_tokens: Option<u32>,
    /// Directory of cached replies (keyed by the blake3 hash of the request).
    #[arg(long, value_name = "DIR", default_value = ".capkit-cache/chat")]
    cache_dir: PathBuf,
    /// Do not read or write the reply cache.
    #[arg(long)]
    no_cache: bool,
    /// Mutator id written into inferences.
    #[arg(long, value_name = "ID", default_value = "capkit-llm-mutator")]
    mutator_id: String,
}

/// Runs `capkit mutator`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Eval(a) => eval(&a),
    }
}

fn eval(args: &EvalArgs) -> anyhow::Result<ExitCode> {
    // Every output is checked before any is touched: a refused --summary-out must not leave an
    // emptied --out behind.
    if let Some(path) = &args.out {
        crate::outfile::check(path, "--out")?;
    }
    if let Some(path) = &args.summary_out {
        crate::outfile::check(path, "--summary-out")?;
    }
    let text = std::fs::read_to_string(&args.cases)
        .with_context(|| format!("{}: cannot read", args.cases.display()))?;
    let client = match (&args.base_url, &args.model) {
        (Some(url), Some(model)) if !args.replay => Some(chat_client(args, url, model)?),
        _ => None,
    };
    let replies = match &client {
        Some(c) => Replies::Client(c),
        None => Replies::Fixed,
    };
    let total = text.lines().filter(|l| !l.trim().is_empty()).count();
    if total == 0 {
        eprintln!(
            "capkit: warning: {}: no cases (the file is empty or blank); nothing to evaluate",
            args.cases.display()
        );
    }
    let progress = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(total as u64);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} cases  {elapsed_precise}  eta {eta}")
        {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    // Results are written as they come (in dataset order), so memory holds only a bounded
    // window of results; they go to a temporary file renamed over `--out` at the end, so an
    // interrupted or failed run leaves the previous file intact and no partial one (a rerun
    // with `--cache-dir` replays every reply already received).
    let mut out = match &args.out {
        Some(path) => Some((
            path,
            BufWriter::new(crate::outfile::AtomicFile::create(path, "--out")?),
        )),
        None => None,
    };
    let mut write_error: Option<anyhow::Error> = None;
    let mut summary = SummaryBuilder::default();
    let mut first_errors: Vec<String> = Vec::new();
    let started = Instant::now();
    Runner::new(replies)
        .concurrency(usize::from(args.concurrency))
        .mutator_id(&args.mutator_id)
        .run_jsonl_each(&text, &|done| progress.set_position(done as u64), |r| {
            summary.add(&r);
            if let Some(e) = &r.error
                && first_errors.len() < 5
            {
                first_errors.push(format!(
                    "case {} ({}): {}",
                    r.id,
                    kind_name(e.kind),
                    e.message
                ));
            }
            if let (Some((path, w)), None) = (&mut out, &write_error)
                && let Err(e) = write_result(w, &r)
            {
                write_error = Some(e.context(format!("{}: cannot write", path.display())));
            }
        });
    let wall = started.elapsed();
    progress.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e);
    }
    if let Some((path, w)) = out {
        w.into_inner()
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {}", path.display(), e.error()))?
            .commit()?;
    }

    let summary = summary.finish();
    if let Some(path) = &args.summary_out {
        let text = serde_json::to_string_pretty(&summary)? + "\n";
        crate::outfile::write(path, "--summary-out", text.as_bytes())?;
    }
    let source = match &client {
        Some(c) => format!(
            "{} ({})",
            c.endpoint(),
            args.model.as_deref().unwrap_or_default()
        ),
        None => "replay".to_owned(),
    };
    let mut table = summary_table(&args.cases, &source, &summary, wall);
    if let Some(c) = &client {
        table.line(format_args!(
            "  http attempts       {}  (cache hits {}, cache {})",
            c.attempts(),
            c.cache_hits(),
            if args.no_cache {
                "off".to_owned()
            } else {
                args.cache_dir.display().to_string()
            }
        ));
    }
    table.print()?;
    if let Some(c) = &client
        && c.cache_write_errors() > 0
    {
        eprintln!(
            "capkit: warning: {} replies could not be cached",
            c.cache_write_errors()
        );
    }

    if summary.errors == 0 {
        return Ok(ExitCode::SUCCESS);
    }
    for line in &first_errors {
        eprintln!("capkit: {line}");
    }
    eprintln!(
        "capkit: {} of {} cases errored ({})",
        summary.errors,
        summary.cases,
        errors_by_kind(&summary)
    );
    Ok(ExitCode::from(1))
}

fn write_result(w: &mut impl Write, r: &CaseResult) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *w, r)?;
    w.write_all(b"\n")?;
    Ok(())
}

fn chat_client(args: &EvalArgs, url: &str, model: &str) -> anyhow::Result<ChatClient> {
    let mut config = ChatConfig::new(url, model);
    config.api_key_env = Some(args.api_key_env.clone());
    anyhow::ensure!(
        args.timeout.is_finite() && args.timeout > 0.0,
        "--timeout must be a positive number of seconds"
    );
    config.timeout = Duration::from_secs_f64(args.timeout);
    config.max_retries = args.retries;
    config.temperature = args.temperature;
    config.seed = args.seed;
    config.max_tokens = args.max_tokens;
    let client = ChatClient::new(config)?;
    Ok(if args.no_cache {
        client
    } else {
        client.with_cache(ResponseCache::new(&args.cache_dir))
    })
}

fn kind_name(kind: profile_types::FailureKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn errors_by_kind(summary: &DatasetSummary) -> String {
    summary
        .errors_by_kind
        .iter()
        .map(|(k, n)| format!("{} {n}", kind_name(*k)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn summary_table(cases: &Path, source: &str, s: &DatasetSummary, wall: Duration) -> Lines {
    let mut out = Lines::default();
    let opt = |v: Option<f64>, digits: usize| v.map_or("-".to_owned(), |v| format!("{v:.digits$}"));
    let matched = s
        .overall_match_rate
        .map_or(0, |r| (r * s.evaluated as f64).round() as usize);
    out.line(format_args!(
        "capkit mutator eval: {} via {source}",
        cases.display()
    ));
    out.line(format_args!("  cases               {}", s.cases));
    out.line(format_args!("  evaluated           {}", s.evaluated));
    if s.errors == 0 {
        out.line(format_args!("  errors              0"));
    } else {
        out.line(format_args!(
            "  errors              {}  ({})",
            s.errors,
            errors_by_kind(s)
        ));
    }
    out.line(format_args!(
        "  mean accuracy       {}",
        opt(s.mean_accuracy, 4)
    ));
    out.line(format_args!(
        "  overall match rate  {}  ({matched} of {})",
        opt(s.overall_match_rate, 4),
        s.evaluated
    ));
    out.line(format_args!(
        "  latency p50         {} s",
        opt(s.latency_p50, 6)
    ));
    out.line(format_args!(
        "  latency p95         {} s",
        opt(s.latency_p95, 6)
    ));
    let secs = wall.as_secs_f64();
    let rate = if secs > 0.0 {
        s.cases as f64 / secs
    } else {
        0.0
    };
    out.line(format_args!(
        "  wall time           {secs:.3} s  ({rate:.0} cases/s)"
    ));
    out
}
