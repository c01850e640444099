//! The Python half of `cargo xtask test`: build the `capkit-rs` wheel in release mode, install it
//! into the project's own virtual environment and run the pytest suite against it.
//!
//! Everything comes from the project's files: the interpreter is the machine's CPython 3.11 (the
//! version upstream mixle's goldens were made with; `CAPKIT_PYTHON` overrides it), and
//! `crates/capkit-py/requirements-test.txt` pins maturin, pytest, hypothesis and the mixle oracle.
//! The environment lives in the target directory's `py/venv` and is rebuilt whenever the requirements change.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

const REQUIREMENTS: &str = "crates/capkit-py/requirements-test.txt";
/// The test environment, below the cargo target directory.
fn venv_dir() -> Result<PathBuf> {
    Ok(crate::target_dir()?.join("py/venv"))
}

pub(crate) fn run(cmd: &mut Command) -> Result<()> {
    let shown = format!("{cmd:?}");
    println!("xtask: {shown}");
    let status = cmd.status().with_context(|| format!("starting {shown}"))?;
    if !status.success() {
        bail!("failed: {shown}");
    }
    Ok(())
}

pub(crate) fn interpreter() -> String {
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
pub(crate) fn venv() -> Result<PathBuf> {
    let venv = venv_dir()?;
    let python = venv.join("bin/python");
    let stamp = venv.join("capkit-requirements.txt");
    let wanted =
        std::fs::read_to_string(REQUIREMENTS).with_context(|| format!("reading {REQUIREMENTS}"))?;
    if python.exists() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) {
        return Ok(python);
    }
    if venv.exists() {
        std::fs::remove_dir_all(&venv).with_context(|| format!("removing {}", venv.display()))?;
    }
    run(Command::new(interpreter()).args(["-m", "venv"]).arg(&venv))?;
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

/// The one file in `dir` whose name ends in `suffix` (an error if there is none or several).
pub(crate) fn only_file(dir: &Path, suffix: &str) -> Result<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    if found.len() != 1 {
        bail!(
            "expected one {suffix} file in {}, found {}",
            dir.display(),
            found.len()
        );
    }
    Ok(found.remove(0))
}

/// `PATH` with the test venv's `bin/` first: maturin and cargo-zigbuild find Zig as
/// `python -m ziglang` (PyPI `ziglang`, pinned in the requirements) through it.
pub(crate) fn venv_path() -> Result<std::ffi::OsString> {
    let venv = venv_dir()?;
    let bin = std::fs::canonicalize(&venv)
        .with_context(|| format!("{} is missing", venv.display()))?
        .join("bin");
    let mut dirs = vec![bin];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).context("joining PATH")
}

/// The platform tag every Linux wheel we build must have: manylinux2014 (glibc 2.17).
const MANYLINUX: &str = "manylinux_2_17_x86_64";

/// Builds the release wheel into `out` with the Zig linker against glibc 2.17 (`--compatibility
/// manylinux2014`), and has `auditwheel show` confirm its tag. Returns the wheel's path.
pub(crate) fn portable_wheel(python: &Path, out: &Path) -> Result<PathBuf> {
    let bin = python.parent().context("venv layout")?;
    run(Command::new(bin.join("maturin"))
        .args([
            "build",
            "--release",
            "--locked",
            "--quiet",
            "--zig",
            "--compatibility",
            "manylinux2014",
            "--manifest-path",
            "crates/capkit-py/Cargo.toml",
            "--interpreter",
        ])
        .arg(python)
        .arg("--out")
        .arg(out)
        .env("PATH", venv_path()?))?;
    let wheel = std::fs::canonicalize(only_file(out, ".whl")?)?;
    let shown = Command::new(bin.join("auditwheel"))
        .arg("show")
        .arg(&wheel)
        .output()
        .context("starting auditwheel")?;
    let text = String::from_utf8_lossy(&shown.stdout);
    // auditwheel wraps its report at 72 columns: join the lines before looking for the tag.
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let wanted = format!("consistent with the following platform tag: \"{MANYLINUX}\"");
    if !shown.status.success() || !flat.contains(&wanted) {
        bail!(
            "auditwheel does not accept {} as {MANYLINUX}:\n{text}{}",
            wheel.display(),
            String::from_utf8_lossy(&shown.stderr)
        );
    }
    println!("xtask: auditwheel: {} is {MANYLINUX}", wheel.display());
    Ok(wheel)
}

/// Builds the portable release wheel, installs it into the test venv, runs pytest.
pub fn python_tests() -> Result<()> {
    let python = venv()?;
    let wheels = crate::target_dir()?.join("py/wheels");
    if wheels.exists() {
        std::fs::remove_dir_all(&wheels)
            .with_context(|| format!("removing {}", wheels.display()))?;
    }
    let wheel = portable_wheel(&python, &wheels)?;
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
        // The pytests find the CLI binary and make their torch venv in the target directory.
        .env("CARGO_TARGET_DIR", crate::target_dir()?)
        .env("CAPKIT_REQUIRE_ORACLE", "1"))?;
    Ok(())
}
