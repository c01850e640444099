//! `capkit profile slices`: the slices of a per-text ledger where the student disagrees with
//! its teacher more than on the rest (the `slices` library does the work; this module parses
//! the arguments, prints a short table and writes the JSON).

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use slices::{Method, Options, SliceReport};

/// The correction over every candidate tested.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum MethodArg {
    /// Benjamini–Hochberg (the false-discovery rate).
    Bh,
    /// Holm (the family-wise error rate).
    Holm,
}

/// Arguments of `capkit profile slices`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The ledger is read three times (token supports; counts; the examples' \
    texts), so it must be a file. Without --out the JSON goes to stdout and the table to \
    stderr; with --out the table goes to stdout. See docs/reports.md, \"Slices\"."
)]
pub(crate) struct SlicesArgs {
    /// The ledger `capkit profile classify --ledger` wrote.
    #[arg(value_name = "LEDGER.jsonl")]
    ledger: PathBuf,
    /// A candidate must hold on at least this many texts.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    min_support: u64,
    /// At most this many slices per stage.
    #[arg(long = "max", value_name = "N", default_value_t = 15)]
    max: usize,
    /// The multiplicity correction over every candidate tested.
    #[arg(long, value_enum, default_value = "bh")]
    method: MethodArg,
    /// The intervals' confidence level; the correction's level is 1 − LEVEL.
    #[arg(long, value_name = "LEVEL", default_value_t = 0.95)]
    level: f64,
    /// Write the JSON here (atomically) instead of stdout.
    #[arg(long, value_name = "SLICES.json")]
    out: Option<PathBuf>,
}

/// Runs `capkit profile slices`.
pub(crate) fn run(args: &SlicesArgs) -> anyhow::Result<ExitCode> {
    if let Some(out) = &args.out {
        crate::outfile::check(out, "--out")?;
    }
    let options = Options {
        min_support: args.min_support,
        max_shown: args.max,
        method: match args.method {
            MethodArg::Bh => Method::Bh,
            MethodArg::Holm => Method::Holm,
        },
        level: profile_stats::Level::new(args.level).context("--level")?,
        ..Options::default()
    };
    let name = args.ledger.display().to_string();
    let open = || File::open(&args.ledger).map(BufReader::new);
    // Opened once up front, so a missing file is named as such rather than as a read error.
    open().with_context(|| format!("{name}: cannot open"))?;
    let report = slices::find_slices(open, &name, &options).map_err(|e| anyhow::anyhow!("{e}"))?;
    super::output::write_json_and_table(args.out.as_deref(), &report, &table(&report))?;
    Ok(ExitCode::SUCCESS)
}

/// The short table: per stage, its rate and the slices shown.
fn table(report: &SliceReport) -> String {
    use std::fmt::Write as _;
    let mut lines = String::new();
    let method = match report.method {
        Method::Bh => "Benjamini-Hochberg",
        Method::Holm => "Holm",
    };
    let _ = writeln!(
        lines,
        "{} texts; {} candidates, {} conjunctions; {} tests, {method} at q = {}",
        report.texts,
        report.candidates,
        report.conjunctions,
        report.tested,
        round(report.q)
    );
    let percent = |x: Option<f64>| x.map_or("-".to_owned(), |x| format!("{:.1}%", 100.0 * x));
    for ((stage, total), (_, shown)) in report.totals.0.iter().zip(&report.stages.0) {
        let _ = writeln!(
            lines,
            "{stage}: {} of {} lines disagree ({}); {} significant, {} folded, {} shown",
            total.disagree,
            total.lines,
            percent(total.rate.estimate),
            total.significant,
            total.folded,
            shown.len()
        );
        for slice in shown {
            let _ = writeln!(
                lines,
                "  {:<40} {:>6} lines  {:>6} [{:.1}-{:.1}%]  rest {:>6}  adj. p 1e{:.1}",
                slice.name,
                slice.size,
                percent(slice.rate.estimate),
                100.0 * slice.rate.lower,
                100.0 * slice.rate.upper,
                percent(slice.rest.rate.estimate),
                slice.log10_adjusted_p
            );
        }
    }
    lines
}

/// Six significant digits, as capkit prints levels.
fn round(x: f64) -> String {
    format!("{}", (x * 1e6).round() / 1e6)
}
