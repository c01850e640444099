//! `cargo xtask test`: the README's test command, `cargo test --workspace`, then the Python
//! package's tests (see `python.rs`). capkit-report's `#[ignore]`d browser tests run when Chromium
//! is there or under CI; outside CI each group whose system data is missing (Chromium, WordNet,
//! fortunes, Debian's torch) is named with one printed line.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::{cargo, python};

/// The README's test command: every Rust test, then the Python package's. Test groups that
/// need something from the system the machine lacks are skipped outside CI, each with one line
/// (repeated at the end); under CI (`CI` set) they run and fail.
pub(crate) fn test() -> Result<()> {
    let system = SystemTestData {
        ci: std::env::var_os("CI").is_some(),
        chromium: std::env::var_os("CAPKIT_CHROMIUM").is_some()
            || std::env::var_os("PATH").is_some_and(|paths| {
                std::env::split_paths(&paths).any(|d| d.join("chromium").is_file())
            }),
        wordnet: Path::new(WORDNET_INDEX).is_file(),
        fortunes: Path::new(FORTUNES).is_dir(),
        torch: std::env::var_os("CAPKIT_TORCH_PYTHON").is_some()
            || Path::new(DEBIAN_TORCH).is_file(),
    };
    let plan = system.plan();
    for line in &plan.skipped {
        println!("xtask test: {line}");
    }
    rust_tests_leaving_no_temp_files(&plan)?;
    println!("xtask: python tests");
    python::python_tests()?;
    for line in &plan.skipped {
        println!("xtask test: {line}");
    }
    Ok(())
}

/// The WordNet file capkit-transforms' catalogue goldens read (Debian's `wordnet-base`).
const WORDNET_INDEX: &str = "/usr/share/wordnet/index.adj";
/// The corpus the distillation example's CI-sized pytest labels (Debian's `fortunes`).
const FORTUNES: &str = "/usr/share/games/fortunes";
/// Debian's CPU torch (`python3-torch`), which mixle's own capability test files train their
/// students with (`test_mixle_own_tests.py`; `CAPKIT_TORCH_PYTHON` names another interpreter).
const DEBIAN_TORCH: &str = "/usr/lib/python3/dist-packages/torch/__init__.py";

/// What the machine offers the tests that need more than Rust and Python.
struct SystemTestData {
    ci: bool,
    chromium: bool,
    wordnet: bool,
    fortunes: bool,
    torch: bool,
}

/// How `cargo xtask test` runs on a machine.
#[derive(Debug, PartialEq)]
struct TestPlan {
    /// Run capkit-report's `#[ignore]`d browser tests.
    browser: bool,
    /// One line per group skipped.
    skipped: Vec<String>,
}

impl SystemTestData {
    fn plan(&self) -> TestPlan {
        let mut plan = TestPlan {
            browser: self.chromium || self.ci,
            skipped: Vec::new(),
        };
        if !plan.browser {
            plan.skipped.push(
                "SKIPPED capkit-report's browser tests: no `chromium` on the PATH and no $CAPKIT_CHROMIUM (`apt-get install chromium fonts-dejavu-core`; CI fails instead)".to_owned(),
            );
        }
        if !self.wordnet && !self.ci {
            // The tests leave out their WordNet cases themselves (`scenario_rules::system_has`);
            // this says why up front.
            plan.skipped.push(format!(
                "SKIPPED the WordNet transforms' cases of capkit-transforms' goldens and laws and of the CLI's listing test: no {WORDNET_INDEX} (`apt-get install wordnet-base`; CI fails instead)"
            ));
        }
        if !self.fortunes && !self.ci {
            // The pytest skips itself (and says so in pytest's summary); this says why up front.
            plan.skipped.push(format!(
                "SKIPPED the distillation example's CI-sized pytest (test_distill_example.py): no {FORTUNES} (`apt-get install fortunes`; CI fails instead)"
            ));
        }
        if !self.torch && !self.ci {
            plan.skipped.push(format!(
                "SKIPPED mixle's own capability test files (test_mixle_own_tests.py): no {DEBIAN_TORCH} (`apt-get install --no-install-recommends python3-torch`; CI fails instead)"
            ));
        }
        plan
    }
}

/// `cargo test --workspace` (and the browser tests if `plan` says so) with `TMPDIR` pointing at
/// a fresh, empty directory, which must be empty again afterwards: tests clean up after
/// themselves, pass or fail (issue 13 item 9).
fn rust_tests_leaving_no_temp_files(plan: &TestPlan) -> Result<()> {
    let tmp = crate::target_dir()?.join("test-tmpdir");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let mut runs: Vec<Vec<&str>> = vec![vec!["test", "--workspace"]];
    if plan.browser {
        runs.push(vec![
            "test",
            "-p",
            "capkit-report",
            "--test",
            "browser",
            "--",
            "--ignored",
        ]);
    }
    for args in runs {
        let line = format!("cargo {}", args.join(" "));
        println!("xtask ci: tests: {line} (TMPDIR={})", tmp.display());
        let status = Command::new(cargo())
            .args(&args)
            .env("TMPDIR", &tmp)
            .status()
            .with_context(|| format!("starting `{line}`"))?;
        if !status.success() {
            bail!("tests failed: `{line}`");
        }
    }
    let mut left: Vec<String> = std::fs::read_dir(&tmp)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<_>>()?;
    left.sort();
    if !left.is_empty() {
        bail!(
            "the tests left {} entries in TMPDIR ({}): {}; use the tempfile crate so they are removed",
            left.len(),
            tmp.display(),
            left.join(", ")
        );
    }
    std::fs::remove_dir(&tmp).ok();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{SystemTestData, TestPlan};

    #[test]
    fn a_fresh_machine_skips_each_missing_group_with_one_line_and_ci_skips_none() {
        let bare = SystemTestData {
            ci: false,
            chromium: false,
            wordnet: false,
            fortunes: false,
            torch: false,
        };
        let plan = bare.plan();
        assert!(!plan.browser);
        assert_eq!(plan.skipped.len(), 4, "{:?}", plan.skipped);
        for (line, what) in plan
            .skipped
            .iter()
            .zip(["chromium", "wordnet", "fortunes", "torch"])
        {
            assert!(
                line.starts_with("SKIPPED ") && line.contains(what),
                "{line}"
            );
        }
        let ci = SystemTestData { ci: true, ..bare };
        assert_eq!(
            ci.plan(),
            TestPlan {
                browser: true,
                skipped: vec![]
            }
        );
        let full = SystemTestData {
            ci: false,
            chromium: true,
            wordnet: true,
            fortunes: true,
            torch: true,
        };
        assert_eq!(full.plan(), ci.plan());
    }
}
