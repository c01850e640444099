//! Workspace automation for capkit (`cargo xtask <command>`), one module per command:
//!
//! * `check-goldens`, `bless-goldens`, `golden-selftest` (`goldens.rs`): run every golden test
//!   and name each golden that changed; accept insta snapshots; prove a perturbed snapshot fails.
//! * `test` (`test.rs`): the README's test command, `cargo test --workspace` then the Python
//!   package's tests (`python.rs`).
//! * `arch-check` (`arch.rs`): `docs/architecture.md`'s crate table against `cargo metadata`.
//! * `module-cycles` (`module_cycles.rs`): no import circle between top-level modules.
//! * `readme-snippets` (`readme_snippets.rs`): README and guide Rust blocks are doc tests.
//! * `docs-check` (`docs_check.rs`): every `capkit …` and `cargo xtask …` command the README and
//!   guides name exists, and every Markdown link stays inside the repository and reaches a file.
//! * `package-check` (`package_check.rs`): `cargo publish --dry-run` and packaged file lists.
//! * `fuzz-smoke` (`fuzz_smoke.rs`): 15 s of every fuzz target from the committed seeds.
//! * `dist` (`dist.rs`): the portable wheel, sdist and glibc-2.17 binary.
//! * `ci` (`ci.rs`): everything `.ci/run` runs, in the same order.
//!
//! Every command writes below the cargo target directory ([`target_dir`]: `CARGO_TARGET_DIR` or
//! the configured one, as `cargo metadata` reports it), never a hard-coded `target/`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::OnceLock;

use anyhow::{Context, Result, bail};

mod arch;
mod ci;
mod dist;
mod docs_check;
mod fuzz_smoke;
mod goldens;
mod module_cycles;
mod package_check;
mod python;
mod readme_snippets;
mod test;

const USAGE: &str = "usage: cargo xtask <test | check-goldens [-p PACKAGE]... | bless-goldens | golden-selftest | arch-check | module-cycles | readme-snippets | docs-check | package-check | fuzz-smoke | dist | ci>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<()> {
    let root = workspace_root()?;
    std::env::set_current_dir(&root).context("entering the workspace root")?;
    match args.first().map(String::as_str) {
        Some("check-goldens") => goldens::check_goldens(&packages(&args[1..])?),
        Some("bless-goldens") => goldens::bless_goldens(),
        Some("golden-selftest") => goldens::golden_selftest(),
        Some("test") => test::test(),
        Some("arch-check") => arch::arch_check(),
        Some("module-cycles") => module_cycles::module_cycles(),
        Some("readme-snippets") => readme_snippets::readme_snippets(),
        Some("docs-check") => docs_check::docs_check(),
        Some("package-check") => package_check::package_check(),
        Some("fuzz-smoke") => fuzz_smoke::fuzz_smoke(),
        Some("dist") => dist::dist(),
        Some("ci") => ci::ci(),
        _ => bail!("{USAGE}"),
    }
}

fn packages(args: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" | "--package" => out.push(it.next().context("-p needs a package name")?.clone()),
            other => bail!("unexpected argument `{other}`\n{USAGE}"),
        }
    }
    Ok(out)
}

fn workspace_root() -> Result<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map(Path::to_path_buf)
        .context("xtask must live one level below the workspace root")
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// `cargo metadata --format-version 1 --no-deps`'s JSON (run once; `arch-check` reads the
/// packages, [`target_dir`] the target directory).
fn metadata() -> Result<&'static serde_json::Value> {
    static METADATA: OnceLock<serde_json::Value> = OnceLock::new();
    if let Some(m) = METADATA.get() {
        return Ok(m);
    }
    let output = Command::new(cargo())
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .context("starting `cargo metadata`")?;
    if !output.status.success() {
        bail!(
            "`cargo metadata --format-version 1 --no-deps` failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let json =
        serde_json::from_slice(&output.stdout).context("cargo metadata's output is not JSON")?;
    Ok(METADATA.get_or_init(|| json))
}

/// The cargo target directory, absolute: what cargo builds into, so `CARGO_TARGET_DIR` and
/// `build.target-dir` are honoured (cargo resolves both into `target_directory`).
fn target_dir() -> Result<PathBuf> {
    metadata()?
        .get("target_directory")
        .and_then(serde_json::Value::as_str)
        .map(PathBuf::from)
        .context("cargo metadata: no `target_directory`")
}

/// Runs `cargo ARGS` as CI step `name`, failing with the command line.
fn step(name: &str, args: &[&str]) -> Result<()> {
    println!("xtask ci: {name}: cargo {}", args.join(" "));
    let status = Command::new(cargo())
        .args(args)
        .status()
        .with_context(|| format!("starting `cargo {}`", args.join(" ")))?;
    if !status.success() {
        bail!("{name} failed: `cargo {}`", args.join(" "));
    }
    Ok(())
}
