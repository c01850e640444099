//! `cargo xtask module-cycles`: no import circle between the top-level modules of the crates in
//! [`CIRCLE_FREE`] (`scripts/module_cycles.py`).

use std::process::Command;

use anyhow::{Context, Result, bail};

/// The crates whose top-level modules import one another one way only: every crate, and xtask.
const CIRCLE_FREE: &[&str] = &[
    "crates/augment",
    "crates/capkit",
    "crates/capkit-py",
    "crates/capkit-report",
    "crates/capture",
    "crates/chat-client",
    "crates/extractive",
    "crates/model-adapters",
    "crates/mutator-eval",
    "crates/outfile",
    "crates/profile-stats",
    "crates/profile-types",
    "crates/runner",
    "crates/scenario-rules",
    "crates/slices",
    "crates/suite-core",
    "crates/transforms",
    "crates/typo-generators",
    "crates/typo-tasks",
    "xtask",
];

/// `scripts/module_cycles.py` over [`CIRCLE_FREE`]: fails, printing the circle, if one came back.
pub(crate) fn module_cycles() -> Result<()> {
    println!(
        "xtask ci: module circles: python3 scripts/module_cycles.py {}",
        CIRCLE_FREE.join(" ")
    );
    let output = Command::new("python3")
        .arg("scripts/module_cycles.py")
        .args(CIRCLE_FREE)
        .output()
        .context("starting python3 scripts/module_cycles.py")?;
    if !output.status.success() {
        print!("{}", String::from_utf8_lossy(&output.stdout));
        eprint!("{}", String::from_utf8_lossy(&output.stderr));
        bail!(
            "an import circle between top-level modules of {} (see CIRCLE above): move the shared piece down",
            CIRCLE_FREE.join(", ")
        );
    }
    Ok(())
}
