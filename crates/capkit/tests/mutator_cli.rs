//! `capkit mutator eval` end to end: the shipped example offline, error counting and exit codes,
//! and a live run against a local chat-completions server whose reply is then served from the
//! cache.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

mod support;

use support::{capkit_in, output};

fn capkit(args: &[&str], dir: &Path) -> Output {
    output(capkit_in(dir).args(args).env_remove("OPENAI_API_KEY"))
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mutator-eval/examples/cases.jsonl")
}

/// A fresh temporary directory for one test, removed when the test ends (pass or fail).
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("capkit-mutator-cli-{name}-"))
        .tempdir()
        .unwrap()
}

#[test]
fn replay_of_the_shipped_example() {
    let tmp = temp_dir("replay");
    let dir = tmp.path();
    let example = example();
    let out = capkit(
        &[
            "mutator",
            "eval",
            example.to_str().unwrap(),
            "--replay",
            "--out",
            "results.jsonl",
            "--summary-out",
            "summary.json",
        ],
        dir,
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("cases               6"), "{stdout}");
    assert!(stdout.contains("mean accuracy       0.8611"), "{stdout}");
    assert!(
        stdout.contains("overall match rate  0.5000  (3 of 6)"),
        "{stdout}"
    );
    let results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = results
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[2]["id"], "wrong-night-count");
    assert_eq!(lines[2]["result"]["comparison"]["mismatched_fields"], 1);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["errors"], 0);
}

#[test]
fn errored_cases_make_the_exit_code_nonzero() {
    let tmp = temp_dir("errors");
    let dir = tmp.path();
    std::fs::write(
        dir.join("cases.jsonl"),
        concat!(
            r#"{"id": "ok", "input": {"prompt": "x"}, "expected_post_state": {}, "reply": "[]"}"#,
            "\n",
            r#"{"id": "no-reply", "input": {"prompt": "x"}, "expected_post_state": {}}"#,
            "\n",
            "not json\n",
            r#"{"id": "fenced", "input": {"prompt": "x"}, "expected_post_state": {}, "reply": "```json\n[]\n```"}"#,
            "\n",
        ),
    )
    .unwrap();
    let out = capkit(&["mutator", "eval", "cases.jsonl", "--replay"], dir);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("3 of 4 cases errored (client 1, reply 1, case 1)"),
        "{stderr}"
    );
    assert!(stderr.contains("case line 3"), "{stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("evaluated           1"), "{stdout}");
    // Usage: a source is required, and --replay excludes --model.
    assert_eq!(
        capkit(&["mutator", "eval", "cases.jsonl"], dir)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        capkit(
            &["mutator", "eval", "cases.jsonl", "--replay", "--model", "m"],
            dir
        )
        .status
        .code(),
        Some(2)
    );
}

/// Answers every request with one chat completion, counting requests.
fn serve_completions(content: &'static str) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut reader = BufReader::new(stream.unwrap());
            let mut len = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line.trim_end().is_empty() {
                    break;
                }
                if let Some((k, v)) = line.split_once(':')
                    && k.eq_ignore_ascii_case("content-length")
                {
                    len = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; len];
            reader.read_exact(&mut body).unwrap();
            seen.fetch_add(1, Ordering::SeqCst);
            let reply = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": content}}]})
                .to_string();
            let mut stream = reader.into_inner();
            write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            )
            .unwrap();
        }
    });
    (base, count)
}

#[test]
fn live_run_then_cached_rerun() {
    let tmp = temp_dir("live");
    let dir = tmp.path();
    std::fs::write(
        dir.join("cases.jsonl"),
        r#"{"id": "ada", "input": {"prompt": "I am Ada"}, "expected_post_state": {"name": {"values": [{"value": "Ada", "confidence": 0.9}]}}}"#,
    )
    .unwrap();
    let (base, requests) = serve_completions(
        r#"[{"path": "name", "value": "Ada", "confidence": 0.9, "inference": "stated"}]"#,
    );
    let run = |out: &str| {
        capkit(
            &[
                "mutator",
                "eval",
                "cases.jsonl",
                "--base-url",
                &base,
                "--model",
                "m",
                "--cache-dir",
                "cache",
                "--out",
                out,
            ],
            dir,
        )
    };
    let first = run("r1.jsonl");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let stdout = String::from_utf8(first.stdout).unwrap();
    assert!(
        stdout.contains("overall match rate  1.0000  (1 of 1)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("http attempts       1  (cache hits 0"),
        "{stdout}"
    );
    let second = run("r2.jsonl");
    let stdout = String::from_utf8(second.stdout).unwrap();
    assert!(
        stdout.contains("http attempts       0  (cache hits 1"),
        "{stdout}"
    );
    assert_eq!(requests.load(Ordering::SeqCst), 1);
    // Same per-case result apart from the measured latency.
    let strip = |name: &str| {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap();
        v["result"]["time_used"] = serde_json::Value::Null;
        v
    };
    assert_eq!(strip("r1.jsonl"), strip("r2.jsonl"));
}
