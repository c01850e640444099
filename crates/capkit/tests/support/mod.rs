//! What the command line's integration tests share: the binary, the repository root, scratch
//! directories and the shape of an outcome. Each test file adds the environment its tests need
//! (`TMPDIR`, `RAYON_NUM_THREADS`, …) to [`capkit_in`]'s command.
#![allow(dead_code)] // each test binary uses its part

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The repository root (the examples and other crates' fixtures are named from it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `capkit` binary run in `dir` with stdin closed and no proxy from the environment (every
/// server a test starts listens on 127.0.0.1, and no test reaches anything else).
pub fn capkit_in(dir: &Path) -> Command {
    capkit_at(env!("CARGO_BIN_EXE_capkit"), dir)
}

/// [`capkit_in`] with another `capkit` binary, `exe` (`cache_kill`'s `CAPKIT_BIN`: a release build,
/// or a copy a rebuild cannot replace under a long run).
pub fn capkit_at(exe: impl AsRef<OsStr>, dir: &Path) -> Command {
    let mut cmd = Command::new(exe);
    cmd.current_dir(dir)
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy")
        .stdin(Stdio::null());
    cmd
}

/// Runs `cmd` to its end.
pub fn output(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run capkit: {e}"))
}

/// `out`, after asserting it succeeded (the exit code and stderr shown when not).
pub fn ok(out: &Output) -> &Output {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The stderr of `out`, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit code and stderr, the shape every error snapshot takes.
pub fn failure(out: &Output) -> String {
    format!("exit {:?}\n{}", out.status.code(), stderr(out))
}

/// A fresh directory for one test under cargo's scratch space, removed when the test ends (pass
/// or fail): `PREFIX-TEST-…`.
pub fn scratch(prefix: &str, test: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("{prefix}-{test}-"))
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap_or_else(|e| panic!("cannot create a scratch directory: {e}"))
}
