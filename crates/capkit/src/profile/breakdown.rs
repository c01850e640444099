//! `capkit profile breakdown`: a ledger's figures per group of texts (teacher label, student
//! label, length bin) and its confusions (the `slices` library's `breakdown` does the work; this
//! module parses the arguments, prints a short table and writes the JSON).

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use slices::breakdown::{Breakdown, Dimension};

/// What texts are grouped by.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum GroupArg {
    /// The teacher's answer on the clean text.
    TeacherLabel,
    /// The student's answer on the clean text.
    StudentLabel,
    /// The clean text's length in characters: <=20, 21-40, 41-80, 81-160, >160.
    LengthBin,
}

/// Arguments of `capkit profile breakdown`.
#[derive(Debug, clap::Args)]
pub(crate) struct BreakdownArgs {
    /// The ledger `capkit profile classify --ledger` wrote.
    #[arg(value_name = "LEDGER.jsonl")]
    ledger: PathBuf,
    /// Group the texts by this (repeatable; default: teacher_label).
    #[arg(long = "group-by", value_enum, value_name = "GROUP")]
    group_by: Vec<GroupArg>,
    /// The most frequent confusions kept per stage.
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,
    /// The intervals' confidence level.
    #[arg(long, value_name = "LEVEL", default_value_t = 0.95)]
    level: f64,
    /// Write the JSON here (atomically) instead of stdout.
    #[arg(long, value_name = "BREAKDOWN.json")]
    out: Option<PathBuf>,
}

/// Runs `capkit profile breakdown`.
pub(crate) fn run(args: &BreakdownArgs) -> anyhow::Result<ExitCode> {
    if let Some(out) = &args.out {
        crate::outfile::check(out, "--out")?;
    }
    let level = profile_stats::Level::new(args.level).context("--level")?;
    let mut dimensions: Vec<Dimension> = args
        .group_by
        .iter()
        .map(|g| match g {
            GroupArg::TeacherLabel => Dimension::TeacherLabel,
            GroupArg::StudentLabel => Dimension::StudentLabel,
            GroupArg::LengthBin => Dimension::LengthBin,
        })
        .collect();
    if dimensions.is_empty() {
        dimensions.push(Dimension::TeacherLabel);
    }
    let name = args.ledger.display().to_string();
    let file = File::open(&args.ledger).with_context(|| format!("{name}: cannot open"))?;
    let breakdown =
        slices::breakdown::breakdown(BufReader::new(file), &name, &dimensions, args.top, level)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    super::output::write_json_and_table(args.out.as_deref(), &breakdown, &table(&breakdown))?;
    Ok(ExitCode::SUCCESS)
}

/// The short table: per dimension and group, each stage's rate; then the top confusions.
fn table(b: &Breakdown) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let percent = |x: Option<f64>| x.map_or("-".to_owned(), |x| format!("{:.1}%", 100.0 * x));
    let _ = writeln!(out, "{} texts", b.texts);
    for d in &b.dimensions {
        let _ = writeln!(out, "by {}:", d.name);
        for g in &d.groups {
            let stages: Vec<String> = g
                .stages
                .0
                .iter()
                .map(|(name, s)| format!("{name} {}", percent(s.rate.estimate)))
                .collect();
            let _ = writeln!(
                out,
                "  {:<20} {:>7} texts  {}",
                g.value,
                g.texts,
                stages.join("  ")
            );
        }
    }
    for (stage, c) in &b.confusion.0 {
        let pairs: Vec<String> = c
            .top
            .iter()
            .take(3)
            .map(|p| {
                format!(
                    "{} read as {} {} ({:.0}%)",
                    p.teacher,
                    p.student,
                    p.count,
                    100.0 * p.share
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "{stage}: {} disagreements; {}",
            c.disagreements,
            if pairs.is_empty() {
                "-".to_owned()
            } else {
                pairs.join(", ")
            }
        );
    }
    out
}
