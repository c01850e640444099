//! `capkit typo emit`: the main job.
//!
//! The corpus file streams through the harness's emitter (`typo_tasks::write_jsonl_stream`:
//! chunks of names generated in parallel and written in corpus order, memory bounded by one
//! chunk, the bytes exactly those of a single-threaded run); this module reads the flags, opens
//! the corpus and the output, draws the progress bar and words the outcome.

use std::collections::BTreeMap;
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};
use typo_tasks::{
    HarnessError, Needs, Ratio, Splitter, StreamError, StreamOptions, Streamed, write_jsonl_stream,
};

use super::output::Sink;
use super::{RegistryArgs, display, needs_heading, select_tasks};
use runner::typo::Names;

/// Arguments of `capkit typo emit`.
#[derive(Debug, clap::Args)]
pub(crate) struct EmitArgs {
    /// Tasks to emit: comma-separated ids (`co,cs,hr`), or `all`. May be repeated.
    #[arg(long, value_name = "IDS", default_value = "all")]
    tasks: Vec<String>,
    /// Names to emit for, one per line, taken verbatim (no trimming). Default: the embedded
    /// corpus of well-known domain names, whose unrepresentable examples (bf of its IDNs) are
    /// dropped as with --drop-unrepresentable.
    #[arg(long, value_name = "FILE")]
    corpus: Option<PathBuf>,
    #[command(flatten)]
    registry: RegistryArgs,
    /// Also emit (name, task) pairs whose expected set is empty (`"expect":null`).
    #[arg(long)]
    with_empty: bool,
    /// Assign no train/val/test split (the `split` field is left out).
    #[arg(long, conflicts_with_all = ["salt", "ratio"])]
    no_split: bool,
    /// Salt of the split hash: a different salt gives a different, equally stable split.
    #[arg(long, value_name = "S", default_value = "")]
    salt: String,
    /// Train,val,test weights of the split.
    #[arg(long, value_name = "T,V,T", default_value = "0.8,0.1,0.1", value_parser = parse_ratio)]
    ratio: Ratio,
    /// Provenance written into every example's `source` (default: the corpus file's name, or
    /// `capkit:domains.txt` for the embedded corpus).
    #[arg(long, value_name = "S")]
    source: Option<String>,
    /// Write the corpus to FILE, atomically (temp file and rename), instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Leave out examples JSONL cannot carry (bf variants that are not UTF-8) and say how many,
    /// instead of refusing the corpus.
    #[arg(long)]
    drop_unrepresentable: bool,
    /// Longest name accepted, in bytes; a longer corpus line is refused, naming it. Output and
    /// memory per name grow with the square of its length (and cns/ons exponentially in its
    /// numerals): see the worst cases in docs/typo-tasks.md.
    #[arg(long, value_name = "BYTES", default_value_t = typo_tasks::MAX_NAME_LEN)]
    max_name_len: usize,
}

/// `--ratio T,V,T`: three finite, non-negative weights.
fn parse_ratio(s: &str) -> Result<Ratio, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [train, val, test] = parts.as_slice() else {
        return Err(format!(
            "expected three comma-separated weights such as 0.8,0.1,0.1, got {s:?}"
        ));
    };
    let weight = |name: &str, v: &str| -> Result<f64, String> {
        match v.parse::<f64>() {
            Ok(w) if w.is_finite() && w >= 0.0 => Ok(w),
            _ => Err(format!("{name} weight {v:?} is not a non-negative number")),
        }
    };
    let ratio = Ratio {
        train: weight("train", train)?,
        val: weight("val", val)?,
        test: weight("test", test)?,
    };
    if ratio.train + ratio.val + ratio.test <= 0.0 {
        return Err("the weights sum to zero".to_owned());
    }
    Ok(ratio)
}

fn progress(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} emit [{bar:30}] {bytes}/{total_bytes} {msg} ({elapsed}, eta {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Runs `capkit typo emit`.
pub(crate) fn run(args: &EmitArgs) -> anyhow::Result<()> {
    let registry = args.registry.registry()?;
    let tasks = select_tasks(&registry, &args.tasks)?;
    let mut names = Names::open(args.corpus.as_deref(), args.max_name_len)?;
    // The embedded corpus has IDNs, whose bf variants JSONL cannot carry: the default run drops
    // them (and says so) rather than refusing the project's main job.
    let drop_unrepresentable = args.drop_unrepresentable || args.corpus.is_none();
    let source = match (&args.source, &args.corpus) {
        (Some(s), _) => s.clone(),
        (None, Some(path)) => path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| display(path)),
        (None, None) => "capkit:domains.txt".to_owned(),
    };
    let splitter = (!args.no_split).then(|| Splitter::new(args.ratio, &args.salt));

    // Streaming straight to stdout (nothing can be refused for representability) must still
    // write nothing when a corpus line is refused: check the whole corpus first, which is cheap
    // next to generating it. (Otherwise the output is staged and a refusal discards it.)
    let direct_stdout = drop_unrepresentable && args.out.is_none();
    if direct_stdout && args.corpus.is_some() {
        Names::open(args.corpus.as_deref(), args.max_name_len)?.check_all()?;
    }
    let sink = Sink::create(args.out.as_deref(), !drop_unrepresentable)?;
    let bar = progress(names.total_bytes);
    let target = args
        .out
        .as_deref()
        .map(display)
        .unwrap_or_else(|| "stdout".to_owned());
    let options = StreamOptions {
        tasks: &tasks,
        source: &source,
        splitter: splitter.as_ref(),
        with_empty: args.with_empty,
        drop_unrepresentable,
    };
    let streamed = write_jsonl_stream(&options, &mut names, sink, |n| bar.inc(n));
    let Streamed {
        out: sink,
        fingerprint,
        stats,
        dropped,
    } = match streamed {
        Ok(streamed) => streamed,
        Err(StreamError::Names(err)) => return Err(err.into()),
        Err(StreamError::Refused { line, error }) => {
            let what = match &error {
                HarnessError::NotRepresentable { task, input } => format!(
                    "{task}/{input:?} has a variant that is not valid UTF-8 and cannot survive JSONL; \
                     pass --drop-unrepresentable to leave such examples out, or leave {task} out of --tasks"
                ),
                other => other.to_string(),
            };
            anyhow::bail!(
                "{}: line {line}: {what} (nothing was written)",
                names.label()
            );
        }
        Err(StreamError::Write(err)) => {
            return Err(anyhow::Error::new(err).context(format!("{target}: cannot write")));
        }
        Err(StreamError::WriterPanicked) => {
            anyhow::bail!("{target}: the writer thread panicked")
        }
    };
    bar.finish_and_clear();
    sink.commit()?;

    let mut per_needs: BTreeMap<Needs, usize> = BTreeMap::new();
    for task in &tasks {
        *per_needs.entry(task.needs).or_default() +=
            stats.by_task.get(task.id).copied().unwrap_or(0);
    }
    let mut err = std::io::stderr().lock();
    if names.count == 0 {
        let _ = writeln!(
            err,
            "capkit: warning: {}: the corpus has no names (empty lines only, or an empty file); the output is empty",
            names.label()
        );
    }
    let _ = writeln!(err, "capkit: wrote {target}: {}", super::stats_line(&stats));
    for (needs, n) in &per_needs {
        let ids: Vec<&str> = tasks
            .iter()
            .filter(|t| t.needs == *needs)
            .map(|t| t.id)
            .collect();
        let _ = writeln!(
            err,
            "  {}: {} ({})",
            needs_heading(*needs),
            crate::words::count(*n, "example"),
            ids.join(" ")
        );
    }
    if !dropped.is_empty() {
        let total: usize = dropped.values().sum();
        let by: Vec<String> = dropped.iter().map(|(t, n)| format!("{t}={n}")).collect();
        let _ = writeln!(
            err,
            "  dropped {} (variants that are not UTF-8: {})",
            crate::words::count(total, "unrepresentable example"),
            by.join(" ")
        );
    }
    let _ = writeln!(err, "  fingerprint {fingerprint}");
    Ok(())
}
