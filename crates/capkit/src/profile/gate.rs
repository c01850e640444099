//! `capkit profile gate`: fail a release on conditions over a report's figures.

use std::path::PathBuf;
use std::process::ExitCode;

use profile_stats::{Gate, numeric_paths, readable};

use crate::stdout::Lines;

/// The exit code of a gate that failed (1 stays "error", as for every capkit command).
const GATE_FAILED: u8 = 2;

/// Arguments of `capkit profile gate`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "GATE: PATH OP NUMBER, e.g. 'corruptions.typo_10.agreement.lower < 0.9' or \
    'invariances.case.student_vs_teacher.p < 0.01'. PATH is dot-separated keys of the report \
    (quote a key with other characters: 'students.\"cmd:python3 a.py\".clean.agreement.lower'; \
    numbers index lists: 'pairs.0.clean.p'; a comparison's students are also named by position or \
    alias: 'students.0.clean.agreement.lower', 'students.A.clean.agreement.lower'); OP is \
    < <= > >= == !=. Values print with six significant digits (every digit when rounding would \
    cross the threshold). A gate FAILS when its \
    comparison holds. The figures are recomputed from the report's counts. Exit codes: 0 every \
    gate passes, 2 a gate failed, 1 an error (an unknown path, a value that is not a number, a \
    bad report, a usage error)."
)]
pub(crate) struct GateArgs {
    /// The report (or comparison) to check.
    #[arg(value_name = "REPORT.json")]
    report: PathBuf,
    /// A condition that fails the gate when it holds; repeat for more.
    #[arg(
        long = "fail-on",
        value_name = "GATE",
        required_unless_present = "list"
    )]
    fail_on: Vec<String>,
    /// Print every path a gate can read (the report's numbers) and exit.
    #[arg(long)]
    list: bool,
}

/// Runs `capkit profile gate`.
pub(crate) fn run(args: &GateArgs) -> anyhow::Result<ExitCode> {
    // Every expression parses before the report is read: a typo is an error, never a pass.
    let gates = args
        .fail_on
        .iter()
        .map(|e| Gate::parse(e).map_err(|err| anyhow::anyhow!("--fail-on: {err}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut file = runner::ReportFile::read(&args.report).map_err(super::cli_error)?;
    // Gates read the figures and provenance, not the per-field breakdown beside them.
    file.fields = None;
    let json = file.to_json();
    let mut out = Lines::default();
    if args.list {
        for path in numeric_paths(&json) {
            out.line(path);
        }
        out.print()?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut failed = 0;
    for gate in &gates {
        let outcome = gate
            .evaluate(&json)
            .map_err(|e| anyhow::anyhow!("{}: --fail-on '{gate}': {e}", args.report.display()))?;
        let verdict = if outcome.failed { "FAIL" } else { "pass" };
        failed += usize::from(outcome.failed);
        let estimated = outcome.estimated.map_or(String::new(), |(lower, upper)| {
            format!(" [estimated: interval {lower} to {upper}]")
        });
        out.line(format_args!(
            "{verdict}  {} = {}{estimated} (fails when {} {})",
            gate.path(),
            readable(outcome.value, gate.op(), gate.threshold()),
            gate.op(),
            gate.threshold()
        ));
    }
    out.print()?;
    if failed > 0 {
        eprintln!(
            "capkit: {failed} of {} gates failed on {}",
            gates.len(),
            args.report.display()
        );
        return Ok(ExitCode::from(GATE_FAILED));
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether the command line is `capkit profile gate …` (whose usage errors exit 1, keeping 2
/// for a gate that failed).
pub(crate) fn is_gate_command(args: &[std::ffi::OsString]) -> bool {
    let words: Vec<&str> = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .filter(|a| !a.starts_with('-'))
        .take(2)
        .collect();
    words == ["profile", "gate"]
}
