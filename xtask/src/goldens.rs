//! `cargo xtask check-goldens`, `bless-goldens` and `golden-selftest`.
//!
//! A golden test is any test whose name contains `golden` (the libtest filter `golden` selects
//! exactly them). It either compares against an upstream conformance fixture copied into the
//! crate's `tests/` or asserts an insta snapshot stored under `tests/snapshots/`.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::cargo;

/// Every `*.snap.new` file below `crates/` (insta's pending snapshots).
fn pending_snapshots() -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![PathBuf::from("crates")];
    while let Some(dir) = stack.pop() {
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?
        {
            let path = entry?.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    stack.push(path);
                }
            } else if path.to_string_lossy().ends_with(".snap.new") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The outcome of one run of the golden tests.
struct GoldenRun {
    failed_tests: Vec<String>,
    changed_snapshots: Vec<PathBuf>,
    success: bool,
}

fn run_goldens(pkgs: &[String], insta_update: &str) -> Result<GoldenRun> {
    for stale in pending_snapshots()? {
        std::fs::remove_file(&stale).with_context(|| format!("removing {}", stale.display()))?;
    }
    let mut cmd = Command::new(cargo());
    cmd.args(["test", "--no-fail-fast"]);
    if pkgs.is_empty() {
        cmd.arg("--workspace");
    }
    for p in pkgs {
        cmd.args(["-p", p]);
    }
    cmd.args(["--", "golden"])
        .env("INSTA_UPDATE", insta_update)
        .env_remove("INSTA_FORCE_PASS")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let output = cmd.output().context("running cargo test")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    print!("{stdout}");
    let mut failed_tests: Vec<String> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test ")?.strip_suffix(" ... FAILED"))
        .map(str::to_owned)
        .collect();
    failed_tests.sort();
    failed_tests.dedup();
    let ran_any = stdout
        .lines()
        .any(|l| l.starts_with("test ") && l.contains(" ... "));
    if !ran_any {
        bail!("no golden test ran: every golden test's name must contain `golden`");
    }
    Ok(GoldenRun {
        failed_tests,
        changed_snapshots: if insta_update == "new" {
            pending_snapshots()?
        } else {
            Vec::new()
        },
        success: output.status.success(),
    })
}

pub(crate) fn check_goldens(pkgs: &[String]) -> Result<()> {
    let run = run_goldens(pkgs, "new")?;
    if run.success && run.changed_snapshots.is_empty() {
        println!("xtask: every golden matches");
        return Ok(());
    }
    eprintln!("xtask: goldens that changed:");
    for t in &run.failed_tests {
        eprintln!("  test {t}");
    }
    for s in &run.changed_snapshots {
        eprintln!(
            "  snapshot {} (new output in {})",
            s.display().to_string().trim_end_matches(".new"),
            s.display()
        );
    }
    bail!(
        "{} golden test(s) failed, {} snapshot(s) changed; inspect the diff, then fix the code or run `cargo xtask bless-goldens`",
        run.failed_tests.len(),
        run.changed_snapshots.len()
    )
}

pub(crate) fn bless_goldens() -> Result<()> {
    let run = run_goldens(&[], "always")?;
    if !run.success {
        bail!(
            "tests still failing after blessing snapshots (conformance fixtures are upstream data and cannot be blessed): {}",
            run.failed_tests.join(", ")
        );
    }
    println!("xtask: snapshots accepted; review `git diff -- '*.snap'` before committing");
    Ok(())
}

/// The snapshot the self-test perturbs: a classifier golden.
const SELFTEST_SNAPSHOT: &str =
    "crates/capture/tests/snapshots/conformance__golden_scenario_01.snap";

pub(crate) fn golden_selftest() -> Result<()> {
    let path = PathBuf::from(SELFTEST_SNAPSHOT);
    let original =
        std::fs::read_to_string(&path).with_context(|| format!("reading {SELFTEST_SNAPSHOT}"))?;
    let perturbed = original.replacen("\"clean_agreement\": 0.7", "\"clean_agreement\": 0.71", 1);
    if perturbed == original {
        bail!(
            "{SELFTEST_SNAPSHOT} no longer holds `\"clean_agreement\": 0.7`; update the self-test"
        );
    }
    std::fs::write(&path, perturbed).with_context(|| format!("writing {SELFTEST_SNAPSHOT}"))?;
    let result = run_goldens(&["capkit-capture".to_owned()], "new");
    // Restore before looking at the result, whatever it is.
    std::fs::write(&path, &original).with_context(|| format!("restoring {SELFTEST_SNAPSHOT}"))?;
    for stale in pending_snapshots()? {
        std::fs::remove_file(&stale)?;
    }
    let run = result?;
    let named = run
        .failed_tests
        .iter()
        .any(|t| t.contains("golden_scenario_01"))
        && run
            .changed_snapshots
            .iter()
            .any(|s| s.to_string_lossy().contains("golden_scenario_01"));
    if run.success || !named {
        bail!("check-goldens did not catch a perturbed {SELFTEST_SNAPSHOT}");
    }
    println!("xtask: golden self-test ok: a perturbed snapshot fails check-goldens and is named");
    Ok(())
}
