//! Output paths: refused before any work when they cannot be written, never half-written, and no
//! temporary file survives an interrupted run (SIGINT/SIGTERM at once, SIGKILL on the next run).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;

use support::{capkit_in, output, root, stderr};

fn capkit(dir: &Path) -> Command {
    let mut cmd = capkit_in(dir);
    cmd.env("TMPDIR", dir).env("RAYON_NUM_THREADS", "1");
    cmd
}

fn run(dir: &Path, args: &[&str]) -> Output {
    output(capkit(dir).args(args))
}

/// A corpus big enough that emitting it takes seconds (the bench names with 10 prefixes).
fn big_corpus(dir: &Path) -> PathBuf {
    let names =
        fs::read_to_string(root().join("crates/typo-tasks/tests/fixtures/bench_domains2000.txt"))
            .unwrap();
    let mut corpus = String::new();
    for i in 0..10 {
        for name in names.lines() {
            corpus.push_str(&format!("v{i}-{name}\n"));
        }
    }
    let path = dir.join("big.txt");
    fs::write(&path, corpus).unwrap();
    path
}

/// The names in `dir` other than `keep`.
fn others(dir: &Path, keep: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    names.sort();
    names
}

/// Waits until a non-empty capkit temporary file exists in `dir` (the run is writing).
fn wait_for_temp(dir: &Path, child: &mut Child) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(120) {
        let writing = fs::read_dir(dir).unwrap().any(|e| {
            let e = e.unwrap();
            e.file_name().to_string_lossy().contains(".capkit-")
                && e.metadata().is_ok_and(|m| m.len() > 0)
        });
        if writing {
            return;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "capkit ended before writing"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("no temporary file appeared");
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn sigterm_and_sigint_during_emit_out_leave_no_temporary_file() {
    for sig in ["TERM", "INT"] {
        let dir = tempfile::tempdir().unwrap();
        let corpus = big_corpus(dir.path());
        fs::write(dir.path().join("c.jsonl"), "old\n").unwrap();
        let mut child = capkit(dir.path())
            .args(["typo", "emit", "--corpus"])
            .arg(&corpus)
            .args(["--drop-unrepresentable", "--out", "c.jsonl"])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_temp(dir.path(), &mut child);
        signal(&child, sig);
        let status = child.wait().unwrap();
        assert!(!status.success(), "SIG{sig}: {status:?}");
        assert_eq!(
            others(dir.path(), &["big.txt", "c.jsonl"]),
            Vec::<String>::new(),
            "SIG{sig}"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("c.jsonl")).unwrap(),
            "old\n"
        );
    }
}

#[test]
fn a_killed_emit_out_is_cleaned_up_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = big_corpus(dir.path());
    let mut child = capkit(dir.path())
        .args(["typo", "emit", "--corpus"])
        .arg(&corpus)
        .args(["--drop-unrepresentable", "--out", "c.jsonl"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_temp(dir.path(), &mut child);
    child.kill().unwrap();
    child.wait().unwrap();
    // SIGKILL cannot be caught: the temporary file is still there...
    assert_eq!(others(dir.path(), &["big.txt"]).len(), 1);
    // ...until the next run writing the same file.
    fs::write(dir.path().join("one.txt"), "a.com\n").unwrap();
    let out = run(
        dir.path(),
        &["typo", "emit", "--corpus", "one.txt", "--out", "c.jsonl"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        others(dir.path(), &["big.txt", "one.txt", "c.jsonl"]),
        Vec::<String>::new()
    );
}

#[test]
fn a_killed_spooled_emit_leaves_nothing_in_the_temporary_directory() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = big_corpus(dir.path());
    // Without --drop-unrepresentable stdout is spooled until the corpus is complete.
    let mut child = capkit(dir.path())
        .args(["typo", "emit", "--corpus"])
        .arg(&corpus)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended too early to test"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(others(dir.path(), &["big.txt"]), Vec::<String>::new());
}

#[test]
fn emit_out_a_directory_is_refused_before_generating() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    let out = run(dir.path(), &["typo", "emit", "--out", "sub"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "capkit: --out sub: is a directory\n");
    let out = run(dir.path(), &["typo", "emit", "--out", "missing/c.jsonl"]);
    assert_eq!(
        stderr(&out),
        "capkit: --out missing/c.jsonl: the directory missing does not exist\n"
    );
    assert_eq!(others(dir.path(), &["sub"]), Vec::<String>::new());
}

#[test]
fn mutator_eval_checks_every_output_before_replacing_any() {
    let dir = tempfile::tempdir().unwrap();
    let cases = root().join("crates/mutator-eval/examples/cases.jsonl");
    fs::write(dir.path().join("results.jsonl"), "old\n").unwrap();
    let out = capkit(dir.path())
        .args(["mutator", "eval"])
        .arg(&cases)
        .args([
            "--replay",
            "--out",
            "results.jsonl",
            "--summary-out",
            "no/summary.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "capkit: --summary-out no/summary.json: the directory no does not exist\n"
    );
    assert!(out.stdout.is_empty());
    assert_eq!(
        fs::read_to_string(dir.path().join("results.jsonl")).unwrap(),
        "old\n"
    );

    fs::create_dir(dir.path().join("d")).unwrap();
    let out = capkit(dir.path())
        .args(["mutator", "eval"])
        .arg(&cases)
        .args(["--replay", "--out", "d"])
        .output()
        .unwrap();
    assert_eq!(stderr(&out), "capkit: --out d: is a directory\n");
}

#[test]
fn profile_out_is_checked_before_the_models_start() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("texts.txt"), "a\n").unwrap();
    fs::create_dir(dir.path().join("d")).unwrap();
    // A model that cannot start: the --out refusal must come first.
    let out = run(
        dir.path(),
        &[
            "profile",
            "classify",
            "--texts",
            "texts.txt",
            "--student",
            "cmd:/nonexistent/model",
            "--teacher",
            "cmd:/nonexistent/model",
            "--no-cache",
            "--out",
            "d",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "capkit: --out d: is a directory\n");
}

/// A chat-completions server that accepts connections and never answers, counting them.
fn serve_nothing() -> (String, std::sync::mpsc::Receiver<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
            let _ = tx.send(());
        }
    });
    (base, rx)
}

#[test]
fn an_interrupted_mutator_eval_keeps_the_previous_out_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cases = root().join("crates/mutator-eval/examples/cases.jsonl");
    fs::write(dir.path().join("results.jsonl"), "old\n").unwrap();
    let (base, connected) = serve_nothing();
    let mut child = capkit(dir.path())
        .args(["mutator", "eval"])
        .arg(&cases)
        .args(["--base-url", &base, "--model", "m", "--no-cache"])
        .args(["--timeout", "120", "--concurrency", "1"])
        .args(["--out", "results.jsonl"])
        .env_remove("OPENAI_API_KEY")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The first request is in flight: the run has started writing.
    connected.recv_timeout(Duration::from_secs(60)).unwrap();
    signal(&child, "TERM");
    assert!(!child.wait().unwrap().success());
    assert_eq!(
        fs::read_to_string(dir.path().join("results.jsonl")).unwrap(),
        "old\n"
    );
    assert_eq!(others(dir.path(), &["results.jsonl"]), Vec::<String>::new());
}

/// `--out` files get what the umask gives an ordinary new file (issue 21: always 0600, the
/// temporary file's private mode, kept by the rename).
#[cfg(unix)]
#[test]
fn out_files_get_the_umask_mode_of_a_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("one.txt"), "example.com\n").unwrap();
    for (umask, mode) in [("022", 0o644), ("002", 0o664)] {
        let out = Command::new("sh")
            .args(["-c", &format!("umask {umask}; exec \"$0\" \"$@\"")])
            .arg(env!("CARGO_BIN_EXE_capkit"))
            .args(["typo", "emit", "--corpus", "one.txt", "--out", "c.jsonl"])
            .current_dir(dir.path())
            .env("TMPDIR", dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let meta = fs::metadata(dir.path().join("c.jsonl")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, mode, "umask {umask}");
        fs::remove_file(dir.path().join("c.jsonl")).unwrap();
    }
}
