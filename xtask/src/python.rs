//! The Python half of `cargo xtask test`: build the `capkit-rs` wheel in release mode, install it
//! into the project's own virtual environment and run the pytest suite against it.
//!
//! Everything comes from the project's files: the interpreter is the machine's CPython 3.11 (the
//! version upstream mixle's goldens were made with; `CAPKIT_PYTHON` overrides it), and
//! `crates/capkit-py/requirements-test.txt` pins maturin, pytest, hypothesis and the mixle oracle.
//! The environment lives in `target/py/venv` and is rebuilt whenever the requirements change.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

const REQUIREMENTS: &str = "crates/capkit-py/requirements-test.txt";
const VENV: &str = "target/py/venv";
const WHEELS: &str = "target/py/wheels";

fn run(cmd: &mut Command) -> Result<()> {
    let shown = format!("{cmd:?}");
    println!("xtask: {shown}");
    let status = cmd.status().with_context(|| format!("starting {shown}"))?;
    if !status.success() {
        bail!("failed: {shown}");
    }
    Ok(())
}

fn interpreter() -> String {
    if let Ok(p) = std::env::var("CAPKIT_PYTHON") {
        return p;
    }
    let has = |p: &str| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if has("python3.11") {
        "python3.11"
    } else {
        "python3"
    }
    .to_owned()
}

/// The test environment, created (or re-created) when missing or when the pins changed.
fn venv() -> Result<PathBuf> {
    let venv = PathBuf::from(VENV);
    let python = venv.join("bin/python");
    let stamp = venv.join("capkit-requirements.txt");
    let wanted =
        std::fs::read_to_string(REQUIREMENTS).with_context(|| format!("reading {REQUIREMENTS}"))?;
    if python.exists() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) {
        return Ok(python);
    }
    if venv.exists() {
        std::fs::remove_dir_all(&venv).with_context(|| format!("removing {VENV}"))?;
    }
    run(Command::new(interpreter()).args(["-m", "venv", VENV]))?;
    run(Command::new(&python).args([
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--quiet",
        "-r",
        REQUIREMENTS,
    ]))?;
    std::fs::write(&stamp, wanted).context("writing the venv stamp")?;
    Ok(python)
}

fn the_wheel(dir: &Path) -> Result<PathBuf> {
    let mut wheels: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "whl"))
        .collect();
    if wheels.len() != 1 {
        bail!(
            "expected one wheel in {}, found {}",
            dir.display(),
            wheels.len()
        );
    }
    Ok(wheels.remove(0))
}

/// Builds the release wheel, installs it into the test venv, runs pytest.
pub fn python_tests() -> Result<()> {
    let python = venv()?;
    let bin = python.parent().context("venv layout")?;
    if Path::new(WHEELS).exists() {
        std::fs::remove_dir_all(WHEELS).with_context(|| format!("removing {WHEELS}"))?;
    }
    run(Command::new(bin.join("maturin"))
        .args([
            "build",
            "--release",
            "--quiet",
            "--manifest-path",
            "crates/capkit-py/Cargo.toml",
            "--interpreter",
        ])
        .arg(&python)
        .args(["--out", WHEELS]))?;
    let wheel = std::fs::canonicalize(the_wheel(Path::new(WHEELS))?)?;
    run(Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--quiet",
            "--force-reinstall",
            "--no-deps",
        ])
        .arg(&wheel))?;
    run(Command::new(&python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "crates/capkit-py/pytests",
        ])
        .env("CAPKIT_WHEEL", &wheel)
        .env("CAPKIT_REQUIRE_ORACLE", "1"))?;
    Ok(())
}
