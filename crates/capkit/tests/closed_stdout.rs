//! A closed stdout (`capkit … | head -1`) is a normal end for every command: exit 0, nothing on
//! stderr, no temporary file left behind.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Stdio;

mod support;

use support::{capkit_in, root};

/// Runs capkit with a stdout whose reading end is closed before the program starts, so every
/// write to it fails with a broken pipe (no race with a reader that might still be reading).
fn with_closed_stdout(args: &[&str], dir: &Path) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = capkit_in(dir)
        .args(args)
        .env("TMPDIR", dir)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_quiet_end(args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let (code, stderr) = with_closed_stdout(args, dir.path());
    assert_eq!(code, Some(0), "{args:?}: stderr {stderr}");
    assert!(
        !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
        "{args:?}: {stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{args:?} left {left:?}");
}

fn fixture(path: &str) -> String {
    root().join(path).display().to_string()
}

#[test]
fn typo_commands_end_quietly_on_a_closed_stdout() {
    assert_quiet_end(&["typo", "tasks"]);
    let corpus = fixture("crates/typo-tasks/tests/fixtures/corpus_writejsonl.jsonl");
    assert_quiet_end(&["typo", "stats", &corpus]);
    let inputs = fixture("crates/typo-tasks/tests/fixtures/inputs.txt");
    // Streamed (nothing can be refused) and spooled (the corpus could still be refused).
    assert_quiet_end(&[
        "typo",
        "emit",
        "--corpus",
        &inputs,
        "--drop-unrepresentable",
    ]);
    assert_quiet_end(&["typo", "emit", "--corpus", &inputs, "--tasks", "co,cs"]);
}

#[test]
fn typo_score_ends_quietly_on_a_closed_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.jsonl");
    let predictions = dir.path().join("predictions.jsonl");
    std::fs::write(
        &corpus,
        "{\"task\":\"co\",\"input\":\"ab\",\"expect\":[\"a\",\"b\"]}\n",
    )
    .unwrap();
    std::fs::write(
        &predictions,
        "{\"task\":\"co\",\"input\":\"ab\",\"predict\":[\"a\"]}\n",
    )
    .unwrap();
    let (corpus, predictions) = (
        corpus.display().to_string(),
        predictions.display().to_string(),
    );
    for json in [false, true] {
        let mut args = vec![
            "typo",
            "score",
            "--corpus",
            &corpus,
            "--predictions",
            &predictions,
        ];
        if json {
            args.push("--json");
        }
        assert_quiet_end(&args);
    }
}

#[test]
fn profile_and_mutator_commands_end_quietly_on_a_closed_stdout() {
    assert_quiet_end(&["profile", "default-suite"]);
    let texts = fixture("examples/profile/texts.txt");
    assert_quiet_end(&["profile", "texts", "--texts", &texts]);
    let cases = fixture("crates/mutator-eval/examples/cases.jsonl");
    assert_quiet_end(&["mutator", "eval", &cases, "--replay"]);
}
