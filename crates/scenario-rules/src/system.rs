//! What the machine offers a test beyond the Rust toolchain, so that `cargo test --workspace`
//! passes on a bare machine and still proves everything on CI.
//!
//! A test that needs a system package asks [`system_has`] first. Where the package is there the
//! test runs; where it is missing outside CI the test returns early (it passes, having checked
//! nothing) after one `SKIPPED` line on stderr naming the package; under CI (`CI` set, as
//! `.ci/run` and hosted runners set it) a missing package fails the test instead, so CI never
//! counts a test that did not run. The same rule as `cargo xtask test`'s for the browser tests.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// Something a test needs from the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemNeed {
    /// `python3` on the PATH: the `cmd:` models of the examples and fixtures are Python scripts.
    Python3,
    /// Debian's WordNet database in `/usr/share/wordnet`, which the examples of
    /// capkit-transforms' `synonym`, `antonym` and `synonym_insert` read.
    WordNet,
}

impl SystemNeed {
    /// What is missing and how to install it, for the message.
    fn package(self) -> &'static str {
        match self {
            SystemNeed::Python3 => "python3 on the PATH (`apt-get install python3`)",
            SystemNeed::WordNet => {
                "WordNet in /usr/share/wordnet (Debian's `wordnet-base`: `apt-get install wordnet-base`)"
            }
        }
    }

    /// Whether this machine has it (looked up once per process).
    fn present(self) -> bool {
        static PYTHON3: OnceLock<bool> = OnceLock::new();
        static WORDNET: OnceLock<bool> = OnceLock::new();
        match self {
            SystemNeed::Python3 => *PYTHON3.get_or_init(|| {
                Command::new("python3")
                    .arg("--version")
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success())
            }),
            SystemNeed::WordNet => {
                *WORDNET.get_or_init(|| Path::new("/usr/share/wordnet/index.adj").is_file())
            }
        }
    }
}

/// Whether `test` (its name, for the message) can run: `true` when the machine has `need`;
/// `false` outside CI when it lacks it, after one `SKIPPED` line on stderr (written past
/// libtest's capture, so `cargo test` shows it; once per process and line); under CI, a panic
/// naming the package.
pub fn system_has(need: SystemNeed, test: &str) -> bool {
    match decide(need, need.present(), std::env::var_os("CI").is_some(), test) {
        Ok(None) => true,
        Ok(Some(line)) => {
            // Once per process: a helper several tests (or proptest cases) call says it once.
            static SAID: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
            let new = SAID
                .lock()
                .map_or(true, |mut said| said.insert(line.clone()));
            if new {
                // libtest captures `eprintln!` of passing tests; the stderr handle itself is not.
                let _ = writeln!(std::io::stderr(), "{line}");
            }
            false
        }
        Err(message) => panic!("{message}"),
    }
}

/// [`system_has`]'s rule: `Ok(None)` runs the test, `Ok(Some(line))` skips it with that line,
/// `Err` fails it with that message.
fn decide(need: SystemNeed, present: bool, ci: bool, test: &str) -> Result<Option<String>, String> {
    match (present, ci) {
        (true, _) => Ok(None),
        (false, false) => Ok(Some(format!(
            "SKIPPED {test}: needs {} (under CI it fails instead)",
            need.package()
        ))),
        (false, true) => Err(format!(
            "{test} needs {}, which this CI machine lacks",
            need.package()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::{SystemNeed, decide};

    #[test]
    fn a_missing_package_skips_outside_ci_and_fails_under_ci_naming_it() {
        for need in [SystemNeed::Python3, SystemNeed::WordNet] {
            assert_eq!(decide(need, true, false, "t"), Ok(None));
            assert_eq!(decide(need, true, true, "t"), Ok(None));
            let skipped = decide(need, false, false, "my_test");
            let line = skipped
                .as_ref()
                .ok()
                .and_then(|l| l.as_deref())
                .unwrap_or("");
            assert!(line.starts_with("SKIPPED my_test: needs "), "{skipped:?}");
            let failed = decide(need, false, true, "my_test");
            let message = failed.as_ref().err().map_or("", String::as_str);
            assert!(message.starts_with("my_test needs "), "{failed:?}");
        }
        let wordnet = decide(SystemNeed::WordNet, false, true, "t");
        assert!(format!("{wordnet:?}").contains("wordnet-base"));
        let python = decide(SystemNeed::Python3, false, false, "t");
        assert!(format!("{python:?}").contains("python3"));
    }
}
