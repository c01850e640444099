//! Bad and degenerate inputs get a clear answer (issue 13): over-long names, prediction rows
//! without a prediction, empty inputs, CRLF files, and the messages of suite and model errors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::io::Read as _;
use std::net::TcpListener;
use std::path::Path;
use std::process::Output;

mod support;

use support::{capkit_in, output, root, stderr};

fn run(dir: &Path, args: &[&str]) -> Output {
    output(capkit_in(dir).args(args).env("TMPDIR", dir))
}

// Item 2: one long name must not exhaust memory.

#[test]
fn a_name_longer_than_the_maximum_is_refused_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let long = "a".repeat(254);
    fs::write(dir.path().join("n.txt"), format!("ok.com\n{long}\n")).unwrap();
    let out = run(
        dir.path(),
        &["typo", "emit", "--corpus", "n.txt", "--out", "c.jsonl"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with(
            "capkit: n.txt: line 2: name longer than 253 bytes (the maximum name length; DNS names have at most 253); raise it with --max-name-len"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("c.jsonl").exists());
    // 253 bytes (and a CRLF ending) are fine; the flag raises the limit.
    fs::write(dir.path().join("m.txt"), format!("{}\r\n", "a".repeat(253))).unwrap();
    let out = run(
        dir.path(),
        &[
            "typo", "emit", "--corpus", "m.txt", "--tasks", "co", "--out", "c.jsonl",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(
        dir.path(),
        &[
            "typo",
            "emit",
            "--corpus",
            "n.txt",
            "--tasks",
            "co",
            "--max-name-len",
            "254",
            "--out",
            "c.jsonl",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn an_endless_line_is_refused_without_reading_it_whole() {
    let dir = tempfile::tempdir().unwrap();
    // 64 MB without a line break: refused at the limit (a whole-line read would hold it all).
    let file = fs::File::create(dir.path().join("huge.txt")).unwrap();
    file.set_len(64 << 20).unwrap();
    let out = run(
        dir.path(),
        &["typo", "emit", "--corpus", "huge.txt", "--out", "c.jsonl"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("huge.txt: line 1: name longer than 253 bytes"),
        "{}",
        stderr(&out)
    );
    let left: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["huge.txt"]);
}

#[test]
fn score_refuses_a_corpus_input_longer_than_the_maximum() {
    let dir = tempfile::tempdir().unwrap();
    let long = "a".repeat(300);
    fs::write(
        dir.path().join("c.jsonl"),
        format!("{{\"task\":\"co\",\"input\":\"{long}\",\"expect\":[]}}\n"),
    )
    .unwrap();
    fs::write(dir.path().join("p.jsonl"), "").unwrap();
    let out = run(
        dir.path(),
        &[
            "typo",
            "score",
            "--corpus",
            "c.jsonl",
            "--predictions",
            "p.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "capkit: c.jsonl: line 1: field \"input\": longer than 253 bytes (the maximum name length); raise it with --max-name-len\n"
    );
}

// Item 4: a present row without a prediction is an error, not an empty answer.

#[test]
fn a_prediction_row_without_a_prediction_is_an_error_naming_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("c.jsonl"),
        "{\"task\":\"co\",\"input\":\"ab\",\"expect\":[\"a\",\"b\"]}\n",
    )
    .unwrap();
    let cases = [
        (
            "{\"task\":\"co\",\"input\":\"ab\"}",
            "field \"predict\" is missing (list the predicted variants; [] for none)",
        ),
        (
            "{\"task\":\"co\",\"input\":\"ab\",\"predict\":null}",
            "field \"predict\": expected an array of strings, found null ([] for none)",
        ),
        (
            "{\"task\":\"co\",\"input\":\"ab\",\"prediction\":[\"a\"]}",
            "unknown field \"prediction\" (a prediction has exactly task, input and predict)",
        ),
    ];
    for (row, message) in cases {
        fs::write(dir.path().join("p.jsonl"), format!("\n{row}\n")).unwrap();
        let out = run(
            dir.path(),
            &[
                "typo",
                "score",
                "--corpus",
                "c.jsonl",
                "--predictions",
                "p.jsonl",
            ],
        );
        assert_eq!(out.status.code(), Some(1), "{row}");
        assert_eq!(
            stderr(&out),
            format!("capkit: p.jsonl: line 2: {message}\n")
        );
        assert!(out.stdout.is_empty());
    }
    // An absent row is still "no prediction", scored as an empty answer.
    fs::write(dir.path().join("p.jsonl"), "").unwrap();
    let out = run(
        dir.path(),
        &[
            "typo",
            "score",
            "--corpus",
            "c.jsonl",
            "--predictions",
            "p.jsonl",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 had no prediction"),
        "{}",
        stderr(&out)
    );
}

// Item 6: empty inputs succeed with a warning.

#[test]
fn empty_inputs_warn_on_stderr_and_succeed() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("empty.txt"), "").unwrap();
    fs::write(dir.path().join("blank.txt"), "\n\r\n\n").unwrap();
    for corpus in ["empty.txt", "blank.txt"] {
        let out = run(dir.path(), &["typo", "emit", "--corpus", corpus]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stderr(&out).starts_with(&format!(
                "capkit: warning: {corpus}: the corpus has no names (empty lines only, or an empty file); the output is empty\n"
            )),
            "{}",
            stderr(&out)
        );
    }
    let out = run(dir.path(), &["typo", "stats", "empty.txt"]);
    assert!(out.status.success());
    assert_eq!(
        stderr(&out),
        "capkit: warning: empty.txt: the corpus has no examples\n"
    );
    let out = run(
        dir.path(),
        &[
            "typo",
            "score",
            "--corpus",
            "empty.txt",
            "--predictions",
            "empty.txt",
        ],
    );
    assert!(out.status.success());
    assert!(
        stderr(&out).starts_with(
            "capkit: warning: empty.txt: the corpus has no examples; nothing was scored\n"
        ),
        "{}",
        stderr(&out)
    );
    let out = run(dir.path(), &["mutator", "eval", "empty.txt", "--replay"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "capkit: warning: empty.txt: no cases (the file is empty or blank); nothing to evaluate\n"
    );
    let out = run(dir.path(), &["profile", "texts", "--texts", "empty.txt"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "capkit: warning: --texts empty.txt: no texts (the file is empty); the profile covers the probes only\n"
    );
}

// Item 7: one CRLF rule for every text-file reader.

#[test]
fn crlf_files_read_exactly_as_their_lf_twins() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("lf.txt"), "good food\nbad  service\n").unwrap();
    fs::write(dir.path().join("crlf.txt"), "good food\r\nbad  service\r\n").unwrap();
    let texts = |file: &str| run(dir.path(), &["profile", "texts", "--texts", file]).stdout;
    assert_eq!(texts("lf.txt"), texts("crlf.txt"));
    let emit = |file: &str| {
        run(
            dir.path(),
            &[
                "typo", "emit", "--corpus", file, "--tasks", "co,hi", "--source", "s",
            ],
        )
        .stdout
    };
    assert_eq!(emit("lf.txt"), emit("crlf.txt"));
    assert!(!emit("lf.txt").is_empty());
}

// Item 8: messages.

#[test]
fn suite_build_errors_name_the_suite_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("t.txt"), "a\n").unwrap();
    fs::write(
        dir.path().join("s.json"),
        r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 1.5}]}"#,
    )
    .unwrap();
    let out = run(
        dir.path(),
        &["profile", "texts", "--texts", "t.txt", "--suite", "s.json"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "capkit: --suite s.json: corruptions[0]: transform `keyboard_typo`: rate must be in [0, 1], got 1.5\n"
    );
    let model = format!(
        "file:{}",
        root().join("examples/profile/texts.txt").display()
    );
    let out = run(
        dir.path(),
        &[
            "profile",
            "classify",
            "--texts",
            "t.txt",
            "--suite",
            "s.json",
            "--student",
            &model,
            "--teacher",
            &model,
        ],
    );
    assert_eq!(
        stderr(&out),
        "capkit: --suite s.json: corruptions[0]: transform `keyboard_typo`: rate must be in [0, 1], got 1.5\n"
    );
}

#[test]
fn an_http_timeout_says_what_timed_out() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("t.txt"), "a\n").unwrap();
    // Accepts connections and never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http:http://{}/", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().take(2) {
            let mut stream = stream.unwrap();
            let mut buf = [0u8; 1024];
            let _ = stream.read(&mut buf);
            held.push(stream);
        }
        std::thread::sleep(std::time::Duration::from_secs(3));
    });
    let out = run(
        dir.path(),
        &[
            "profile",
            "classify",
            "--texts",
            "t.txt",
            "--student",
            &url,
            "--teacher",
            &url,
            "--timeout",
            "1",
            "--retries",
            "0",
            "--no-cache",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("no answer within 1 s (--timeout)"), "{err}");
    assert!(!err.contains("timeout: global"), "{err}");
    drop(server);
}
