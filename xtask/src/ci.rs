//! `cargo xtask ci`: everything `.ci/run` runs, in the same order.

use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::{
    arch, cargo, dist, docs_check, fuzz_smoke, goldens, module_cycles, package_check,
    readme_snippets, step, test,
};

pub(crate) fn ci() -> Result<()> {
    step("format", &["fmt", "--all", "--", "--check"])?;
    // fuzz/ is its own workspace (nightly-only to build, not to format): checked here too.
    step(
        "format (fuzz targets)",
        &[
            "fmt",
            "--manifest-path",
            "fuzz/Cargo.toml",
            "--all",
            "--",
            "--check",
        ],
    )?;
    step(
        "lint",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    // The binding crate's code only compiles with its `python` feature.
    step(
        "lint (python bindings)",
        &[
            "clippy",
            "-p",
            "capkit-py",
            "--features",
            "python",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    // The model adapters without their HTTP features (`cmd:` and `file:` only): the workspace
    // runs above and below unify them on.
    step(
        "lint (model adapters without HTTP)",
        &[
            "clippy",
            "-p",
            "capkit-model-adapters",
            "--no-default-features",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    // capkit-chat-client's https path: its `tls` feature is opt-in (ring is a C build), so the
    // workspace lint and test runs above and below do not compile it.
    step(
        "lint (https client)",
        &[
            "clippy",
            "-p",
            "capkit-chat-client",
            "--features",
            "tls",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    // The crate graph the architecture doc promises (cargo metadata only: no build).
    arch::arch_check()?;
    module_cycles::module_cycles()?;
    step(
        "https client against a local TLS server",
        &[
            "test",
            "-p",
            "capkit-chat-client",
            "--features",
            "tls",
            "--test",
            "tls",
        ],
    )?;
    readme_snippets::readme_snippets()?;
    // The commands and links the README and guides name exist (builds the CLI).
    docs_check::docs_check()?;
    // The README's test command.
    test::test()?;
    // The portable release artefacts build and pass their checks on this machine.
    dist::dist()?;
    // Docs build without broken or private intra-doc links.
    println!("xtask ci: docs: cargo doc --workspace --no-deps (RUSTDOCFLAGS=-D warnings)");
    let status = Command::new(cargo())
        .args(["doc", "--workspace", "--no-deps"])
        .env("RUSTDOCFLAGS", "-D warnings")
        .status()
        .context("starting `cargo doc`")?;
    if !status.success() {
        bail!("docs failed: `cargo doc --workspace --no-deps` with RUSTDOCFLAGS=-D warnings");
    }
    println!("xtask ci: goldens");
    goldens::check_goldens(&[])?;
    package_check::package_check()?;
    fuzz_smoke::fuzz_smoke()?;
    goldens::golden_selftest()?;
    step(
        "dependency policy",
        &["deny", "check", "licenses", "bans", "sources"],
    )?;
    println!("xtask ci: all green");
    Ok(())
}
