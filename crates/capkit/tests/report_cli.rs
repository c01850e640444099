//! `capkit report` end to end: pages from real `capkit typo score --json` and profile report
//! files, one-line errors naming the file, nothing written when an input is refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use scenario_rules::{SystemNeed, system_has};
use std::fs;
use std::path::Path;
use std::process::Output;

mod support;

use support::{capkit_in, failure, output, root};

fn scratch(test: &str) -> tempfile::TempDir {
    support::scratch("report_cli", test)
}

/// `capkit ARGS` in `dir`, with a fixed `SOURCE_DATE_EPOCH` so every page carries the same date.
fn capkit(dir: &Path, args: &[&str]) -> Output {
    output(
        capkit_in(dir)
            .args(args)
            .env("SOURCE_DATE_EPOCH", "1796126400"),
    )
}

/// A typo score report written by `capkit typo score --json` itself.
fn typo_scores(dir: &Path) {
    fs::write(dir.join("names.txt"), "ab\nx.co\n").unwrap();
    let out = capkit(
        dir,
        &[
            "typo",
            "emit",
            "--corpus",
            "names.txt",
            "--tasks",
            "co,hi,acs",
            "--no-split",
            "--out",
            "c.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", failure(&out));
    fs::write(
        dir.join("p.jsonl"),
        "{\"task\":\"co\",\"input\":\"ab\",\"predict\":[\"ba\"]}\n{\"task\":\"hi\",\"input\":\"ab\",\"predict\":[\"a-b\"]}\n",
    )
    .unwrap();
    let out = capkit(
        dir,
        &[
            "typo",
            "score",
            "--corpus",
            "c.jsonl",
            "--predictions",
            "p.jsonl",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", failure(&out));
    fs::write(dir.join("scores.json"), &out.stdout).unwrap();
}

#[test]
fn typo_score_page() {
    let tmp = scratch("typo");
    let dir = tmp.path();
    typo_scores(dir);
    let out = capkit(dir, &["report", "scores.json", "--out", "report.html"]);
    assert_eq!(out.status.code(), Some(0), "{}", failure(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("capkit: wrote report.html (1 document, ")
    );
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("Generated 2026-12-01 12:00 UTC by capkit"));
    assert!(html.contains("Rules (needs nothing): learnable from examples alone"));
    assert!(html.contains("Keyboard tables (needs keyboard)"));
    // The files scored are named; an empty answer's precision 1 is said for what it is
    // (acs has no prediction at all: every answer empty).
    assert!(html.contains(r#"<dt>Corpus</dt><dd><span class="spec">c.jsonl</span>"#));
    assert!(html.contains(r#"<dt>Predictions</dt><dd><span class="spec">p.jsonl</span>"#));
    assert!(
        html.contains(r#"2 empty</span><br><span class="small">rest n/a</span>"#),
        "{html}"
    );
    let hash = blake3::hash(&fs::read(dir.join("scores.json")).unwrap())
        .to_hex()
        .to_string();
    assert!(
        html.contains(&hash),
        "the input's fingerprint is in the header"
    );
    // Without --out the page goes to stdout.
    let out = capkit(dir, &["report", "scores.json"]);
    assert_eq!(out.stdout, html.as_bytes());
}

#[test]
fn refused_inputs_name_the_file_and_write_nothing() {
    let tmp = scratch("refused");
    let dir = tmp.path();
    typo_scores(dir);
    fs::write(dir.join("not.json"), "nope").unwrap();
    fs::write(dir.join("other.json"), "{\"format\": \"something-else/1\"}").unwrap();
    fs::write(
        dir.join("bad-report.json"),
        "{\"format\": \"capkit-profile-report/1\", \"task\": \"classify\"}",
    )
    .unwrap();
    for (input, expected) in [
        (
            "not.json",
            "capkit: not.json: not JSON: expected ident at line 1 column 2",
        ),
        (
            "other.json",
            "capkit: other.json: not a document capkit can report on: its `format` is \"something-else/1\"",
        ),
        ("bad-report.json", "capkit: bad-report.json: "),
        ("missing.json", "capkit: missing.json: cannot read"),
    ] {
        let out = capkit(
            dir,
            &["report", "scores.json", input, "--out", "report.html"],
        );
        let err = failure(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.lines().nth(1).is_some_and(|l| l.starts_with(expected)),
            "{err}"
        );
        assert_eq!(err.lines().count(), 2, "one line: {err}");
        assert!(!dir.join("report.html").exists());
    }
    let out = capkit(dir, &["report"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The offline example (README, docs/reports.md) profiled as a report and as a comparison with
/// student B, both on one page.
#[test]
fn offline_example_page() {
    if !system_has(SystemNeed::Python3, "offline_example_page") {
        return;
    }
    let tmp = scratch("example");
    let root = root();
    let report = tmp.path().join("report.json");
    let comparison = tmp.path().join("comparison.json");
    let page = tmp.path().join("report.html");
    let run = |args: &[&str]| {
        let out = capkit(&root, args);
        assert_eq!(out.status.code(), Some(0), "{}", failure(&out));
    };
    let common = [
        "--texts",
        "examples/profile/texts.txt",
        "--suite",
        "examples/profile/suite.json",
        "--teacher",
        "cmd:python3 examples/profile/teacher.py",
        "--no-cache",
        "--with-run-info",
    ];
    let mut args = vec![
        "profile",
        "classify",
        "--report",
        "--student",
        "cmd:python3 examples/profile/student.py",
    ];
    args.extend(common);
    args.extend(["--out", report.to_str().unwrap()]);
    run(&args);
    let mut args = vec![
        "profile",
        "compare",
        "--student",
        "cmd:python3 examples/profile/student.py",
        "--student",
        "cmd:python3 examples/profile/student_b.py",
        "--alias",
        "strict=cmd:python3 examples/profile/student.py",
    ];
    args.extend(common);
    args.extend(["--out", comparison.to_str().unwrap()]);
    run(&args);
    // A bad alias is refused before any model runs, naming the flag and the rule.
    let refused = capkit(
        &root,
        &[
            "profile",
            "compare",
            "--texts",
            "examples/profile/texts.txt",
            "--teacher",
            "cmd:t",
            "--student",
            "cmd:a",
            "--student",
            "cmd:b",
            "--alias",
            "7=cmd:a",
        ],
    );
    assert_eq!(refused.status.code(), Some(1), "{}", failure(&refused));
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("--alias 7=cmd:a: the alias must not be all digits"),
        "{}",
        failure(&refused)
    );
    // The alias given is kept; the other student's is derived.
    let written: serde_json::Value =
        serde_json::from_slice(&fs::read(&comparison).unwrap()).unwrap();
    assert_eq!(
        written["aliases"],
        serde_json::json!({"strict": "cmd:python3 examples/profile/student.py",
                           "A": "cmd:python3 examples/profile/student_b.py"})
    );
    run(&[
        "report",
        report.to_str().unwrap(),
        comparison.to_str().unwrap(),
        "--out",
        page.to_str().unwrap(),
    ]);
    let html = fs::read_to_string(&page).unwrap();
    let texts = blake3::hash(&fs::read(root.join("examples/profile/texts.txt")).unwrap())
        .to_hex()
        .to_string();
    for expected in [
        "Classifier profile",
        "Student comparison",
        "70.0 %",
        "student significantly less invariant than teacher, Holm-adjusted p = 0.043",
        "no significant difference between student and teacher, Holm-adjusted p = 1",
        "examples/profile/suite.json",
        texts.as_str(),
        "cmd:python3 examples/profile/student_b.py",
        "Abstention",
        "already below the 90.0 % threshold on the clean texts",
        "no significant difference at any stage (smallest Holm-adjusted p = 0.057)",
        // Students go by names: the alias given, and what tells student_b's spec apart.
        "<bdi>strict</bdi> vs <bdi>student_b</bdi>",
        "Student comparison: strict, student_b against <bdi>teacher</bdi>",
        "Classifier profile: <bdi>student</bdi> against <bdi>teacher</bdi>",
        // The suite's probe texts, recorded in the reports, beside their predictions.
        "<em>(empty text)</em>",
        r#"<span class="spec">GOOD</span>"#,
    ] {
        assert!(html.contains(expected), "{expected:?} is not on the page");
    }
    // The recommendation, then the verdict, first; provenance (hashes, full specs) last, in
    // each article.
    let at = |s: &str| html.find(s).unwrap();
    assert!(at("Recommendation") < at("Verdict"));
    assert!(at("Verdict") < at("Clean agreement") && at("Clean agreement") < at("Provenance"));
    assert!(at("Provenance") < at(texts.as_str()));
}
