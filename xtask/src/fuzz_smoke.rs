//! `cargo xtask fuzz-smoke`: 15 s of every fuzz target (`fuzz/`, cargo-fuzz on nightly), from the
//! committed seeds; skipped with a printed line when nightly or cargo-fuzz is missing.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::cargo;

/// Seconds each fuzz target runs in the smoke run.
const FUZZ_SMOKE_SECS: u32 = 15;

/// The fuzz targets: the `[[bin]]` names of `fuzz/Cargo.toml`.
fn fuzz_targets() -> Result<Vec<String>> {
    let manifest = std::fs::read_to_string("fuzz/Cargo.toml").context("reading fuzz/Cargo.toml")?;
    let mut targets = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if in_bin
            && let Some(name) = line
                .strip_prefix("name = \"")
                .and_then(|n| n.strip_suffix('"'))
        {
            targets.push(name.to_owned());
        }
    }
    Ok(targets)
}

/// A short run of every fuzz target from its committed seeds, with the limits of the long runs
/// (inputs up to 4 KiB, 2 GiB) but 10 s per input (see below). Needs the nightly toolchain and cargo-fuzz.
pub(crate) fn fuzz_smoke() -> Result<()> {
    let have = |args: &[&str]| {
        Command::new(cargo())
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    // `cargo +nightly` needs rustup's cargo, not the toolchain binary CARGO may point at.
    let nightly = Command::new("cargo")
        .args(["+nightly", "fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !nightly || !have(&["--version"]) {
        println!(
            "xtask ci: fuzz smoke run skipped: needs the nightly toolchain and cargo-fuzz (`rustup toolchain install nightly`, `cargo install cargo-fuzz`)"
        );
        return Ok(());
    }
    for target in fuzz_targets()? {
        let corpus = crate::target_dir()?.join("fuzz-smoke").join(&target);
        let _ = std::fs::remove_dir_all(&corpus);
        std::fs::create_dir_all(&corpus)?;
        let seeds = PathBuf::from("fuzz/seeds").join(&target);
        println!("xtask ci: fuzz smoke: {target} ({FUZZ_SMOKE_SECS} s)");
        let status = Command::new("cargo")
            .args(["+nightly", "fuzz", "run", "--sanitizer", "none", &target])
            .arg(&corpus)
            .arg(&seeds)
            .args([
                "--",
                &format!("-max_total_time={FUZZ_SMOKE_SECS}"),
                "-max_len=4096",
                // The long runs use -timeout=1; CI shares this 2-core machine with other
                // sessions, where an instrumented numeral walk (11-21 ms in release) has taken
                // over a second of wall time at load 15: a smoke run must not fail on the load.
                "-timeout=10",
                "-rss_limit_mb=2048",
                "-print_final_stats=1",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .with_context(|| format!("starting the fuzz target {target}"))?;
        let _ = std::fs::remove_dir_all(&corpus);
        let log = String::from_utf8_lossy(&status.stderr);
        if !status.status.success() {
            eprintln!("{log}");
            bail!(
                "fuzz target {target} failed (its crash input is under fuzz/artifacts/{target}/)"
            );
        }
        // libFuzzer's final stats: executions and peak memory.
        for line in log.lines().filter(|l| {
            l.starts_with("stat::number_of_executed_units") || l.starts_with("stat::peak_rss_mb")
        }) {
            println!("  {line}");
        }
    }
    Ok(())
}
