//! `capkit typo` end to end: the binary's output, exit codes and one-line errors.
//!
//! Tests whose name contains `golden` compare against insta snapshots (`tests/snapshots/`) or
//! upstream golden data (the typo-tasks fixtures), and join `cargo xtask check-goldens`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

mod support;

use support::{capkit_in, failure, output};

fn typo_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../typo-tasks/tests/fixtures")
        .join(name)
}

/// A fresh directory for one test, under cargo's scratch space, removed when the test ends.
fn scratch(test: &str) -> tempfile::TempDir {
    support::scratch("typo_cli", test)
}

fn capkit(dir: &Path, args: &[&str]) -> Output {
    output(capkit_in(dir).args(args).env("RAYON_NUM_THREADS", "2"))
}

#[test]
fn golden_error_malformed_jsonl_line() {
    let tmp = scratch("malformed");
    let dir = tmp.path();
    fs::write(
        dir.join("bad.jsonl"),
        "{\"task\":\"co\",\"input\":\"a\",\"expect\":[\"b\"]}\nnope\n",
    )
    .unwrap();
    let out = capkit(dir, &["typo", "stats", "bad.jsonl"]);
    assert!(out.stdout.is_empty());
    insta::assert_snapshot!(failure(&out));

    fs::write(
        dir.join("typed.jsonl"),
        "\n{\"task\":\"co\",\"input\":\"a\",\"expect\":\"b\"}\n",
    )
    .unwrap();
    let out = capkit(dir, &["typo", "stats", "typed.jsonl"]);
    insta::assert_snapshot!("golden_error_malformed_jsonl_field", failure(&out));
}

#[test]
fn golden_error_unknown_task() {
    let tmp = scratch("unknown");
    let dir = tmp.path();
    let out = capkit(dir, &["typo", "emit", "--tasks", "co,zz,nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    insta::assert_snapshot!(failure(&out));

    // A known task the data deregisters says why.
    fs::write(dir.join("data.json"), "{\"graphemes\":[\"a\"]}").unwrap();
    let out = capkit(
        dir,
        &["typo", "emit", "--data", "data.json", "--tasks", "hr"],
    );
    insta::assert_snapshot!("golden_error_unregistered_task", failure(&out));
}

#[test]
fn golden_error_blank_task_list() {
    let tmp = scratch("blank");
    let dir = tmp.path();
    let out = capkit(dir, &["typo", "emit", "--tasks", ", ,"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    insta::assert_snapshot!(failure(&out));
}

#[test]
fn golden_error_non_utf8_corpus_line() {
    let tmp = scratch("non_utf8");
    let dir = tmp.path();
    fs::write(dir.join("names.txt"), b"google.com\nbad\xffname.com\n").unwrap();
    let out = capkit(
        dir,
        &[
            "typo",
            "emit",
            "--corpus",
            "names.txt",
            "--tasks",
            "co",
            "--out",
            "c.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        !dir.join("c.jsonl").exists(),
        "a refused corpus leaves no file"
    );
    insta::assert_snapshot!(failure(&out));
    // Streaming to stdout with --drop-unrepresentable: still nothing written.
    let out = capkit(
        dir,
        &[
            "typo",
            "emit",
            "--corpus",
            "names.txt",
            "--tasks",
            "co",
            "--drop-unrepresentable",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "wrote {} bytes", out.stdout.len());
}

#[test]
/// CRLF files read as their LF twins (issue 13 item 7: one line rule for every reader).
fn golden_crlf_names_read_as_lf() {
    let tmp = scratch("crlf");
    let dir = tmp.path();
    fs::write(dir.join("names.txt"), "ab\r\ncd\r\n").unwrap();
    let out = capkit(
        dir,
        &[
            "typo",
            "emit",
            "--corpus",
            "names.txt",
            "--tasks",
            "co",
            "--no-split",
            "--drop-unrepresentable",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", failure(&out));
    insta::assert_snapshot!(format!(
        "{}--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ));
}

#[test]
fn score_one_split_only() {
    let tmp = scratch("score_split");
    let dir = tmp.path();
    fs::write(dir.join("names.txt"), "google.com\n1digitalstock.com\n").unwrap();
    let out = capkit(
        dir,
        &[
            "typo",
            "emit",
            "--corpus",
            "names.txt",
            "--tasks",
            "co",
            "--out",
            "c.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", failure(&out));
    fs::write(
        dir.join("p.jsonl"),
        "{\"task\":\"co\",\"input\":\"1digitalstock.com\",\"predict\":[]}\n",
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
            "--split",
            "val",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", failure(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scored"], 1);
    assert_eq!(v["unpredicted"], 0);
    // The same prediction is outside the train split.
    let out = capkit(
        dir,
        &[
            "typo",
            "score",
            "--corpus",
            "c.jsonl",
            "--predictions",
            "p.jsonl",
            "--split",
            "train",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn golden_error_unreadable_file() {
    let tmp = scratch("unreadable");
    let dir = tmp.path();
    let out = capkit(dir, &["typo", "emit", "--corpus", "missing.txt"]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(failure(&out));
    let out = capkit(dir, &["typo", "stats", "missing.jsonl"]);
    insta::assert_snapshot!("golden_error_unreadable_corpus", failure(&out));
}

#[test]
fn golden_error_refused_bf_example() {
    let tmp = scratch("refused_bf");
    let dir = tmp.path();
    fs::write(dir.join("names.txt"), "google.com\nmünchen.de\n").unwrap();
    // stdout: nothing at all is written when the corpus is refused.
    let out = capkit(
        dir,
        &["typo", "emit", "--corpus", "names.txt", "--tasks", "co,bf"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "wrote {} bytes", out.stdout.len());
    insta::assert_snapshot!(failure(&out));
    // --out: the old file stays untouched and no temporary file is left behind.
    fs::write(dir.join("c.jsonl"), "old\n").unwrap();
    let out = capkit(
        dir,
        &[
            "typo",
            "emit",
            "--corpus",
            "names.txt",
            "--tasks",
            "bf",
            "--out",
            "c.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fs::read_to_string(dir.join("c.jsonl")).unwrap(), "old\n");
    assert_eq!(
        fs::read_dir(dir).unwrap().count(),
        2,
        "names.txt and c.jsonl only"
    );
    // Dropping instead says how many.
    let out = capkit(
        dir,
        &[
            "typo",
            "emit",
            "--corpus",
            "names.txt",
            "--tasks",
            "bf",
            "--drop-unrepresentable",
            "--out",
            "c.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(
        "golden_dropped_bf_report",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn golden_usage_errors_exit_2() {
    let tmp = scratch("usage");
    let dir = tmp.path();
    let out = capkit(dir, &["typo", "emit", "--ratio", "1,2"]);
    assert_eq!(out.status.code(), Some(2));
    let out = capkit(dir, &["typo", "emit", "--keyboard", "colemak"]);
    assert_eq!(out.status.code(), Some(2));
    let out = capkit(dir, &["typo", "emit", "--no-split", "--salt", "x"]);
    assert_eq!(out.status.code(), Some(2));
    let out = capkit(dir, &["typo", "frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The CLI reproduces upstream's `WriteJSONL` bytes for `corpus_writejsonl.jsonl`: EmitWithEmpty
/// over the first 20 inputs plus three, every task but gi and gr, default split, source
/// `inputs.txt`, unrepresentable examples filtered.
#[test]
fn golden_emit_matches_upstream_corpus_bytes() {
    let tmp = scratch("upstream_corpus");
    let dir = tmp.path();
    let inputs = fs::read_to_string(typo_fixture("inputs.txt")).unwrap();
    let mut names: Vec<&str> = inputs.split('\n').take(20).collect();
    names.extend(["a&b<c>.com", "münchen.de", "日本.jp"]);
    fs::write(dir.join("names.txt"), names.join("\n") + "\n").unwrap();
    let data = typo_fixture("data.json");
    let tasks = "aci,acs,bf,cm,cns,co,cr,cs,dhs,di,do,hi,ho,hr,hs,ons,rar,sp,tos,vs";
    let args = [
        "typo",
        "emit",
        "--corpus",
        "names.txt",
        "--data",
        data.to_str().unwrap(),
        "--tasks",
        tasks,
        "--with-empty",
        "--source",
        "inputs.txt",
        "--drop-unrepresentable",
    ];
    let out = capkit(dir, &args);
    assert_eq!(out.status.code(), Some(0), "{}", failure(&out));
    let want = fs::read(typo_fixture("corpus_writejsonl.jsonl")).unwrap();
    assert!(out.stdout == want, "stdout differs from upstream's bytes");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("dropped 2 unrepresentable examples (variants that are not UTF-8: bf=2)"),
        "{stderr}"
    );
    let fingerprint = format!("fingerprint blake3:{}", blake3::hash(&want).to_hex());
    assert!(stderr.contains(&fingerprint), "{stderr}");

    // The same bytes through --out, and `stats` agrees on the fingerprint.
    let mut with_out = args.to_vec();
    with_out.extend(["--out", "c.jsonl"]);
    assert_eq!(capkit(dir, &with_out).status.code(), Some(0));
    assert!(fs::read(dir.join("c.jsonl")).unwrap() == want);
    let stats = capkit(dir, &["typo", "stats", "c.jsonl"]);
    assert!(String::from_utf8_lossy(&stats.stdout).contains(&fingerprint));
}

#[test]
fn emit_output_does_not_depend_on_thread_count() {
    let tmp = scratch("threads");
    let dir = tmp.path();
    let names = fs::read_to_string(typo_fixture("bench_domains2000.txt")).unwrap();
    let some: Vec<&str> = names.lines().take(600).collect();
    fs::write(dir.join("names.txt"), some.join("\n")).unwrap();
    let run = |threads: &str| {
        output(
            capkit_in(dir)
                .args([
                    "typo",
                    "emit",
                    "--corpus",
                    "names.txt",
                    "--tasks",
                    "co,cs,hi,bf,hr,aci,sp,tos,cns",
                ])
                .env("RAYON_NUM_THREADS", threads),
        )
    };
    let one = run("1");
    let two = run("2");
    assert_eq!(one.status.code(), Some(0));
    assert!(!one.stdout.is_empty());
    assert!(one.stdout == two.stdout);
}

/// A small corpus and predictions: the score table, its JSON form and the stats output.
#[test]
fn golden_score_and_stats_output() {
    let tmp = scratch("score");
    let dir = tmp.path();
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
    let corpus = fs::read_to_string(dir.join("c.jsonl")).unwrap();
    insta::assert_snapshot!("golden_score_corpus", corpus);
    fs::write(
        dir.join("p.jsonl"),
        concat!(
            "{\"task\":\"co\",\"input\":\"ab\",\"predict\":[\"b\",\"a\",\"ab\",\"\"]}\n",
            "{\"task\":\"hi\",\"input\":\"ab\",\"predict\":[\"-ab\",\"a-b\",\"zz\"]}\n",
            "{\"task\":\"acs\",\"input\":\"x.co\",\"predict\":[]}\n",
        ),
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
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", failure(&out));
    insta::assert_snapshot!(
        "golden_score_table",
        format!(
            "{}--- stderr\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    );
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
    insta::assert_snapshot!("golden_score_json", String::from_utf8_lossy(&out.stdout));

    // A prediction for a pair the corpus lacks is an error naming it.
    fs::write(dir.join("stray.jsonl"), "{\"task\":\"co\",\"input\":\"ab\",\"predict\":[]}\n{\"task\":\"co\",\"input\":\"zz\",\"predict\":[\"z\"]}\n").unwrap();
    let out = capkit(
        dir,
        &[
            "typo",
            "score",
            "--corpus",
            "c.jsonl",
            "--predictions",
            "stray.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    insta::assert_snapshot!("golden_score_stray_prediction", failure(&out));

    // Scoring against a different keyboard than the corpus was built with is refused.
    let out = capkit(
        dir,
        &[
            "typo",
            "score",
            "--corpus",
            "c.jsonl",
            "--predictions",
            "p.jsonl",
            "--keyboard",
            "dvorak",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("golden_score_registry_mismatch", failure(&out));

    let out = capkit(dir, &["typo", "stats", "c.jsonl"]);
    insta::assert_snapshot!("golden_stats_output", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn golden_tasks_listing() {
    let tmp = scratch("tasks");
    let dir = tmp.path();
    fs::write(
        dir.join("data.json"),
        "{\"graphemes\":[\"a\",\"b\"],\"keyboard\":[\"qwe\",\"asd\"]}",
    )
    .unwrap();
    let out = capkit(dir, &["typo", "tasks", "--data", "data.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", failure(&out));
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout));
}

#[test]
fn default_emit_is_the_main_job() {
    let tmp = scratch("default");
    let dir = tmp.path();
    let out = capkit(dir, &["typo", "emit", "--tasks", "co,bf"]);
    assert_eq!(out.status.code(), Some(0), "{}", failure(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().count() > 2000);
    assert!(text.starts_with("{\"task\":\"bf\",\"input\":\"google.com\""));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("inputs, 2 tasks"), "{stderr}");
    assert!(
        stderr.contains("dropped"),
        "the embedded IDNs' bf examples are dropped: {stderr}"
    );
}
